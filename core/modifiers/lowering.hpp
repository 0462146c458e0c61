// Internal: what a modifier writes into the packed likelihood for one (sample, bin) element.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hfcore/model.hpp"
#include "hfcore/plugin/likelihood.hpp"

namespace hf::detail {

// The element being lowered and what its modifiers may need to know.
struct Element {
    const SampleSpec& sample;
    std::size_t bin = 0;             // in the sample
    std::int64_t global_bin = 0;     // in the model's main data
    const ParameterSet& parameter;   // the parameter set the modifier names
    const ModifierSettings& settings;
    const std::map<std::string, std::vector<std::int64_t>>& component_bins;  // ParamCollector::component_bins
};

// Appends factors and deltas to the element's CSR rows of a PackedLikelihood.
class PackedBuilder {
public:
    explicit PackedBuilder(PackedLikelihood& pk) : pk_(pk) {}

    // A multiplicative factor of parameter `par`; `coef` are the 6 code4 coefficients (nullptr: zeros).
    void add_factor(std::int64_t par, FactorKind kind, double lo = 1.0, double hi = 1.0,
                    const double* coef = nullptr) {
        pk_.factor_par.push_back(static_cast<std::int32_t>(par));
        pk_.factor_kind.push_back(kind);
        pk_.factor_lo.push_back(lo);
        pk_.factor_hi.push_back(hi);
        for (int i = 0; i < 6; ++i) pk_.factor_coef.push_back(coef ? coef[i] : 0.0);
    }
    // An additive delta of parameter `par` interpolating the templates lo, nom, hi.
    void add_delta(std::int64_t par, DeltaKind kind, double lo, double nom, double hi) {
        pk_.delta_par.push_back(static_cast<std::int32_t>(par));
        pk_.delta_kind.push_back(kind);
        pk_.delta_lo.push_back(lo);
        pk_.delta_nom.push_back(nom);
        pk_.delta_hi.push_back(hi);
    }

private:
    PackedLikelihood& pk_;
};

}  // namespace hf::detail
