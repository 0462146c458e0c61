// Internal: the likelihood of core/model (the formulas of hfcore/plugin/likelihood.hpp) written once for any
// scalar type, with the inputs, the parameters and the data as arguments: double for values, Var for reverse-mode
// input gradients, Dual<Var> for the mixed second derivatives (autodiff.hpp).
#pragma once

#include <vector>

#include "grad/autodiff.hpp"
#include "grad/structure.hpp"
#include "modifiers/code4.hpp"

namespace hf::grad_detail {

using std::exp;
using std::log;
using std::sqrt;
using std::lgamma;

using hf::detail::code4_coefficients;  // core/modifiers/code4.hpp

template <class T>
T factor_value(const Factor& f, const T* y, const T& a) {
    if (f.form == FactorForm::linear) return a;
    const T& lo = y[f.lo];
    const T& hi = y[f.hi];
    const double av = value(a);
    if (f.form == FactorForm::normsys_code1 || av >= 1.0 || av <= -1.0) {
        const bool up = f.form == FactorForm::normsys_code1 ? av >= 0.0 : av >= 1.0;
        return up ? exp(a * log(hi)) : exp(-(a * log(lo)));
    }
    T coef[6];
    code4_coefficients(lo, hi, coef);
    T poly = coef[5];
    for (int c = 4; c >= 0; --c) poly = poly * a + coef[c];
    return poly * a + T(1.0);
}

template <class T>
T delta_value(const Delta& d, const T* y, const T& nom, const T& a) {
    const T& lo = y[d.lo];
    const T& hi = y[d.hi];
    const T up = hi - nom, dn = nom - lo;
    const double av = value(a);
    switch (d.form) {
        case DeltaForm::code0: return av >= 0.0 ? a * up : a * dn;
        case DeltaForm::code2: {
            const T qa = T(0.5) * (hi + lo) - nom, qb = T(0.5) * (hi - lo);
            if (av > 1.0) return (a - T(1.0)) * (qb + T(2.0) * qa);
            if (av < -1.0) return a * (qb - T(2.0) * qa);
            return a * a * qa + a * qb;
        }
        case DeltaForm::code4p: {
            if (av > 1.0) return a * up;
            if (av < -1.0) return a * dn;
            const T S = T(0.5) * (up + dn), Aq = T(0.0625) * (up - dn);
            const T a2 = a * a;
            const T poly = a2 * (a2 * (T(3.0) * a2 - T(10.0)) + T(15.0));
            return S * a + Aq * poly;
        }
    }
    return T(0.0);
}

// Expected main rates [n_main].
template <class T>
std::vector<T> expected_main(const Structure& s, const T* y, const T* p) {
    std::vector<T> rate(static_cast<std::size_t>(s.n_main), T(0.0));
    for (const Element& e : s.elements) {
        const T& nom = y[e.nominal];
        T base = nom;
        for (const Delta& d : e.deltas) base += delta_value(d, y, nom, p[d.par]);
        for (const Factor& f : e.factors) base *= factor_value(f, y, p[f.par]);
        rate[static_cast<std::size_t>(e.bin)] += base;
    }
    return rate;
}

template <class T>
T poisson_tau(const Poisson& q, const T* y) {
    if (q.nominal < 0) return T(q.tau);
    const T r = y[q.nominal] / y[q.unc];
    return r * r;
}

template <class T>
T gauss_sigma(const Gauss& g, const T* y) {
    if (g.stat_vals.empty()) return T(g.sigma);
    T nomsum(0.0), sumsq(0.0);
    for (std::int32_t i : g.stat_noms) nomsum += y[i];
    for (std::int32_t i : g.stat_vals) sumsq += y[i] * y[i];
    return sqrt(sumsq) / nomsum;
}

// The model's aux data [n_aux] (pyhf: model.config.auxdata): shapesys aux data are their tau.
template <class T>
std::vector<T> model_aux(const Structure& s, const T* y) {
    std::vector<T> aux(static_cast<std::size_t>(s.n_aux), T(0.0));
    for (std::size_t i = 0; i < s.gauss.size(); ++i) aux[static_cast<std::size_t>(s.gauss[i].aux)] = T(s.gauss_aux_value[i]);
    for (const Poisson& q : s.pois)
        aux[static_cast<std::size_t>(q.aux)] = q.aux_is_tau ? poisson_tau(q, y) : T(q.aux_value);
    return aux;
}

// Expected aux data at pars (the Asimov aux data): par for Gaussian constraints, tau * par for Poisson ones.
template <class T>
std::vector<T> expected_aux(const Structure& s, const T* y, const T* p) {
    std::vector<T> aux(static_cast<std::size_t>(s.n_aux), T(0.0));
    for (const Gauss& g : s.gauss) aux[static_cast<std::size_t>(g.aux)] = p[g.par];
    for (const Poisson& q : s.pois) aux[static_cast<std::size_t>(q.aux)] = poisson_tau(q, y) * p[q.par];
    return aux;
}

// n log(r), 0 where both are 0 (as xlogy).
template <class T>
T xlogy(const T& n, const T& r) {
    if (value(n) == 0.0 && value(r) == 0.0) return T(0.0);
    return n * log(r);
}

// -2 logpdf with main data [n_main] and aux data [n_aux].
template <class T>
T twice_nll(const Structure& s, const T* y, const T* p, const T* main, const T* aux) {
    const std::vector<T> rate = expected_main(s, y, p);
    T lp(0.0);
    for (std::size_t b = 0; b < rate.size(); ++b) lp += xlogy(main[b], rate[b]) - rate[b] - lgamma(main[b] + T(1.0));
    const double half_log_2pi = 0.5 * std::log(2.0 * 3.14159265358979323846);
    for (const Gauss& g : s.gauss) {
        const T sigma = gauss_sigma(g, y);
        const T z = (aux[g.aux] - p[g.par]) / sigma;
        lp += T(-0.5) * z * z - log(sigma) - T(half_log_2pi);
    }
    for (const Poisson& q : s.pois) {
        const T tau = poisson_tau(q, y);
        const T rate_q = tau * p[q.par];
        lp += xlogy(aux[q.aux], rate_q) - rate_q - lgamma(aux[q.aux] + T(1.0));
    }
    return T(-2.0) * lp;
}

}  // namespace hf::grad_detail
