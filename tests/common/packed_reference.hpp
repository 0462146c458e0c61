// A plain long-double evaluation of a PackedLikelihood (include/hfcore/plugin/likelihood.hpp): rates, logpdf and its
// analytic gradient, written from the HistFactory definitions with the interpolation closed forms of
// interpolation_reference.hpp. The reference the plugins' fused kernels are compared with; it shares no code with
// them (nothing from plugins/shared).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "hfcore/plugin/likelihood.hpp"
#include "interpolation_reference.hpp"

namespace hf::test::packed {

inline interp::ValueSlope factor(const PackedLikelihood& pk, std::size_t f, double alpha) {
    const int kind = pk.factor_kind[f];
    if (kind == kFactorLinear) return {alpha, 1};
    if (kind == kFactorNormsysCode1) return interp::normsys("code1", alpha, pk.factor_lo[f], pk.factor_hi[f]);
    long double c[6];
    for (int i = 0; i < 6; ++i) c[i] = pk.factor_coef[6 * f + i];
    return interp::normsys_code4_with(c, alpha, pk.factor_lo[f], pk.factor_hi[f]);
}

inline interp::ValueSlope delta(const PackedLikelihood& pk, std::size_t d, double alpha) {
    const int kind = pk.delta_kind[d];
    const char* code = kind == kDeltaCode0 ? "code0" : kind == kDeltaCode2 ? "code2" : "code4p";
    return interp::histosys(code, alpha, pk.delta_lo[d], pk.delta_nom[d], pk.delta_hi[d]);
}

// log Poisson(n | lam) for continuous n (0 log 0 = 0) and log Normal(x | mu, sigma).
inline long double poisson_logpdf(long double n, long double lam) {
    return (n == 0 ? 0.0L : n * std::log(lam)) - lam - std::lgamma(n + 1);
}
inline long double normal_logpdf(long double x, long double mu, long double sigma) {
    const long double z = (x - mu) / sigma;
    return -0.5L * z * z - std::log(sigma) - 0.91893853320467274178032973640562L;  // log sqrt(2 pi)
}

struct Result {
    std::vector<long double> rate;  // [n_main]
    long double logpdf = 0;
    std::vector<long double> grad;  // [n_pars], when asked
};

// Expected rate of bin b = sum over its elements of (nominal + sum deltas) * prod factors; logpdf = Poisson main
// terms + Gaussian and Poisson constraints of the aux data; d logpdf / d par by the chain rule (products of the
// other factors taken explicitly, so a factor at 0 is no special case).
inline Result evaluate(const PackedLikelihood& pk, const std::vector<double>& par, const double* data,
                       bool want_grad = false) {
    Result r;
    r.rate.assign(pk.n_main, 0.0L);
    const std::int64_t E = pk.n_elements();
    std::vector<long double> base(E), prod(E);
    for (std::int64_t e = 0; e < E; ++e) {
        base[e] = pk.elem_nominal[e];
        for (int d = pk.delta_offsets[e]; d < pk.delta_offsets[e + 1]; ++d) base[e] += delta(pk, d, par[pk.delta_par[d]]).value;
        prod[e] = 1;
        for (int f = pk.factor_offsets[e]; f < pk.factor_offsets[e + 1]; ++f) prod[e] *= factor(pk, f, par[pk.factor_par[f]]).value;
        r.rate[pk.elem_bin[e]] += base[e] * prod[e];
    }
    for (std::int64_t b = 0; b < pk.n_main; ++b) r.logpdf += poisson_logpdf(data[b], r.rate[b]);
    const double* aux = data + pk.n_main;
    for (std::size_t g = 0; g < pk.gauss_par.size(); ++g)
        r.logpdf += normal_logpdf(aux[pk.gauss_aux[g]], par[pk.gauss_par[g]], pk.gauss_sigma[g]);
    for (std::size_t q = 0; q < pk.pois_par.size(); ++q)
        r.logpdf += poisson_logpdf(aux[pk.pois_aux[q]], static_cast<long double>(pk.pois_tau[q]) * par[pk.pois_par[q]]);
    if (!want_grad) return r;

    r.grad.assign(pk.n_pars, 0.0L);
    for (std::int64_t e = 0; e < E; ++e) {
        const std::int64_t b = pk.elem_bin[e];
        const long double w = (data[b] == 0 ? 0.0L : data[b] / r.rate[b]) - 1;  // d log Pois / d rate
        for (int d = pk.delta_offsets[e]; d < pk.delta_offsets[e + 1]; ++d)
            r.grad[pk.delta_par[d]] += w * delta(pk, d, par[pk.delta_par[d]]).slope * prod[e];
        for (int f = pk.factor_offsets[e]; f < pk.factor_offsets[e + 1]; ++f) {
            long double others = 1;
            for (int o = pk.factor_offsets[e]; o < pk.factor_offsets[e + 1]; ++o)
                if (o != f) others *= factor(pk, o, par[pk.factor_par[o]]).value;
            r.grad[pk.factor_par[f]] += w * base[e] * factor(pk, f, par[pk.factor_par[f]]).slope * others;
        }
    }
    for (std::size_t g = 0; g < pk.gauss_par.size(); ++g) {
        const long double s = pk.gauss_sigma[g];
        r.grad[pk.gauss_par[g]] += (aux[pk.gauss_aux[g]] - par[pk.gauss_par[g]]) / (s * s);
    }
    for (std::size_t q = 0; q < pk.pois_par.size(); ++q) {
        const long double a = aux[pk.pois_aux[q]], tau = pk.pois_tau[q];
        r.grad[pk.pois_par[q]] += (a == 0 ? 0.0L : a / par[pk.pois_par[q]]) - tau;
    }
    return r;
}

}  // namespace hf::test::packed
