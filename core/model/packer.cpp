#include "packer.hpp"

#include <algorithm>
#include <cmath>

namespace hf::detail {

void code4_coefficients(double lo, double hi, double coef[6]) {
    // x = A^-1 b: the polynomial 1 + sum a_i alpha^i that matches value, slope and curvature of the
    // exponential branches at alpha = +-1 (pyhf's interpolators/code4.py with alpha0 = 1).
    static const double Ainv[6][6] = {
        {15.0 / 16, -15.0 / 16, -7.0 / 16, -7.0 / 16, 1.0 / 16, -1.0 / 16},
        {3.0 / 2, 3.0 / 2, -9.0 / 16, 9.0 / 16, 1.0 / 16, 1.0 / 16},
        {-5.0 / 8, 5.0 / 8, 5.0 / 8, 5.0 / 8, -1.0 / 8, 1.0 / 8},
        {-3.0 / 2, -3.0 / 2, 7.0 / 8, -7.0 / 8, -1.0 / 8, -1.0 / 8},
        {3.0 / 16, -3.0 / 16, -3.0 / 16, -3.0 / 16, 1.0 / 16, -1.0 / 16},
        {1.0 / 2, 1.0 / 2, -5.0 / 16, 5.0 / 16, 1.0 / 16, 1.0 / 16},
    };
    const double lhi = std::log(hi), llo = std::log(lo);
    const double b[6] = {hi - 1.0, lo - 1.0, lhi * hi, -llo * lo, lhi * lhi * hi, llo * llo * lo};
    for (int r = 0; r < 6; ++r) {
        double s = 0;
        for (int c = 0; c < 6; ++c) s += Ainv[r][c] * b[c];
        coef[r] = s;
    }
}

PackedLikelihood pack_likelihood(const ModelSpec& spec, const Layout& L, const ParamSetsResult& P,
                                 std::vector<std::int32_t>* elem_sample) {
    PackedLikelihood pk;
    pk.n_main = L.n_main;
    pk.n_pars = P.sets.empty() ? 0 : P.sets.back().offset + P.sets.back().n;
    const bool normsys_code1 = spec.settings.normsys_interpcode == InterpCode::code1;
    const InterpCode hcode = spec.settings.histosys_interpcode;
    const std::int32_t delta_kind = hcode == InterpCode::code0   ? kDeltaCode0
                                    : hcode == InterpCode::code2 ? kDeltaCode2
                                                                 : kDeltaCode4p;

    auto par_of = [&](const std::string& name) -> const ParameterSet& { return P.sets[P.index.at(name)]; };

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
                    const ParameterSet& ps = par_of(m.name);
                    auto add_factor = [&](std::int64_t par, std::int32_t kind, double lo, double hi) {
                        pk.factor_par.push_back(static_cast<std::int32_t>(par));
                        pk.factor_kind.push_back(kind);
                        pk.factor_lo.push_back(lo);
                        pk.factor_hi.push_back(hi);
                        double coef[6] = {0, 0, 0, 0, 0, 0};
                        if (kind == kFactorNormsysCode4) code4_coefficients(lo, hi, coef);
                        pk.factor_coef.insert(pk.factor_coef.end(), coef, coef + 6);
                    };
                    if (m.type == "normfactor" || m.type == "lumi") {
                        add_factor(ps.offset, kFactorLinear, 1.0, 1.0);
                    } else if (m.type == "shapefactor" || m.type == "shapesys") {
                        add_factor(ps.offset + static_cast<std::int64_t>(b), kFactorLinear, 1.0, 1.0);
                    } else if (m.type == "staterror") {
                        const auto& bins = P.staterror.at(m.name).bins;
                        auto it = std::lower_bound(bins.begin(), bins.end(), gbin);
                        add_factor(ps.offset + (it - bins.begin()), kFactorLinear, 1.0, 1.0);
                    } else if (m.type == "normsys") {
                        add_factor(ps.offset, normsys_code1 ? kFactorNormsysCode1 : kFactorNormsysCode4, m.lo, m.hi);
                    } else if (m.type == "histosys") {
                        // A bin whose three templates agree adds exactly zero under every interpolation code;
                        // in published models that is about half of all histosys bins, so it is left out.
                        if (m.lo_data[b] == s->data[b] && m.hi_data[b] == s->data[b]) continue;
                        pk.delta_par.push_back(static_cast<std::int32_t>(ps.offset));
                        pk.delta_kind.push_back(delta_kind);
                        pk.delta_lo.push_back(m.lo_data[b]);
                        pk.delta_nom.push_back(s->data[b]);
                        pk.delta_hi.push_back(m.hi_data[b]);
                    }
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
