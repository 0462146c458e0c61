// The one check of a PackedLikelihood, made before any plugin (or the core fallback) sees it: plugins may
// then index their tables without checking. A third-party plugin gets the same guarantee.
#include <algorithm>
#include <initializer_list>
#include <string>

#include "hfcore/errors.hpp"
#include "hfcore/plugin/likelihood.hpp"

namespace hf {

namespace {

[[noreturn]] void bad(const std::string& what) { throw ShapeError("PackedLikelihood: " + what); }

template <class V>
void expect_size(const V& v, std::int64_t want, const char* name) {
    if (static_cast<std::int64_t>(v.size()) != want)
        bad(std::string(name) + " has " + std::to_string(v.size()) + " entries, expected " + std::to_string(want));
}

void expect_range(const std::vector<std::int32_t>& v, std::int64_t n, const char* name, const char* bound) {
    for (std::size_t i = 0; i < v.size(); ++i)
        if (v[i] < 0 || v[i] >= n)
            bad(std::string(name) + "[" + std::to_string(i) + "] = " + std::to_string(v[i]) + " is outside [0, " +
                bound + " = " + std::to_string(n) + ")");
}

void expect_offsets(const std::vector<std::int32_t>& off, std::int64_t elements, std::int64_t total, const char* name) {
    expect_size(off, elements + 1, name);
    if (off.front() != 0 || off.back() != total) bad(std::string(name) + " must run from 0 to " + std::to_string(total));
    for (std::size_t i = 1; i < off.size(); ++i)
        if (off[i] < off[i - 1]) bad(std::string(name) + " decreases at " + std::to_string(i));
}

void expect_kinds(const std::vector<std::int32_t>& v, std::initializer_list<std::int32_t> known, const char* name) {
    for (std::size_t i = 0; i < v.size(); ++i)
        if (std::find(known.begin(), known.end(), v[i]) == known.end())
            bad(std::string(name) + "[" + std::to_string(i) + "] = " + std::to_string(v[i]) + " is not a known kind");
}

}  // namespace

void check_packed_likelihood(const PackedLikelihood& pk) {
    const std::int64_t P = pk.n_pars, N = pk.n_main, A = pk.n_aux, E = pk.n_elements();
    if (P < 0 || N < 0 || A < 0) bad("negative sizes");
    const auto F = static_cast<std::int64_t>(pk.factor_par.size());
    const auto D = static_cast<std::int64_t>(pk.delta_par.size());
    const auto G = static_cast<std::int64_t>(pk.gauss_par.size());
    const auto Q = static_cast<std::int64_t>(pk.pois_par.size());
    // Device tables index with 32-bit integers.
    if (E > INT32_MAX || F + D + G + Q > INT32_MAX) bad("more than 2^31 elements or modifiers");
    expect_size(pk.elem_nominal, E, "elem_nominal");
    expect_range(pk.elem_bin, N, "elem_bin", "n_main");
    expect_offsets(pk.factor_offsets, E, F, "factor_offsets");
    expect_offsets(pk.delta_offsets, E, D, "delta_offsets");
    expect_range(pk.factor_par, P, "factor_par", "n_pars");
    expect_size(pk.factor_kind, F, "factor_kind");
    expect_size(pk.factor_lo, F, "factor_lo");
    expect_size(pk.factor_hi, F, "factor_hi");
    expect_size(pk.factor_coef, 6 * F, "factor_coef");
    expect_kinds(pk.factor_kind, {kFactorLinear, kFactorNormsysCode1, kFactorNormsysCode4}, "factor_kind");
    expect_range(pk.delta_par, P, "delta_par", "n_pars");
    expect_size(pk.delta_kind, D, "delta_kind");
    expect_size(pk.delta_lo, D, "delta_lo");
    expect_size(pk.delta_nom, D, "delta_nom");
    expect_size(pk.delta_hi, D, "delta_hi");
    expect_kinds(pk.delta_kind, {kDeltaCode0, kDeltaCode2, kDeltaCode4p}, "delta_kind");
    expect_range(pk.gauss_par, P, "gauss_par", "n_pars");
    expect_size(pk.gauss_aux, G, "gauss_aux");
    expect_range(pk.gauss_aux, A, "gauss_aux", "n_aux");
    expect_size(pk.gauss_sigma, G, "gauss_sigma");
    expect_range(pk.pois_par, P, "pois_par", "n_pars");
    expect_size(pk.pois_aux, Q, "pois_aux");
    expect_range(pk.pois_aux, A, "pois_aux", "n_aux");
    expect_size(pk.pois_tau, Q, "pois_tau");
}

}  // namespace hf
