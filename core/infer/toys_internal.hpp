#pragma once

#include "hfcore/infer.hpp"

namespace hf::infer::detail {

// hypotest with the toy calculator; `cfg` resolved and checked by hypotest().
HypotestResult toy_hypotest(double poi_test, const Model& model, const std::vector<double>& data,
                            const HypotestOptions& options, const FitConfig& cfg);

// batch_fit with a start of its own for every problem: starts [K, P] (each clamped into the bounds; the fixed
// parameters keep the config's values). The fixed curvature is taken at options.start (else the init).
BatchFitResult batch_fit_from(const Model& model, const Tensor& data_kn, const FitConfig& config,
                              const FitOptions& options, const std::vector<double>& starts);

// batch_fit of problems that already have a minimum each (`known`, from another start): a descent that settles
// next to its problem's known minimum (see batch_fit.cpp, reached_known) ends there and returns it.
BatchFitResult batch_fit_known(const Model& model, const Tensor& data_kn, const FitConfig& config,
                               const FitOptions& options, const BatchFitResult& known);

}  // namespace hf::infer::detail
