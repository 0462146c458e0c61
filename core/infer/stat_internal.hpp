// Pieces of the test statistics shared by the calculators (which cache fits that do not depend on mu).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hfcore/infer_advanced.hpp"

namespace hf::infer::detail {

// pyhf's warnings for a statistic used with the "wrong" POI lower bound (and q0 with mu != 0).
std::vector<std::string> test_stat_warnings(TestStat stat, double mu, double poi_lower_bound);
// The statistic from the two fits (mu already forced to 0 for q0).
double combine_test_stat(TestStat stat, double mu, double twice_nll_fixed, double twice_nll_free, double muhat);

// The fits of one data set in a hypotest share their minima (test_statistics.cpp):
// - `options` with the minima of `others` added as starts when the model can be multimodal in `config` (every
//   other fit's basin is a candidate for this one);
FitOptions with_other_minima(const Model& model, const FitConfig& config, const FitOptions& options,
                             const std::vector<const FitResult*>& others);
// - the free fit is never above a conditional fit of the same data (whose minimum is a point of the free fit's
//   domain): when `conditional` is lower, the free fit runs again from its minimum and keeps the lower result.
//   Returns true when `free` was replaced.
bool keep_free_fit_lowest(const Model& model, const BoundLikelihood& data, const FitConfig& config,
                          const FitOptions& options, FitResult& free, const FitResult& conditional);
bool keep_free_fit_lowest(const Model& model, const Tensor& data, const FitConfig& config,
                          const FitOptions& options, FitResult& free, const FitResult& conditional);

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
    BoundLikelihood asimov_t;  // the Asimov data, made and bound on the model's backend
    FitResult free_asimov;
    std::map<double, FitResult> fixed_data, fixed_asimov;
    std::shared_ptr<HessianHints> hessians = make_hessian_hints();

    // Every fit held, each once (for the totals of a search that shares this cache).
    template <class F>
    void for_each_fit(F&& f) const {
        if (have_free_data) f(free_data);
        if (have_asimov) {
            f(asimov_fit);
            f(free_asimov);
        }
        for (const auto& [mu, r] : fixed_data) f(r);
        for (const auto& [mu, r] : fixed_asimov) f(r);
    }
};

}  // namespace hf::infer
