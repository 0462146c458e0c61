// CpuModel's forward pass (likelihood_model.hpp): data-only constants, rates and logpdf of a group of points.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "likelihood_model.hpp"
#include "neumaier.hpp"

namespace hf::cpu::fused {

// The data-only part of logpdf per data row: hf_poisson_const over the main bins; aux log(tau/aux) +
// (aux - tau) + hf_poisson_const(aux) over Poisson constraints; the Gaussian normalisations. Computed when
// the data are bound, so that the evaluations of a fit or a scan skip the lgamma per bin.
template <class R>
inline std::vector<double> CpuModel<R>::data_constants(const R* dp, i64 rows) const {
    std::vector<double> c(static_cast<std::size_t>(rows), gauss_const_);
    for (i64 r = 0; r < rows; ++r) {
        const R* d = dp + r * (N_ + A_);
        Neumaier acc;
        for (i64 b = 0; b < N_; ++b) acc.add(poisson_const(static_cast<double>(d[b])));
        for (std::size_t q = 0; q < q_aux_.size(); ++q) {
            const double a = static_cast<double>(d[N_ + q_aux_[q]]), tau = q_tau_[q];
            if (a > 0) acc.add(lm64::hf_n_log_ratio(a, tau) + (a - tau) + poisson_const(a));
        }
        c[static_cast<std::size_t>(r)] += acc.value();
    }
    return c;
}

// Fills s.tv (parameters, then normsys term values) and s.w (histosys weights), with their derivatives.
template <class R>
template <bool with_derivs>
inline void CpuModel<R>::factors_and_weights(const R* par, Scratch<R>& s) const {
    R* tv = s.tv.data();
    std::copy_n(par, P_, tv);
    R* tt = tv + P_;
    R* dtv = s.dtv.data();
    const bool outside = simd::code4_poly(par, t_par_.data(), t_coef_.data(), n_code4_, tt, dtv);
    for (std::size_t u = outside ? 0 : n_code4_, T = t_par_.size(); u < T; ++u) {
        const R a = par[t_par_[u]];
        if (u < n_code4_ && a < R(1) && a > R(-1)) continue;  // the polynomial holds
        tt[u] = Math<R>::fexp(a, a >= R(0) ? t_log_hi_[u] : t_neg_log_lo_[u], &dtv[u]);
    }
    // The padding stays zero: the scratch may hold another model's weights there.
    std::fill(s.w.begin() + static_cast<std::ptrdiff_t>(2 * slots_.size()),
              s.w.begin() + static_cast<std::ptrdiff_t>(n_weights_), R(0));
    for (std::size_t k = 0, S = slots_.size(); k < S; ++k) {
        R wk[4];
        Math<R>::delta_weights(slots_[k].kind, par[slots_[k].par], wk);
        s.w[2 * k] = wk[0], s.w[2 * k + 1] = wk[1];
        if constexpr (with_derivs) s.dw[2 * k] = wk[2], s.dw[2 * k + 1] = wk[3];
    }
}

// Fills s.base (nominal plus histosys deltas), s.rate, and s.prodf for the gradient.
template <class R>
template <bool with_derivs>
inline void CpuModel<R>::rates(const R* par, Scratch<R>& s) const {
    Point one{par, nullptr, 0.0, nullptr, &s};
    rates_points<with_derivs>(&one, 1);
}

template <class R>
template <bool with_derivs>
inline void CpuModel<R>::rates_points(const Point* pts, int count) const {
    for (int t = 0; t < count; ++t) {
        factors_and_weights<with_derivs>(pts[t].par, *pts[t].s);
        std::copy_n(elem_nom_.data(), E_, pts[t].s->base.data());
    }
    if (!dense_c_.empty()) {
        const R* w[simd::kMaxPoints];
        R* base[simd::kMaxPoints];
        for (const DenseBlock& b : dense_blocks_) {
            for (int t = 0; t < count; ++t)
                w[t] = pts[t].s->w.data() + b.col0, base[t] = pts[t].s->base.data() + b.row0;
            simd::rows_dot_points(dense_c_.data() + b.row0 * n_weights_ + b.col0, n_weights_, b.width, b.rows,
                                  w, base, count);
        }
    } else {
        for (int t = 0; t < count; ++t) sparse_histosys(*pts[t].s);
    }
    for (int t = 0; t < count; ++t) factor_products<with_derivs>(*pts[t].s);
}

// base[e] += the histosys deltas of element e, from the sparse entries.
template <class R>
inline void CpuModel<R>::sparse_histosys(Scratch<R>& s) const {
    R* base = s.base.data();
    const R* w = s.w.data();
    const R* c = d_coef_.data();
    const i32* slot = d_slot_.data();
    for (i64 e = 0; e < E_; ++e) {
        // Four independent sums: a bin of a large model has dozens of histosys terms.
        R b0 = 0, b1 = 0, b2 = 0, b3 = 0;
        i32 d = d_off_[e];
        const i32 d1 = d_off_[e + 1];
        for (; d + 1 < d1; d += 2) {
            const R* wa = w + 2 * slot[d];
            const R* wb = w + 2 * slot[d + 1];
            b0 += c[2 * d] * wa[0];
            b1 += c[2 * d + 1] * wa[1];
            b2 += c[2 * d + 2] * wb[0];
            b3 += c[2 * d + 3] * wb[1];
        }
        if (d < d1) {
            const R* wa = w + 2 * slot[d];
            b0 += c[2 * d] * wa[0];
            b1 += c[2 * d + 1] * wa[1];
        }
        base[e] += (b0 + b2) + (b1 + b3);
    }
}

// s.rate from s.base and the multiplicative factors (s.prodf: each element's product, for the gradient).
template <class R>
template <bool with_derivs>
inline void CpuModel<R>::factor_products(Scratch<R>& s) const {
    const R* base = s.base.data();
    std::fill_n(s.rate.data(), N_, R(0));
    R* tv = s.tv.data();
    for (i64 u = 0, first = P_ + static_cast<i64>(t_par_.size()); u < n_sets(); ++u)
        tv[first + u] = product_of(tv, set_src_.data(), set_off_[u], set_off_[u + 1]);
    for (i64 e = 0; e < E_; ++e) {
        const R pf = product_of(tv, f_src_.data(), f_off_[e], f_off_[e + 1]);
        if constexpr (with_derivs) s.prodf[e] = pf;
        s.rate[elem_bin_[e]] += base[e] * pf;
    }
}

// logpdf (and its gradient where the points ask for one: all of them or none) of count <= kMaxPoints points.
template <class R>
inline void CpuModel<R>::eval_points(const Point* pts, int count, R* out) const {
    const bool g = pts[0].grad != nullptr;
    if (g) rates_points<true>(pts, count);
    else rates_points<false>(pts, count);
    for (int t = 0; t < count; ++t) out[t] = value(pts[t], g);
    if (g) gradient_points(pts, count);
}

// logpdf from the point's rates; with g, the per-bin weights of the gradient (s.wbin) too.
template <class R>
inline R CpuModel<R>::value(const Point& pt, bool g) const {
    const R* par = pt.par;
    const R* data = pt.data;
    Scratch<R>& s = *pt.s;
    Neumaier acc;
    // Rates are computed in the backend precision; the per-bin terms take them (and the data) to double:
    // on a CPU that costs nothing and keeps a 32b NLL from losing digits in n log(lam / n) at large n.
    for (i64 b = 0; b < N_; ++b) {
        const double n = static_cast<double>(data[b]), lam = static_cast<double>(s.rate[b]);
        // hf_poisson_logpdf less hf_poisson_const(n), which lives in `constant`
        acc.add(n > 0 ? lm64::hf_n_log_ratio(n, lam) + (n - lam) : -lam);
        if (g) s.wbin[b] = n > 0 ? n / lam - 1.0 : -1.0;
    }
    const R* aux = data + N_;
    for (std::size_t i = 0; i < g_par_.size(); ++i) {
        const R z = aux[g_aux_[i]] - par[g_par_[i]];
        acc.add(-0.5 * static_cast<double>(z) * static_cast<double>(z) * g_inv_var_[i]);
    }
    for (std::size_t i = 0; i < q_par_.size(); ++i) {
        // hf_poisson_constraint_logpdf less its data-only part: aux log(par) - (par - 1) tau (tau reaches
        // 1e11 for tiny shapesys uncertainties, hence double here too)
        const double a = aux[q_aux_[i]], p = par[q_par_[i]], tau = q_tau_[i];
        acc.add(a > 0 ? Math<double>::xlogy(a, p) - (p - 1.0) * tau : -p * tau);
    }
    return static_cast<R>(acc.value() + pt.constant);
}

}  // namespace hf::cpu::fused
