// Parameter lookups shared by the diagnostics (pulls, ranking, yields, scans, intervals, goodness of fit).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hfcore/diagnostics.hpp"

namespace hf::infer::detail {

// Index of a parameter by its par_names() entry ("mu", "gamma[2]"); InputError naming `command` otherwise.
std::int64_t parameter_index(const Model& model, const std::string& name, const std::string& command);

// The parameter set of every parameter and the component within it, in par_names() order.
struct ParameterRef {
    const ParameterSet* set = nullptr;
    std::size_t component = 0;
};
std::vector<ParameterRef> parameter_refs(const Model& model);

// The fit's uncertainties and correlations in `convention` (the fit's own for UncertaintyConvention::hessian).
ReportedUncertainties reported_uncertainties(const Model& model, const std::vector<double>& data, const FitResult& fit,
                                             const FitConfig& config, UncertaintyConvention convention);

}  // namespace hf::infer::detail
