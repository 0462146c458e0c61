// Pieces of the test statistics shared by the calculators (which cache fits that do not depend on mu).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hfcore/infer.hpp"

namespace hf::infer::detail {

// pyhf's warnings for a statistic used with the "wrong" POI lower bound (and q0 with mu != 0).
std::vector<std::string> test_stat_warnings(TestStat stat, double mu, double poi_lower_bound);
// The statistic from the two fits (mu already forced to 0 for q0).
double combine_test_stat(TestStat stat, double mu, double twice_nll_fixed, double twice_nll_free, double muhat);

}  // namespace hf::infer::detail

namespace hf::infer {

// Fits of an asymptotic hypotest that do not depend on the tested POI: the free fit to the data, the Asimov
// data set with its fit, and the free fit to the Asimov data. Valid for one model, data and FitConfig.
// The fixed-POI fits by tested value are kept too: a search over the POI (upper limits) evaluates a value once.
struct AsymptoticFitCache {
    bool have_free_data = false;
    FitResult free_data;
    bool have_asimov = false;
    FitResult asimov_fit;
    std::vector<double> asimov;
    Tensor asimov_t;  // the same on the model's backend
    FitResult free_asimov;
    std::map<double, FitResult> fixed_data, fixed_asimov;
    std::shared_ptr<HessianHints> hessians = make_hessian_hints();
};

}  // namespace hf::infer
