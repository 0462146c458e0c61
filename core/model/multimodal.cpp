// Parameters whose profile likelihood can have two minima.
//
// A histosys or normsys parameter alpha changes the expected count of a bin by an odd part (up minus down) and
// an even part E = (up + down) / 2 - nominal, the change that alpha = +1 and alpha = -1 share. The odd part is a
// slope; where other free parameters (normfactors, shapefactors, per-bin gammas, other systematics) can take it
// over, what stays is the even part, a curvature of 2E in the expected count. Against data that lie above the
// expectation by z standard deviations (sqrt(count)), the Poisson term then bends the profile in alpha by about
// -2E z / sqrt(count), while the constraint holds it with curvature 1. Where the sum over bins of
// 2|E| / sqrt(count) reaches 1/z, the profile can turn over at alpha = 0 and has a minimum on either side (a
// basin and its mirror), and a local fit from alpha = 0 takes whichever side its first steps favour.
//
// The even part is large for one-sided systematics symmetrised by hand (up and down move a bin the same way) and
// for strongly asymmetric ones; kinked interpolations (histosys code0, normsys code1) carry the same even part
// as a jump of the slope at alpha = 0. Samples that share a parameter add up bin by bin. The strength is computed
// at the nominal expectation (every factor at 1) and counts each sample's even part in absolute value, so
// cancellations between samples never hide a parameter. Bins with fewer than one expected event use the relative
// change itself (one event of discrepancy is then more than one standard deviation).
#include "multimodal.hpp"

#include <cmath>
#include <limits>

namespace hf::detail {

namespace {

// Parameters whose strength reaches this can turn over against a coherent discrepancy of 5 standard deviations
// (1 / 5): the fitter may look for their other basins. Real analyses reach it as well (the ATLAS sbottom models:
// 9 to 24 parameters, strengths up to 5; the ATLAS 3L eRJR likelihoods: 5, up to 0.44) and the random workspaces
// of ../shared/tools far more (1 to 40); whether the data of a fit can turn a parameter over is decided at its
// minimum (core/infer/minimize/basin_search.cpp, can_turn_over), which leaves the search out where they cannot.
constexpr double kMultimodalStrength = 0.2;

}  // namespace

namespace {

// Each element's even part: add(parameter, bin, (element(+1) + element(-1)) / 2 - element(0)) at the nominal
// expectation (every factor at 1), per histosys and normsys entry.
template <class Add>
void for_each_even_part(const PackedLikelihood& pk, Add&& add) {
    for (std::size_t e = 0; e < pk.elem_bin.size(); ++e) {
        const std::size_t bin = static_cast<std::size_t>(pk.elem_bin[e]);
        for (std::int32_t d = pk.delta_offsets[e]; d < pk.delta_offsets[e + 1]; ++d)
            add(static_cast<std::size_t>(pk.delta_par[d]), bin,
                0.5 * (pk.delta_hi[d] + pk.delta_lo[d]) - pk.delta_nom[d]);
        for (std::int32_t f = pk.factor_offsets[e]; f < pk.factor_offsets[e + 1]; ++f)
            if (pk.factor_kind[f] != kFactorLinear)
                add(static_cast<std::size_t>(pk.factor_par[f]), bin,
                    pk.elem_nominal[e] * (0.5 * (pk.factor_hi[f] + pk.factor_lo[f]) - 1.0));
    }
}

}  // namespace

std::vector<double> nominal_bins(const PackedLikelihood& pk) {
    std::vector<double> total(static_cast<std::size_t>(pk.n_main), 0.0);
    for (std::size_t e = 0; e < pk.elem_bin.size(); ++e) total[pk.elem_bin[e]] += pk.elem_nominal[e];
    return total;
}

std::vector<double> nominal_even_response(const PackedLikelihood& pk, const std::vector<std::int64_t>& pars) {
    const std::size_t nb = static_cast<std::size_t>(pk.n_main);
    std::vector<std::int64_t> row(static_cast<std::size_t>(pk.n_pars), -1);
    for (std::size_t i = 0; i < pars.size(); ++i) row[static_cast<std::size_t>(pars[i])] = static_cast<std::int64_t>(i);
    std::vector<double> out(pars.size() * nb, 0.0);
    for_each_even_part(pk, [&](std::size_t par, std::size_t bin, double v) {
        if (row[par] >= 0) out[static_cast<std::size_t>(row[par]) * nb + bin] += v;
    });
    return out;
}

std::vector<double> even_response_strength(const PackedLikelihood& pk) {
    const std::size_t np = static_cast<std::size_t>(pk.n_pars);
    const std::vector<double> total = nominal_bins(pk);
    // Even part per (parameter, bin), summed in absolute value over the samples of the bin.
    std::vector<std::vector<std::pair<std::size_t, double>>> even(np);
    for_each_even_part(pk, [&](std::size_t par, std::size_t bin, double v) {
        if (v == 0.0) return;
        auto& row = even[par];
        if (!row.empty() && row.back().first == bin)
            row.back().second += std::fabs(v);
        else
            row.emplace_back(bin, std::fabs(v));
    });
    std::vector<double> strength(np, 0.0);
    for (std::size_t par = 0; par < np; ++par) {
        double s = 0.0;
        // Elements are ordered by sample then bin, so a bin can appear more than once in a row: that only splits
        // its sum, which adds up the same.
        for (const auto& [bin, e] : even[par]) {
            const double t = total[bin];
            s += t <= 0.0 ? std::numeric_limits<double>::infinity() : 2.0 * e * std::sqrt(std::max(t, 1.0)) / t;
        }
        strength[par] = s;
    }
    return strength;
}

std::vector<std::int64_t> multimodal_parameters(const PackedLikelihood& pk) {
    std::vector<std::int64_t> out;
    const auto s = even_response_strength(pk);
    for (std::size_t i = 0; i < s.size(); ++i)
        if (s[i] >= kMultimodalStrength) out.push_back(static_cast<std::int64_t>(i));
    return out;
}

}  // namespace hf::detail
