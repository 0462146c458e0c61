// The asymptotic calculator (Cowan, Cranmer, Gross, Vitells, arXiv:1007.1727) as pyhf implements it: the
// Asimov data set from the fixed-POI fit at mu = 0 (mu = 1 for q0), test statistics compared as
// sqrt(q) - sqrt(q_A) (or (q - q_A) / (2 sqrt(q_A)) in the q~ tail), normal distributions shifted by
// -sqrt(q_A) (s+b) and 0 (b only).
#include <cmath>
#include <limits>

#include "hfcore/backend.hpp"
#include "hfcore/infer.hpp"
#include "infer/stat_internal.hpp"

namespace hf::infer {

std::vector<double> asimov_data(double asimov_mu, const Model& model, const std::vector<double>& data,
                                const FitConfig& config, const FitOptions& options,
                                std::vector<double>* asimov_pars) {
    auto r = fixed_poi_fit(asimov_mu, model, data, config, options);
    if (asimov_pars) *asimov_pars = r.bestfit;
    return model.expected_data(r.bestfit, true);
}

AsymptoticCalculator::AsymptoticCalculator(const Model& model, std::vector<double> data, HypotestOptions options)
    : model_(model), data_(std::move(data)), options_(std::move(options)) {
    if (options_.calc_base_dist != "normal" && options_.calc_base_dist != "clipped_normal")
        throw InputError("", "calc_base_dist",
                         "unknown base distribution for asymptotics '" + options_.calc_base_dist + "'");
    if (options_.test_stat == TestStat::t || options_.test_stat == TestStat::ttilde)
        throw InputError("", "test_stat",
                         std::string("the asymptotic calculator supports q0, q and qtilde, not ") +
                             test_stat_name(options_.test_stat));
}

std::shared_ptr<AsymptoticFitCache> make_asymptotic_cache() { return std::make_shared<AsymptoticFitCache>(); }

double AsymptoticCalculator::teststatistic(double poi_test) {
    const FitConfig cfg = options_.config.resolved(model_);
    const TestStat stat = options_.test_stat;
    const std::int64_t poi = model_.poi_index();
    if (poi < 0)
        throw InputError("", "poi",
                         "No POI is defined. A POI is required for profile likelihood based test statistics.");
    auto& be = *model_.backend();
    Tensor data_t = be.from_host(data_);
    auto cache = options_.cache ? options_.cache : make_asymptotic_cache();
    const double mu = stat == TestStat::q0 ? 0.0 : poi_test;

    // Observed: free fit (independent of mu, cached) and the fit with the POI fixed at mu.
    if (!cache->have_free_data) {
        cache->free_data = fit(model_, data_t, cfg, options_.fit);
        cache->have_free_data = true;
    }
    const FitResult& free = cache->free_data;
    const FitResult fixed = fixed_poi_fit(mu, model_, data_t, cfg, options_.fit);
    const double q = detail::combine_test_stat(stat, mu, fixed.twice_nll, free.twice_nll, free.bestfit[poi]);
    const double sqrtq = std::sqrt(q);

    // Asimov data from the fixed-POI fit at 0 (1 for q0) and its free fit: both independent of mu, cached.
    if (!cache->have_asimov) {
        const double asimov_mu = stat == TestStat::q0 ? 1.0 : 0.0;
        cache->asimov_fit = fixed_poi_fit(asimov_mu, model_, data_t, cfg, options_.fit);
        cache->asimov = model_.expected_data(cache->asimov_fit.bestfit, true);
        cache->free_asimov = fit(model_, be.from_host(cache->asimov), cfg, options_.fit);
        cache->have_asimov = true;
    }
    Tensor asimov_t = be.from_host(cache->asimov);
    const FitResult fixed_asimov = fixed_poi_fit(mu, model_, asimov_t, cfg, options_.fit);
    const double qA = detail::combine_test_stat(stat, mu, fixed_asimov.twice_nll, cache->free_asimov.twice_nll,
                                                cache->free_asimov.bestfit[poi]);
    sqrtqA_ = std::sqrt(qA);

    HypotestResult& r = result_;
    r.q_obs = q;
    r.q_asimov = qA;
    r.asimov_pars = cache->asimov_fit.bestfit;
    r.free_fit_to_data = free.bestfit;
    r.free_fit_to_asimov = cache->free_asimov.bestfit;
    r.fixed_poi_fit_to_data = fixed.bestfit;
    r.fixed_poi_fit_to_asimov = fixed_asimov.bestfit;
    r.twice_nll_free = free.twice_nll;
    r.converged = free.converged && fixed.converged && cache->asimov_fit.converged && cache->free_asimov.converged &&
                  fixed_asimov.converged;
    r.warnings = detail::test_stat_warnings(stat, poi_test, cfg.bounds[poi].first);

    double teststat;
    if (stat == TestStat::q || stat == TestStat::q0 || sqrtq <= sqrtqA_)
        teststat = sqrtq - sqrtqA_;
    else
        teststat = (q - qA) / (2.0 * sqrtqA_);
    r.teststat = teststat;
    return teststat;
}

std::array<double, 3> AsymptoticCalculator::pvalues(double teststat) const {
    if (sqrtqA_ < 0) throw Error("AsymptoticCalculator: call teststatistic(poi_test) first");
    const double cutoff =
        options_.calc_base_dist == "clipped_normal" ? -sqrtqA_ : -std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // s+b: shift -sqrt(q_A); b only: shift 0. p = 1 - Phi(value - shift).
    const double clsb = teststat >= cutoff ? normal_sf(teststat + sqrtqA_) : nan;
    const double clb = teststat >= cutoff ? normal_sf(teststat) : nan;
    return {clsb, clb, clsb / clb};
}

std::array<std::array<double, 3>, 5> AsymptoticCalculator::expected_pvalues() const {
    const double cutoff =
        options_.calc_base_dist == "clipped_normal" ? -sqrtqA_ : -std::numeric_limits<double>::infinity();
    std::array<std::array<double, 3>, 5> out{};
    const double nsigmas[5] = {2, 1, 0, -1, -2};
    for (int i = 0; i < 5; ++i) {
        // The b-only distribution's expected value at n sigma, floored at the cutoff.
        const double v = nsigmas[i] > cutoff ? nsigmas[i] : cutoff;
        out[i] = pvalues(v);
    }
    return out;
}

}  // namespace hf::infer
