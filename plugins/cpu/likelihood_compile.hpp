// CpuModel's arrays from the PackedLikelihood (likelihood_model.hpp): deduplicated normsys terms, shared term
// products, histosys slots and, where it pays, the dense histosys matrix.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "likelihood_model.hpp"

namespace hf::cpu::fused {

// Checked by the core (check_packed_likelihood) before it reaches a plugin.
template <class R>
inline CpuModel<R>::CpuModel(const PackedLikelihood& pk) {
    P_ = pk.n_pars, N_ = pk.n_main, A_ = pk.n_aux, E_ = pk.n_elements();
    elem_bin_ = pk.elem_bin;
    elem_nom_.assign(pk.elem_nominal.begin(), pk.elem_nominal.end());
    f_off_ = pk.factor_offsets;
    d_off_ = pk.delta_offsets;
    compile_factors(pk);
    share_term_products();
    for (i64 e = 0; e < E_; ++e) max_f_ = std::max<i64>(max_f_, f_off_[e + 1] - f_off_[e]);
    compile_histosys(pk);
    g_par_ = pk.gauss_par, g_aux_ = pk.gauss_aux;
    for (double s : pk.gauss_sigma) {
        g_inv_var_.push_back(1.0 / (s * s));
        gauss_const_ += -std::log(s) - 0.91893853320467274178;
    }
    q_par_ = pk.pois_par, q_aux_ = pk.pois_aux;
    q_tau_.assign(pk.pois_tau.begin(), pk.pois_tau.end());
}

template <class R>
inline void CpuModel<R>::compile_factors(const PackedLikelihood& pk) {
    // Factor entries point into tv: a linear factor at its parameter, a normsys at its deduplicated term.
    // Code4 terms come first, so that their polynomials are one vector loop (simd::code4_poly).
    std::map<std::tuple<i32, i32, double, double>, i32> seen;
    std::vector<TermKey> keys;
    const std::size_t F = pk.factor_par.size();
    f_src_.resize(F);
    for (std::size_t f = 0; f < F; ++f) {
        const i32 kind = pk.factor_kind[f];
        if (kind == kFactorLinear) {
            f_src_[f] = pk.factor_par[f];
            continue;
        }
        auto key = std::make_tuple(pk.factor_par[f], kind, pk.factor_lo[f], pk.factor_hi[f]);
        auto it = seen.find(key);
        if (it == seen.end()) {
            it = seen.emplace(key, static_cast<i32>(keys.size())).first;
            keys.push_back(TermKey{pk.factor_par[f], kind, pk.factor_lo[f], pk.factor_hi[f],
                                   pk.factor_coef.data() + 6 * f});
        }
        f_src_[f] = it->second;  // renumbered below
    }
    std::vector<i32> order(keys.size()), position(keys.size());
    for (std::size_t u = 0; u < keys.size(); ++u) order[u] = static_cast<i32>(u);
    std::stable_partition(order.begin(), order.end(),
                          [&](i32 u) { return keys[static_cast<std::size_t>(u)].kind == kFactorNormsysCode4; });
    const std::size_t T = keys.size();
    n_code4_ = 0;
    t_coef_.assign(6 * T, R(0));
    for (std::size_t v = 0; v < T; ++v) {
        const TermKey& k = keys[static_cast<std::size_t>(order[v])];
        position[static_cast<std::size_t>(order[v])] = static_cast<i32>(v);
        t_par_.push_back(k.par);
        t_log_hi_.push_back(static_cast<R>(std::log(static_cast<R>(k.hi))));
        t_neg_log_lo_.push_back(static_cast<R>(-std::log(static_cast<R>(k.lo))));
        if (k.kind == kFactorNormsysCode4) ++n_code4_;
    }
    for (std::size_t v = 0; v < n_code4_; ++v)
        for (std::size_t i = 0; i < 6; ++i)
            t_coef_[i * n_code4_ + v] = static_cast<R>(keys[static_cast<std::size_t>(order[v])].coef[i]);
    t_coef_.resize(6 * n_code4_);
    for (std::size_t f = 0; f < F; ++f)
        if (pk.factor_kind[f] != kFactorLinear)
            f_src_[f] = static_cast<i32>(P_) + position[static_cast<std::size_t>(f_src_[f])];
}

// The normsys terms of an element are those of its sample, the same in every bin: the elements of a sample
// would multiply the same terms (19 of them per element in the 250-parameter synthetic model) bin after bin,
// and walk them again for the gradient. Each distinct set of two or more terms becomes one product, computed
// once per point into tv[P + T + set] and used by its elements as a single factor; the gradient reaches the
// terms through it (gradient(), after the elements).
template <class R>
inline void CpuModel<R>::share_term_products() {
    const i32 first_set = static_cast<i32>(P_ + static_cast<i64>(t_par_.size()));
    std::map<std::vector<i32>, i32> set_of;
    std::vector<i32> off{0}, src;
    for (i64 e = 0; e < E_; ++e) {
        std::vector<i32> terms;
        const std::size_t begin = src.size();
        for (i32 f = f_off_[e]; f < f_off_[e + 1]; ++f) {
            if (f_src_[f] >= P_) terms.push_back(f_src_[f]);
            else src.push_back(f_src_[f]);
        }
        if (terms.size() < 2) {
            src.resize(begin);
            src.insert(src.end(), f_src_.begin() + f_off_[e], f_src_.begin() + f_off_[e + 1]);
        } else {
            std::sort(terms.begin(), terms.end());
            auto it = set_of.find(terms);
            if (it == set_of.end()) {
                it = set_of.emplace(terms, static_cast<i32>(set_off_.size() - 1)).first;
                set_src_.insert(set_src_.end(), terms.begin(), terms.end());
                set_off_.push_back(static_cast<i32>(set_src_.size()));
                max_set_ = std::max<i64>(max_set_, static_cast<i64>(terms.size()));
            }
            src.push_back(first_set + it->second);
        }
        off.push_back(static_cast<i32>(src.size()));
    }
    f_off_ = std::move(off);
    f_src_ = std::move(src);
}

template <class R>
inline void CpuModel<R>::compile_histosys(const PackedLikelihood& pk) {
    // Histosys bins: constants (cS, cA) of hf_delta_weights, and the slot of their (parameter, code).
    std::map<std::pair<i32, i32>, i32> slot_of;
    const std::size_t D = pk.delta_par.size();
    d_slot_.resize(D);
    d_coef_.resize(2 * D);
    for (std::size_t d = 0; d < D; ++d) {
        auto key = std::make_pair(pk.delta_par[d], pk.delta_kind[d]);
        auto it = slot_of.find(key);
        if (it == slot_of.end()) {
            it = slot_of.emplace(key, static_cast<i32>(slots_.size())).first;
            slots_.push_back(Slot{key.first, key.second});
        }
        d_slot_[d] = it->second;
        const double up = pk.delta_hi[d] - pk.delta_nom[d], dn = pk.delta_nom[d] - pk.delta_lo[d];
        d_coef_[2 * d] = static_cast<R>(0.5 * (up + dn));
        d_coef_[2 * d + 1] = static_cast<R>(0.5 * (up - dn));
    }
    n_weights_ = simd::padded(2 * slots_.size());
    if (slots_.empty()) return;
    // The dense path reads, per row, only the whole vectors between its first and last weight: slots are
    // numbered in element order, so a sample's histosys parameters are neighbours and a row of a model with
    // several samples spans a fraction of the weights (the 250-parameter synthetic model: 48 of 160).
    std::vector<DenseBlock> blocks;
    std::size_t dense_entries = 0;
    for (i64 e = 0; e < E_; ++e) {
        if (d_off_[e] == d_off_[e + 1]) continue;
        std::size_t lo = n_weights_, hi = 0;
        for (i32 d = d_off_[e]; d < d_off_[e + 1]; ++d) {
            lo = std::min<std::size_t>(lo, 2 * static_cast<std::size_t>(d_slot_[d]));
            hi = std::max<std::size_t>(hi, 2 * static_cast<std::size_t>(d_slot_[d]) + 2);
        }
        lo = lo / simd::kPad * simd::kPad;
        const std::size_t width = simd::padded(hi) - lo;
        dense_entries += width;
        DenseBlock* last = blocks.empty() ? nullptr : &blocks.back();
        const bool extends = last && last->row0 + last->rows == static_cast<std::size_t>(e) &&
                             last->col0 == lo && last->width == width;
        if (extends)
            ++last->rows;
        else
            blocks.push_back(DenseBlock{static_cast<std::size_t>(e), 1, lo, width});
    }
    if (!simd::worthwhile(dense_entries, D)) return;
    dense_blocks_ = std::move(blocks);
    dense_c_.assign(static_cast<std::size_t>(E_) * n_weights_, R(0));
    for (i64 e = 0; e < E_; ++e)
        for (i32 d = d_off_[e]; d < d_off_[e + 1]; ++d) {
            R* row = dense_c_.data() + static_cast<std::size_t>(e) * n_weights_;
            row[2 * d_slot_[d]] += d_coef_[2 * d];
            row[2 * d_slot_[d] + 1] += d_coef_[2 * d + 1];
        }
}

}  // namespace hf::cpu::fused
