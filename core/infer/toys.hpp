// The toy calculator's entry point for hypotest() (toys.cpp).
#pragma once

#include <vector>

#include "hfcore/infer.hpp"

namespace hf::infer::detail {

// hypotest with the toy calculator; `cfg` resolved and checked by hypotest().
HypotestResult toy_hypotest(double poi_test, const Model& model, const std::vector<double>& data,
                            const HypotestOptions& options, const FitConfig& cfg);

}  // namespace hf::infer::detail
