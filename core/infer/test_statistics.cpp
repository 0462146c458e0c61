// Profile-likelihood test statistics with pyhf's definitions (pyhf.infer.test_statistics):
//   t_mu = max(2 NLL(mu, theta-hat-hat) - 2 NLL(mu-hat, theta-hat), 0)     (t and t~: POI bounds decide)
//   q_mu = 0 where mu-hat > mu, else t_mu                                   (q and q~)
//   q0   = 0 where mu-hat < 0, else t_0
#include <algorithm>
#include <cmath>

#include "hfcore/backend.hpp"
#include "hfcore/infer.hpp"
#include "infer/minimize/basin_search.hpp"
#include "infer/minimize/problem.hpp"
#include "infer/stat_internal.hpp"
#include "hfcore/observed_data.hpp"

namespace hf::infer {

TestStat parse_test_stat(const std::string& name) {
    if (name == "q0") return TestStat::q0;
    if (name == "q" || name == "qmu") return TestStat::q;
    if (name == "qtilde" || name == "qmu_tilde") return TestStat::qtilde;
    if (name == "t" || name == "tmu") return TestStat::t;
    if (name == "ttilde" || name == "tmu_tilde") return TestStat::ttilde;
    throw InputError("", "test_stat", "unknown test statistic '" + name + "' (expected q0, q, qtilde, t, ttilde)");
}

const char* test_stat_name(TestStat t) {
    switch (t) {
        case TestStat::q0: return "q0";
        case TestStat::q: return "q";
        case TestStat::qtilde: return "qtilde";
        case TestStat::t: return "t";
        case TestStat::ttilde: return "ttilde";
    }
    return "?";
}

namespace detail {

std::vector<std::string> test_stat_warnings(TestStat stat, double mu, double poi_lo) {
    std::vector<std::string> w;
    switch (stat) {
        case TestStat::q:
            if (poi_lo == 0)
                w.push_back(
                    "qmu test statistic used for fit configuration with POI bounded at zero. Use the qmu_tilde "
                    "test statistic (--test-stat qtilde) instead.");
            break;
        case TestStat::qtilde:
            if (poi_lo != 0)
                w.push_back(
                    "qmu_tilde test statistic used for fit configuration with POI not bounded at zero. Use the "
                    "qmu test statistic (--test-stat q) instead.");
            break;
        case TestStat::t:
            if (poi_lo == 0)
                w.push_back(
                    "tmu test statistic used for fit configuration with POI bounded at zero. Use the tmu_tilde "
                    "test statistic instead.");
            break;
        case TestStat::ttilde:
            if (poi_lo != 0)
                w.push_back(
                    "tmu_tilde test statistic used for fit configuration with POI not bounded at zero. Use the "
                    "tmu test statistic instead.");
            break;
        case TestStat::q0:
            if (mu != 0.0)
                w.push_back("q0 test statistic only used for fit configuration with POI set to zero. Setting mu=0.");
            break;
    }
    return w;
}

double combine_test_stat(TestStat stat, double mu, double twice_nll_fixed, double twice_nll_free, double muhat) {
    const double tmu = std::max(twice_nll_fixed - twice_nll_free, 0.0);
    switch (stat) {
        case TestStat::q:
        case TestStat::qtilde: return muhat > mu ? 0.0 : tmu;
        case TestStat::q0: return muhat < 0 ? 0.0 : tmu;
        case TestStat::t:
        case TestStat::ttilde: return tmu;
    }
    return tmu;
}

FitOptions with_other_minima(const Model& model, const FitConfig& config, const FitOptions& options,
                             const std::vector<const FitResult*>& others) {
    if (!minimizer_controls(options).basin_search || !can_be_multimodal(model, config.fixed)) return options;
    MinimizerControls c = minimizer_controls(options);
    for (const FitResult* r : others)
        if (r && !r->bestfit.empty()) c.other_starts.push_back(r->bestfit);
    return with_minimizer_controls(options, std::move(c));
}

bool keep_free_fit_lowest(const Model& model, const Tensor& data, const FitConfig& config,
                          const FitOptions& options, FitResult& free, const FitResult& conditional) {
    return keep_free_fit_lowest(model, model.bind(data), config, options, free, conditional);
}

bool keep_free_fit_lowest(const Model& model, const BoundLikelihood& data, const FitConfig& config,
                          const FitOptions& options, FitResult& free, const FitResult& conditional) {
    // Equal minima differ by the fits' convergence tolerance (twice_nll: twice the NLL tolerance) only.
    const double tol = options.tolerance > 0 ? options.tolerance : default_tolerance(model);
    if (!(conditional.twice_nll < free.twice_nll - std::max(1e-8, 20 * tol))) return false;
    MinimizerControls c = minimizer_controls(options);
    c.basin_search = true;
    c.other_starts = {conditional.bestfit};
    FitResult again = fit(model, data, config, with_minimizer_controls(options, std::move(c)));
    if (!(again.twice_nll < free.twice_nll)) return false;
    again.minimizer.other_basin = true;
    free = std::move(again);
    return true;
}

}  // namespace detail

TestStatResult test_statistic(TestStat stat, double mu, const Model& model, const Tensor& data,
                              const FitConfig& config, const FitOptions& options) {
    return test_statistic(stat, mu, model, model.bind(data), config, options);
}

// The free and the fixed fit (and a free fit again from the fixed one's minimum) on data bound once.
TestStatResult test_statistic(TestStat stat, double mu, const Model& model, const BoundLikelihood& data,
                              const FitConfig& config, const FitOptions& options) {
    const std::int64_t poi = model.poi_index();
    if (poi < 0)
        throw InputError("", "poi",
                         "No POI is defined. A POI is required for profile likelihood based test statistics.");
    TestStatResult r;
    FitConfig cfg = config.resolved(model);
    r.warnings = detail::test_stat_warnings(stat, mu, cfg.bounds[poi].first);
    if (stat == TestStat::q0) mu = 0.0;
    r.free_fit = fit(model, data, cfg, options);
    r.fixed_fit = fixed_poi_fit(mu, model, data, cfg, detail::with_other_minima(model, cfg, options, {&r.free_fit}));
    detail::keep_free_fit_lowest(model, data, cfg, options, r.free_fit, r.fixed_fit);
    r.value = detail::combine_test_stat(stat, mu, r.fixed_fit.twice_nll, r.free_fit.twice_nll,
                                        r.free_fit.bestfit[poi]);
    return r;
}

TestStatResult test_statistic(TestStat stat, double mu, const Model& model, const std::vector<double>& data,
                              const FitConfig& config, const FitOptions& options) {
    check_observed_data(model, data, "test_statistic");
    return test_statistic(stat, mu, model, model.backend()->from_host(data), config, options);
}

}  // namespace hf::infer
