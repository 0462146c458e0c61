// The packed likelihood's reverse-mode input terms (likelihood_input_grad.hpp). With lp = logpdf, w_b = d lp /
// d rate_b = n_b / rate_b - 1, and for element e in bin b: base_e = nominal_e + sum of its deltas, F_e = the
// product of its factors f,
//   d lp / d nominal_e      = w_b F_e
//   d lp / d delta (hi, lo, nom) of e = w_b F_e d delta / d (hi, lo, nom)
//   d lp / d factor f of e  = w_b base_e (product of e's other factors), then through the factor's formula to
//                             its lo, hi (exponential branches) and code4 coefficients (polynomial branch)
// and the constraints' own terms in sigma and tau. The histosys delta is the one of hf_delta_weights,
// cS w0(alpha) + cA w1(alpha) with cS = (up + dn) / 2, cA = (up - dn) / 2, up = hi - nom, dn = nom - lo: its
// partials by up and dn are (w0 + w1) / 2 and (w0 - w1) / 2 under every interpolation code. The expected data's
// vector-Jacobian product (expected_data_vjp) is the same reverse pass with the cotangent in place of w_b.
#include "likelihood_input_grad.hpp"

#include <algorithm>
#include <cmath>

#include "math.hpp"
#include "neumaier.hpp"

