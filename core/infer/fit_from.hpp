// Fits that start somewhere else than FitConfig::init: the engine's warm starts (a refit from an earlier minimum,
// the held fits of the diagnostics from the free fit's, the fit to the Asimov data at its known minimum). The
// public API starts every fit at FitConfig::init (pyhf's init_pars); here `start` (all parameters, fixed ones
// ignored, each clamped into its bounds; empty = the init) is only where the minimiser starts, while
// FitConfig::init stays the centre of the scaled variables and of the mirrored-basin check.
#pragma once

#include <vector>

#include "hfcore/infer.hpp"

namespace hf::infer::detail {

// fit() from `start`, the same three ways to give the data.
FitResult fit_from(const Model& model, const BoundLikelihood& data, const FitConfig& config, const FitOptions& options,
                   const std::vector<double>& start);
FitResult fit_from(const Model& model, const Tensor& data, const FitConfig& config, const FitOptions& options,
                   const std::vector<double>& start);
FitResult fit_from(const Model& model, const std::vector<double>& data, const FitConfig& config,
                   const FitOptions& options, const std::vector<double>& start);

}  // namespace hf::infer::detail
