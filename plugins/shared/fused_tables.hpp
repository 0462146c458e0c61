// Tables that the GPU plugins (cuda, opencl) derive from a checked PackedLikelihood for their kernels, made
// the same way in both: a CSR grouping of items by key (elements by bin, modifiers by parameter) and the aux
// map (each aux datum's constrained parameter and scale) for the expected aux data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hfcore/plugin/likelihood.hpp"

namespace hf::fused_tables {

// CSR of `keys` (values in [0, n)): offsets [n + 1] and the item ids grouped by key, each group in item order.
inline void group_by(const std::vector<std::int32_t>& keys, std::int64_t n, std::vector<std::int32_t>& off,
                     std::vector<std::int32_t>& items) {
    off.assign(static_cast<std::size_t>(n) + 1, 0);
    for (std::int32_t k : keys) ++off[static_cast<std::size_t>(k) + 1];
    for (std::size_t i = 1; i < off.size(); ++i) off[i] += off[i - 1];
    items.assign(keys.size(), 0);
    std::vector<std::int32_t> fill(off.begin(), off.end() - 1);
    for (std::size_t i = 0; i < keys.size(); ++i)
        items[static_cast<std::size_t>(fill[static_cast<std::size_t>(keys[i])]++)] = static_cast<std::int32_t>(i);
}

// Expected aux datum a = par[aux_par[a]] * aux_scale[a]: 1 for Gaussian constraints, tau for Poisson ones;
// aux_par -1 for an aux datum no constraint reads.
struct AuxMap {
    std::vector<std::int32_t> aux_par;
    std::vector<double> aux_scale;
};

inline AuxMap aux_map(const PackedLikelihood& pk) {
    AuxMap m;
    m.aux_par.assign(static_cast<std::size_t>(pk.n_aux), -1);
    m.aux_scale.assign(static_cast<std::size_t>(pk.n_aux), 0.0);
    for (std::size_t g = 0; g < pk.gauss_par.size(); ++g) {
        m.aux_par[static_cast<std::size_t>(pk.gauss_aux[g])] = pk.gauss_par[g];
        m.aux_scale[static_cast<std::size_t>(pk.gauss_aux[g])] = 1.0;
    }
    for (std::size_t q = 0; q < pk.pois_par.size(); ++q) {
        m.aux_par[static_cast<std::size_t>(pk.pois_aux[q])] = pk.pois_par[q];
        m.aux_scale[static_cast<std::size_t>(pk.pois_aux[q])] = pk.pois_tau[q];
    }
    return m;
}

}  // namespace hf::fused_tables