namespace hf::cpu {

namespace {

using i32 = std::int32_t;

// Recurrence up to x >= 6, then the asymptotic series (error below 1e-15 there).
double digamma(double x) {
    double r = 0.0;
    while (x < 6.0) r -= 1.0 / x, x += 1.0;
    const double f = 1.0 / (x * x);
    return r + std::log(x) - 0.5 / x -
           f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
}

// d/dn of xlogy(n, lam) - lgamma(n + 1): the count's term of a Poisson log-probability (0 log 0 is a constant).
double d_count(double n, double lam) { return (n == 0.0 && lam == 0.0 ? 0.0 : std::log(lam)) - digamma(n + 1.0); }

}  // namespace

// Factors (value, d/d alpha, the direct d/d lo, d/d hi of the exponential branches), then the elements' base
// (nominal plus deltas), factor product and the rates: the forward pass both reverse passes start from.
template <class R>
void PackedInputGradient::forward(const R* par_r, InputGradScratch& s) const {
    const PackedLikelihood& pk = pk_;
    const std::size_t F = pk.factor_par.size(), E = pk.elem_bin.size();
    const std::size_t N = static_cast<std::size_t>(pk.n_main), P = static_cast<std::size_t>(pk.n_pars);
    auto par = [&](i32 i) { return static_cast<double>(par_r[i]); };
    s.fv.resize(F), s.dfa.resize(F), s.dlo.resize(F), s.dhi.resize(F);
    s.base.resize(E), s.prodf.resize(E), s.wbin.resize(N);
    s.rate.assign(N + P, 0.0);  // the rates, then the parameters' gradient
    double* rate = s.rate.data();
    for (std::size_t f = 0; f < F; ++f) {
        const double a = par(pk.factor_par[f]);
        const i32 kind = pk.factor_kind[f];
        double fv = a, dfa = 1.0, dlo = 0.0, dhi = 0.0;
        if (kind != kFactorLinear) {
            const double lo = pk.factor_lo[f], hi = pk.factor_hi[f];
            if (kind == kFactorNormsysCode1 ? a >= 0.0 : a >= 1.0) {
                fv = std::exp(a * std::log(hi));
                dfa = fv * std::log(hi);
                dhi = a * fv / hi;
            } else if (kind == kFactorNormsysCode1 || a <= -1.0) {
                fv = std::exp(-a * std::log(lo));
                dfa = -fv * std::log(lo);
                dlo = -a * fv / lo;
            } else {
                fv = lm64::hf_factor_code4_poly(a, pk.factor_coef.data() + 6 * f, &dfa);
            }
        }
        s.fv[f] = fv, s.dfa[f] = dfa, s.dlo[f] = dlo, s.dhi[f] = dhi;
    }
    for (std::size_t e = 0; e < E; ++e) {
        double base = pk.elem_nominal[e];
        for (i32 d = pk.delta_offsets[e]; d < pk.delta_offsets[e + 1]; ++d) {
            double w[4];
            lm64::hf_delta_weights(pk.delta_kind[d], par(pk.delta_par[d]), w);
            const double up = pk.delta_hi[d] - pk.delta_nom[d], dn = pk.delta_nom[d] - pk.delta_lo[d];
            base += 0.5 * (up + dn) * w[0] + 0.5 * (up - dn) * w[1];
        }
        double prod = 1.0;
        for (i32 f = pk.factor_offsets[e]; f < pk.factor_offsets[e + 1]; ++f) prod *= s.fv[f];
        s.base[e] = base, s.prodf[e] = prod;
        rate[pk.elem_bin[e]] += base * prod;
    }
}

// The elements' reverse sweep with s.wbin the cotangent of the rates: their packed entries' terms into `out`, the
// parameters' into the gradient after the rates in s.rate (zeroed here).
template <class R>
void PackedInputGradient::reverse_elements(const R* par_r, const PackedGradientRow<R>& out,
                                           InputGradScratch& s) const {
    const PackedLikelihood& pk = pk_;
    const std::size_t E = pk.elem_bin.size();
    const std::size_t N = static_cast<std::size_t>(pk.n_main), P = static_cast<std::size_t>(pk.n_pars);
    auto par = [&](i32 i) { return static_cast<double>(par_r[i]); };
    double* gpar = s.rate.data() + N;
    std::fill_n(gpar, P, 0.0);
    for (std::size_t e = 0; e < E; ++e) {
        const double g = s.wbin[pk.elem_bin[e]];
        const double gp = g * s.prodf[e];
        out.elem_nominal[e] = static_cast<R>(gp);
        for (i32 d = pk.delta_offsets[e]; d < pk.delta_offsets[e + 1]; ++d) {
            double w[4];
            lm64::hf_delta_weights(pk.delta_kind[d], par(pk.delta_par[d]), w);
            const double up = pk.delta_hi[d] - pk.delta_nom[d], dn = pk.delta_nom[d] - pk.delta_lo[d];
            const double d_up = 0.5 * (w[0] + w[1]), d_dn = 0.5 * (w[0] - w[1]);
            out.delta_hi[d] = static_cast<R>(gp * d_up);
            out.delta_lo[d] = static_cast<R>(-gp * d_dn);
            out.delta_nom[d] = static_cast<R>(gp * (d_dn - d_up));
            gpar[pk.delta_par[d]] += gp * (0.5 * (up + dn) * w[2] + 0.5 * (up - dn) * w[3]);
        }
        // The product of the other factors by prefix and suffix products: a factor may be 0 (a normfactor at 0).
        const i32 f0 = pk.factor_offsets[e], nf = pk.factor_offsets[e + 1] - f0;
        s.pre.resize(static_cast<std::size_t>(nf) + 1);
        s.pre[0] = 1.0;
        for (i32 i = 0; i < nf; ++i) s.pre[i + 1] = s.pre[i] * s.fv[f0 + i];
        double suffix = 1.0;
        const double gb = g * s.base[e];
        for (i32 i = nf - 1; i >= 0; --i) {
            const std::size_t f = static_cast<std::size_t>(f0 + i);
            const double gf = gb * s.pre[i] * suffix;
            suffix *= s.fv[f];
            gpar[pk.factor_par[f]] += gf * s.dfa[f];
            out.factor_lo[f] = static_cast<R>(gf * s.dlo[f]);
            out.factor_hi[f] = static_cast<R>(gf * s.dhi[f]);
            // the polynomial 1 + sum_i coef_i alpha^(i+1) of code4 inside |alpha| < 1
            const double a = par(pk.factor_par[f]);
            const bool poly = pk.factor_kind[f] == kFactorNormsysCode4 && a < 1.0 && a > -1.0;
            double ai = a;
            for (std::size_t c = 0; c < 6; ++c, ai *= a) out.factor_coef[6 * f + c] = static_cast<R>(poly ? gf * ai : 0.0);
        }
    }
}

template <class R>
void PackedInputGradient::point(const R* par_r, const R* data, const PackedGradientRow<R>& out,
                                InputGradScratch& s) const {
    const PackedLikelihood& pk = pk_;
    const std::size_t N = static_cast<std::size_t>(pk.n_main), P = static_cast<std::size_t>(pk.n_pars);
    auto par = [&](i32 i) { return static_cast<double>(par_r[i]); };
    forward(par_r, s);
    const double* rate = s.rate.data();

    // Main Poisson terms: value, w_b, d/d main data.
    Neumaier acc;
    for (std::size_t b = 0; b < N; ++b) {
        const double n = static_cast<double>(data[b]), lam = rate[b];
        acc.add(lm64::hf_poisson_logpdf(n, lam));
        s.wbin[b] = n > 0 ? n / lam - 1.0 : -1.0;
        out.data[b] = static_cast<R>(d_count(n, lam));
    }
    reverse_elements(par_r, out, s);
    double* gpar = s.rate.data() + N;

    // Constraints; aux data that no constraint reads have no gradient.
    const R* aux = data + N;
    R* d_aux = out.data + N;
    std::fill_n(d_aux, pk.n_aux, R(0));
    for (std::size_t i = 0; i < pk.gauss_par.size(); ++i) {
        const double x = static_cast<double>(aux[pk.gauss_aux[i]]), p = par(pk.gauss_par[i]), sigma = pk.gauss_sigma[i];
        const double r = (x - p) / sigma;
        acc.add(lm64::hf_normal_logpdf(x, p, sigma));
        out.gauss_sigma[i] = static_cast<R>((r * r - 1.0) / sigma);
        gpar[pk.gauss_par[i]] += r / sigma;
        d_aux[pk.gauss_aux[i]] = static_cast<R>(-r / sigma);
    }
    for (std::size_t i = 0; i < pk.pois_par.size(); ++i) {
        const double a = static_cast<double>(aux[pk.pois_aux[i]]), p = par(pk.pois_par[i]), tau = pk.pois_tau[i];
        acc.add(lm64::hf_poisson_constraint_logpdf(a, p, tau));
        out.pois_tau[i] = static_cast<R>(a > 0 ? a / tau - p : -p);
        gpar[pk.pois_par[i]] += a > 0 ? a / p - tau : -tau;
        d_aux[pk.pois_aux[i]] = static_cast<R>(d_count(a, tau * p));
    }
    for (std::size_t p = 0; p < P; ++p) out.pars[p] = static_cast<R>(gpar[p]);
    *out.value = static_cast<R>(acc.value());
}

template <class R>
void PackedInputGradient::vjp_point(const R* par_r, const R* cot_main, const R* cot_aux,
                                    const PackedGradientRow<R>& out, InputGradScratch& s) const {
    const PackedLikelihood& pk = pk_;
    const std::size_t N = static_cast<std::size_t>(pk.n_main), P = static_cast<std::size_t>(pk.n_pars);
    auto par = [&](i32 i) { return static_cast<double>(par_r[i]); };
    forward(par_r, s);
    for (std::size_t b = 0; b < N; ++b) s.wbin[b] = static_cast<double>(cot_main[b]);
    reverse_elements(par_r, out, s);
    double* gpar = s.rate.data() + N;
    // The expected aux data: par (Gaussian), tau par (Poisson).
    for (std::size_t i = 0; i < pk.gauss_par.size(); ++i) {
        out.gauss_sigma[i] = R(0);
        gpar[pk.gauss_par[i]] += static_cast<double>(cot_aux[pk.gauss_aux[i]]);
    }
    for (std::size_t i = 0; i < pk.pois_par.size(); ++i) {
        const double c = static_cast<double>(cot_aux[pk.pois_aux[i]]);
        out.pois_tau[i] = static_cast<R>(c * par(pk.pois_par[i]));
        gpar[pk.pois_par[i]] += c * pk.pois_tau[i];
    }
    std::fill_n(out.data, N + static_cast<std::size_t>(pk.n_aux), R(0));
    for (std::size_t p = 0; p < P; ++p) out.pars[p] = static_cast<R>(gpar[p]);
}

template void PackedInputGradient::point<float>(const float*, const float*, const PackedGradientRow<float>&,
                                                InputGradScratch&) const;
template void PackedInputGradient::point<double>(const double*, const double*, const PackedGradientRow<double>&,
                                                 InputGradScratch&) const;
template void PackedInputGradient::vjp_point<float>(const float*, const float*, const float*,
                                                    const PackedGradientRow<float>&, InputGradScratch&) const;
template void PackedInputGradient::vjp_point<double>(const double*, const double*, const double*,
                                                     const PackedGradientRow<double>&, InputGradScratch&) const;

}  // namespace hf::cpu
