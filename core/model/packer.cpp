// The packed likelihood: one element per (sample, bin) in pyhf's channel and sample order, each with the factors
// and deltas its modifiers lower into it (core/modifiers/), then the constraint terms of the parameter sets.
#include "packer.hpp"

#include "modifiers/registry.hpp"

namespace hf::detail {

PackedLikelihood pack_likelihood(const ModelSpec& spec, const Layout& L, const ParamSetsResult& P,
                                 std::vector<std::int32_t>* elem_sample) {
    PackedLikelihood pk;
    pk.n_main = L.n_main;
    pk.n_pars = P.sets.empty() ? 0 : P.sets.back().offset + P.sets.back().n;
    PackedBuilder builder(pk);

    pk.factor_offsets.push_back(0);
    pk.delta_offsets.push_back(0);
    for (std::size_t ci = 0; ci < L.channels.size(); ++ci) {
        for (std::size_t si = 0; si < L.samples.size(); ++si) {
            const SampleSpec* s = L.sample_in_channel[ci][si];
            if (!s) continue;
            for (std::size_t b = 0; b < s->data.size(); ++b) {
                const std::int64_t gbin = L.channel_offset[ci] + static_cast<std::int64_t>(b);
                pk.elem_bin.push_back(static_cast<std::int32_t>(gbin));
                if (elem_sample) elem_sample->push_back(static_cast<std::int32_t>(si));
                pk.elem_nominal.push_back(s->data[b]);
                for (const auto& m : s->modifiers) {
                    const Element e{*s, b, gbin, P.sets[P.index.at(m.name)], spec.settings, P.component_bins};
                    modifier_kind(m.type).lower(m, e, builder);
                }
                pk.factor_offsets.push_back(static_cast<std::int32_t>(pk.factor_par.size()));
                pk.delta_offsets.push_back(static_cast<std::int32_t>(pk.delta_par.size()));
            }
        }
    }

    std::int32_t aux = 0;
    for (const auto& ps : P.sets) {
        if (!ps.constrained) continue;
        for (std::int64_t i = 0; i < ps.n; ++i, ++aux) {
            if (ps.constraint == "normal") {
                pk.gauss_par.push_back(static_cast<std::int32_t>(ps.offset + i));
                pk.gauss_aux.push_back(aux);
                pk.gauss_sigma.push_back(ps.sigmas[i]);
            } else {
                pk.pois_par.push_back(static_cast<std::int32_t>(ps.offset + i));
                pk.pois_aux.push_back(aux);
                pk.pois_tau.push_back(ps.factors[i]);
            }
        }
    }
    pk.n_aux = aux;
    return pk;
}

}  // namespace hf::detail
