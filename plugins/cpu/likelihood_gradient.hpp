// CpuModel's reverse pass (likelihood_model.hpp): the gradient of logpdf of a group of points and the Jacobian of
// the rates, by the chain rule through the shared term products, the normsys terms and the histosys weights.
#pragma once

#include <algorithm>
#include <vector>

#include "likelihood_forward.hpp"
#include "likelihood_model.hpp"

namespace hf::cpu::fused {

template <class R>
inline void CpuModel<R>::gradient_points(const Point* pts, int count) const {
    for (int t = 0; t < count; ++t) gradient_elements(*pts[t].s);
    if (!dense_c_.empty()) {
        const double* wpf[simd::kMaxPoints];
        double* gslot[simd::kMaxPoints];
        for (const DenseBlock& b : dense_blocks_) {
            for (int t = 0; t < count; ++t)
                wpf[t] = pts[t].s->wpf.data() + b.row0, gslot[t] = pts[t].s->gslot.data() + b.col0;
            simd::weighted_row_sum_points(dense_c_.data() + b.row0 * n_weights_ + b.col0, n_weights_, b.width,
                                          b.rows, wpf, gslot, count);
        }
    }
    for (int t = 0; t < count; ++t) gradient_finish(pts[t]);
}

// The gradient's pass over the elements: d logpdf / d (parameter, normsys term or term product) into s.gacc
// and s.gterm, each element's weight wb * prodf into s.wpf, and the sparse histosys entries into s.gslot.
template <class R>
inline void CpuModel<R>::gradient_elements(Scratch<R>& s) const {
    const std::size_t T = t_par_.size();
    double* gacc = s.gacc.data();
    double* gterm = s.gterm.data();  // d logpdf / d (normsys term value)
    double* gslot = s.gslot.data();  // d logpdf / d (histosys weight)
    std::fill_n(gacc, P_, 0.0);
    std::fill_n(gterm, T + static_cast<std::size_t>(n_sets()), 0.0);
    std::fill_n(gslot, n_weights_, 0.0);
    const R* tv = s.tv.data();
    const R* c = d_coef_.data();
    R* pre = s.pre.data();
    // d logpdf / d tv[i] accumulates in gacc for parameters (linear factors) and gterm for normsys terms and
    // their shared products.
    auto add_factor_grad = [&](i32 src, double v) {
        if (src < P_) gacc[src] += v;
        else gterm[src - P_] += v;
    };
    for (i64 e = 0; e < E_; ++e) {
        const double wb = s.wbin[elem_bin_[e]];
        // d rate / d factor_i = base * (product of the other factors)
        distribute(tv, f_src_.data(), f_off_[e], f_off_[e + 1], wb * static_cast<double>(s.base[e]), pre,
                   add_factor_grad);
        const double wpf = wb * static_cast<double>(s.prodf[e]);
        s.wpf[e] = wpf;
        if (dense_c_.empty())
            for (i32 d = d_off_[e], d1 = d_off_[e + 1]; d < d1; ++d) {
                double* gs = gslot + 2 * d_slot_[d];
                gs[0] += wpf * static_cast<double>(c[2 * d]);
                gs[1] += wpf * static_cast<double>(c[2 * d + 1]);
            }
    }
}

// The rest of the gradient, after the dense histosys entries reached s.gslot: the chain rule to the
// parameters, the constraints, and the point's gradient row.
template <class R>
inline void CpuModel<R>::gradient_finish(const Point& pt) const {
    Scratch<R>& s = *pt.s;
    const R* par = pt.par;
    R* grad = pt.grad;
    double* gacc = s.gacc.data();
    to_parameters(s, s.gterm.data(), s.gslot.data(), gacc);
    const R* aux = pt.data + N_;
    for (std::size_t i = 0; i < g_par_.size(); ++i)
        gacc[g_par_[i]] += (static_cast<double>(aux[g_aux_[i]]) - par[g_par_[i]]) * g_inv_var_[i];
    for (std::size_t i = 0; i < q_par_.size(); ++i) {
        const double a = aux[q_aux_[i]], tau = q_tau_[i], p = par[q_par_[i]];
        gacc[q_par_[i]] += a > 0 ? a / p - tau : -tau;
    }
    for (i64 p = 0; p < P_; ++p) grad[p] = static_cast<R>(gacc[p]);
}

// The chain rule's last links, shared by gradient_finish() and jacobian(): derivatives by the shared term
// products (dterm[T + set]) reach their terms, by the normsys terms (dterm[0, T)) and by the histosys weights
// (dweight) reach the parameters (dpar, added to).
template <class R>
inline void CpuModel<R>::to_parameters(Scratch<R>& s, double* dterm, const double* dweight, double* dpar) const {
    const std::size_t T = t_par_.size();
    const R* tv = s.tv.data();
    for (i64 u = 0; u < n_sets(); ++u) {
        // d / d term = d / d product * (product of the set's other terms)
        const double w = dterm[T + static_cast<std::size_t>(u)];
        if (w == 0.0) continue;
        distribute(tv, set_src_.data(), set_off_[u], set_off_[u + 1], w, s.pre.data(),
                   [&](i32 src, double v) { dterm[src - P_] += v; });
    }
    for (std::size_t u = 0; u < T; ++u) dpar[t_par_[u]] += dterm[u] * static_cast<double>(s.dtv[u]);
    for (std::size_t k = 0; k < slots_.size(); ++k)
        dpar[slots_[k].par] += dweight[2 * k] * static_cast<double>(s.dw[2 * k]) +
                               dweight[2 * k + 1] * static_cast<double>(s.dw[2 * k + 1]);
}

// d rate_b / d par_p into out [N, P]: gradient()'s chain rule with one accumulator row per bin instead of one
// sum weighted by the bins' residuals.
template <class R>
inline void CpuModel<R>::jacobian(const R* par, Scratch<R>& s, JacobianRows& j, R* out) const {
    rates<true>(par, s);
    const std::size_t T = t_par_.size(), nt = T + static_cast<std::size_t>(n_sets()), nw = 2 * slots_.size();
    const std::size_t P = static_cast<std::size_t>(P_);
    j.par.assign(static_cast<std::size_t>(N_) * P, 0.0);
    j.term.assign(static_cast<std::size_t>(N_) * nt, 0.0);
    j.weight.assign(static_cast<std::size_t>(N_) * nw, 0.0);
    const R* tv = s.tv.data();
    const R* c = d_coef_.data();
    R* pre = s.pre.data();
    for (i64 e = 0; e < E_; ++e) {
        const std::size_t b = static_cast<std::size_t>(elem_bin_[e]);
        double* jp = j.par.data() + b * P;
        double* jt = j.term.data() + b * nt;
        distribute(tv, f_src_.data(), f_off_[e], f_off_[e + 1], static_cast<double>(s.base[e]), pre,
                   [&](i32 src, double v) {
                       if (src < P_) jp[src] += v;
                       else jt[src - P_] += v;
                   });
        const double pf = static_cast<double>(s.prodf[e]);
        double* jw = j.weight.data() + b * nw;
        for (i32 d = d_off_[e], d1 = d_off_[e + 1]; d < d1; ++d) {
            jw[2 * d_slot_[d]] += pf * static_cast<double>(c[2 * d]);
            jw[2 * d_slot_[d] + 1] += pf * static_cast<double>(c[2 * d + 1]);
        }
    }
    for (std::size_t b = 0; b < static_cast<std::size_t>(N_); ++b) {
        double* jp = j.par.data() + b * P;
        double* jt = j.term.data() + b * nt;
        const double* jw = j.weight.data() + b * nw;
        to_parameters(s, jt, jw, jp);
        for (std::size_t p = 0; p < P; ++p) out[b * P + p] = static_cast<R>(jp[p]);
    }
}

}  // namespace hf::cpu::fused
