// Internal (backend_input_grad.cpp): the constants of the input gradient through Tier 1 ops, uploaded once for a
// structure and its inputs. Dense layout as the fallback likelihood (core/model/fallback_likelihood.cpp): factor
// entries in R rows of E elements, deltas in D rows, empty slots neutral. Tier 1 has no scatter, so every partial
// of the reverse pass lands in one slot of a contribution vector C and each input, parameter and bin gathers its
// (few) slots from C and sums them (SlotSum): the slot bookkeeping is made here, read by the pass.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "grad/structure.hpp"
#include "hfcore/backend.hpp"
#include "hfcore/tensorlib.hpp"

namespace hf::grad_detail {

// Sum over the last axis of x[K, *] gathered at idx (n rows of w entries, padded with a zero slot).
inline Tensor gather_sum(const Tensor& x, const Tensor& idx, std::int64_t n, std::int64_t w) {
    const std::int64_t K = x.dim(0);
    return tl::sum(tl::gather(x, idx, 1).reshape({K, n, w}), 2);
}

// Sums of slots of a contribution vector: output i is the sum of its slots, padded with a slot holding 0.
struct SlotSum {
    Tensor idx;
    std::int64_t n = 0, w = 1;
    Tensor of(const Tensor& x) const { return gather_sum(x, idx, n, w); }
};

// The constants in the dense layout, on the backend, and the slot sums of the contributions.
struct InputGradLayout {
    Backend& b;
    std::int64_t P = 0, N = 0, E = 0, R = 0, D = 0, G = 0, Q = 0, n_in = 0;

    // elements
    Tensor nominal, elem_bin;
    SlotSum bin_sum, par_sum, norm_sum, in_sum;
    std::vector<std::vector<std::int64_t>> par_slots;  // the parameters' slots in the d/d pars contributions
    std::int64_t par_at = 0;
    // deltas [D, E]
    Tensor d_idx, d_valid, up, dn, lo_d, hi_d, nom_d;
    std::vector<std::pair<DeltaForm, Tensor>> delta_forms;  // forms present, with their masks
    // factors [R, E]
    Tensor f_idx, f_lin, f_code1, f_loglo, f_loghi, f_lo, f_hi;
    Tensor coef[6], dcoef_hi[6], dcoef_lo[6];
    bool has_code1 = false, has_code4 = false;
    std::int64_t n_norm = 0;
    // Gaussian constraints [G] and their staterror carriers [G, Wg]
    Tensor g_par, g_aux, g_sigma, g_stat, g_dsig_dval, g_dsig_dnom;
    std::int64_t w_gauss = 1;
    // Poisson constraints [Q]
    Tensor q_par, q_aux, q_tau, q_lgamma_aux, q_in, q_digamma_aux, q_dtau_dnom, q_dtau_dunc;

    InputGradLayout(Backend& backend, const Structure& s, const std::vector<double>& y);

private:
    // Each appends its blocks to C: their slots to the inputs' lists (`slots`) from slot `at`, and to par_slots.
    using SlotLists = std::vector<std::vector<std::int64_t>>;
    void setup_deltas(const Structure& s, const std::vector<double>& y, SlotLists& slots, std::int64_t& at);
    void setup_factors(const Structure& s, const std::vector<double>& y, SlotLists& slots, std::int64_t& at);
    void setup_gauss(const Structure& s, const std::vector<double>& y, SlotLists& slots, std::int64_t& at);
    void setup_poisson(const Structure& s, const std::vector<double>& y, SlotLists& slots, std::int64_t& at);
    SlotSum slot_sum(const SlotLists& slots, std::int64_t zero_slot);
    Tensor mask(const std::vector<double>& v, const Shape& shape);
};

}  // namespace hf::grad_detail
