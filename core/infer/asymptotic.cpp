// The asymptotic calculator (Cowan, Cranmer, Gross, Vitells, arXiv:1007.1727) as pyhf implements it: the
// Asimov data set from the fixed-POI fit at mu = 0 (mu = 1 for q0), test statistics compared as
// sqrt(q) - sqrt(q_A) (or (q - q_A) / (2 sqrt(q_A)) in the q~ tail), normal distributions shifted by
// -sqrt(q_A) (s+b) and 0 (b only).
#include <cmath>
#include <iterator>
#include <limits>

#include "hfcore/backend.hpp"
#include "hfcore/observed_data.hpp"
#include "hfcore/infer.hpp"
#include "hfcore/infer_advanced.hpp"
#include "infer/fit_from.hpp"
#include "infer/stat_internal.hpp"

namespace hf::infer {

std::vector<double> asimov_data(double asimov_mu, const Model& model, const std::vector<double>& data,
                                const FitConfig& config, const FitOptions& options,
                                std::vector<double>* asimov_pars) {
    auto r = fixed_poi_fit(asimov_mu, model, data, config, options);
    if (asimov_pars) *asimov_pars = r.bestfit;
    return model.expected_data(r.bestfit, true);
}

// What the calculator holds between its steps; the steps are its methods, the public ones forward to them.
struct AsymptoticCalculator::State {
    State(const Model& model, std::vector<double> data, HypotestOptions options);
    const Model& model_;
    std::vector<double> data_;
    BoundLikelihood data_t_;  // data_ bound to the model, once for every fit of this calculator
    HypotestOptions options_;
    double sqrtqA_ = -1.0;
    HypotestResult result_;
    std::shared_ptr<AsymptoticFitCache> cache_;
    FitConfig config_;  // resolved
    const FitResult& fixed_fit(double mu, bool asimov);
    void ensure_data_fits();
    double asimov_q(double mu);
    double asimov_sqrtq(double poi_test);
    double teststatistic(double poi_test);
    std::array<double, 3> pvalues(double teststat) const;
    std::array<std::array<double, 3>, 5> expected_pvalues() const;
};

AsymptoticCalculator::AsymptoticCalculator(const Model& model, std::vector<double> data, HypotestOptions options)
    : s_(std::make_unique<State>(model, std::move(data), std::move(options))) {}
AsymptoticCalculator::~AsymptoticCalculator() = default;
AsymptoticCalculator::AsymptoticCalculator(AsymptoticCalculator&&) noexcept = default;
AsymptoticCalculator& AsymptoticCalculator::operator=(AsymptoticCalculator&&) noexcept = default;
double AsymptoticCalculator::teststatistic(double poi_test) { return s_->teststatistic(poi_test); }
double AsymptoticCalculator::sqrt_q_asimov() const { return s_->sqrtqA_; }
double AsymptoticCalculator::asimov_sqrtq(double poi_test) { return s_->asimov_sqrtq(poi_test); }
std::array<double, 3> AsymptoticCalculator::pvalues(double teststat) const { return s_->pvalues(teststat); }
std::array<std::array<double, 3>, 5> AsymptoticCalculator::expected_pvalues() const {
    return s_->expected_pvalues();
}
const HypotestResult& AsymptoticCalculator::details() const { return s_->result_; }

AsymptoticCalculator::State::State(const Model& model, std::vector<double> data, HypotestOptions options)
    : model_(model), data_(std::move(data)), options_(std::move(options)) {
    if (options_.test_stat == TestStat::t || options_.test_stat == TestStat::ttilde)
        throw InputError("", "test_stat",
                         std::string("the asymptotic calculator supports q0, q and qtilde, not ") +
                             test_stat_name(options_.test_stat));
    if (model_.poi_index() < 0)
        throw InputError("", "poi",
                         "No POI is defined. A POI is required for profile likelihood based test statistics.");
    config_ = options_.config.resolved(model_);
    check_observed_data(model_, data_, "hypotest");
    data_t_ = model_.bind(data_);  // uploaded and bound once for every fit of this calculator
    cache_ = options_.cache ? options_.cache : make_asymptotic_cache();
    if (!minimizer_controls(options_.fit).hessian_hints) {
        MinimizerControls hinted = minimizer_controls(options_.fit);
        hinted.hessian_hints = cache_->hessians;
        options_.fit = with_minimizer_controls(std::move(options_.fit), std::move(hinted));
    }
}

std::shared_ptr<AsymptoticFitCache> make_asymptotic_cache() { return std::make_shared<AsymptoticFitCache>(); }

// The fits of the observed data that do not depend on the tested mu: the free fit and the fixed-POI fit at 0
// (1 for q0) whose expectation is the Asimov data set. Each starts also from the other's minimum (when the model
// can be multimodal), and the free fit is kept at or below the fixed one.
void AsymptoticCalculator::State::ensure_data_fits() {
    AsymptoticFitCache& c = *cache_;
    if (!c.have_free_data) {
        c.free_data = fit(model_, data_t_, config_, detail::with_other_minima(model_, config_, options_.fit, {}));
        c.have_free_data = true;
    }
    if (c.have_asimov) return;
    const double asimov_mu = options_.test_stat == TestStat::q0 ? 1.0 : 0.0;
    c.asimov_fit = fixed_poi_fit(asimov_mu, model_, data_t_, config_,
                                 detail::with_other_minima(model_, config_, options_.fit, {&c.free_data}));
    detail::keep_free_fit_lowest(model_, data_t_, config_, options_.fit, c.free_data, c.asimov_fit);
    // The Asimov data stay where they are made: no download and upload again (the same numbers either way).
    Backend& be = *model_.backend();
    const Tensor asimov = model_.expected_data(be.from_host(c.asimov_fit.bestfit, {1, model_.n_pars()}), true);
    c.asimov_t = model_.bind(asimov.reshape({model_.n_main() + model_.n_aux()}));
    // The Asimov data are the expectation at asimov_fit's parameters, so the free fit's global minimum is there
    // (every Poisson and Gaussian term at its mean, the POI inside its bounds): start there, no basin to search.
    MinimizerControls no_search = minimizer_controls(options_.fit);
    no_search.basin_search = false;
    c.free_asimov = detail::fit_from(model_, c.asimov_t, config_, with_minimizer_controls(options_.fit, no_search),
                                     c.asimov_fit.bestfit);
    c.have_asimov = true;
}

// The fit with the POI fixed at mu to the data or to the Asimov data, cached by mu. Every fit starts at the init,
// as pyhf's do; where the model can be multimodal it also starts from the minima of the fits to the same data
// already made (the POI-independent ones and the fixed fit at the nearest mu; for the Asimov data, the Asimov
// parameters and the fit to the observed data at the same mu), and keeps the lowest. A fixed fit to the observed
// data below the free fit sends the free fit to its basin.
const FitResult& AsymptoticCalculator::State::fixed_fit(double mu, bool asimov) {
    ensure_data_fits();
    AsymptoticFitCache& c = *cache_;
    auto& fits = asimov ? c.fixed_asimov : c.fixed_data;
    auto it = fits.find(mu);
    if (it != fits.end()) return it->second;
    std::vector<const FitResult*> others;
    if (asimov) {
        others.push_back(&c.asimov_fit);
        auto d = c.fixed_data.find(mu);
        if (d != c.fixed_data.end()) others.push_back(&d->second);
    } else {
        others = {&c.free_data, &c.asimov_fit};
        auto next = fits.lower_bound(mu);
        if (next != fits.end()) others.push_back(&next->second);
        if (next != fits.begin()) others.push_back(&std::prev(next)->second);
    }
    FitResult r = fixed_poi_fit(mu, model_, asimov ? c.asimov_t : data_t_, config_,
                                detail::with_other_minima(model_, config_, options_.fit, others));
    if (!asimov) detail::keep_free_fit_lowest(model_, data_t_, config_, options_.fit, c.free_data, r);
    return fits.emplace(mu, std::move(r)).first->second;
}

double AsymptoticCalculator::State::asimov_q(double mu) {
    const FitResult& fixed_asimov = fixed_fit(mu, true);
    // The Asimov data are the expectation at the fit with the POI fixed at 0 (q, qtilde): testing mu = 0 on them
    // gives q_A = 0 exactly, whatever rounding the two fits leave (a q_A of 1e-15 would divide by its root below).
    if (options_.test_stat != TestStat::q0 && mu == 0.0) return 0.0;
    return detail::combine_test_stat(options_.test_stat, mu, fixed_asimov.twice_nll, cache_->free_asimov.twice_nll,
                                     cache_->free_asimov.bestfit[model_.poi_index()]);
}

double AsymptoticCalculator::State::asimov_sqrtq(double poi_test) {
    return std::sqrt(asimov_q(options_.test_stat == TestStat::q0 ? 0.0 : poi_test));
}

double AsymptoticCalculator::State::teststatistic(double poi_test) {
    const TestStat stat = options_.test_stat;
    const std::int64_t poi = model_.poi_index();
    AsymptoticFitCache& cache = *cache_;
    const double mu = stat == TestStat::q0 ? 0.0 : poi_test;

    // Observed: the fit with the POI fixed at mu (after the POI-independent fits, which it may lower).
    const FitResult& fixed = fixed_fit(mu, false);
    const FitResult& free = cache.free_data;
    const double q = detail::combine_test_stat(stat, mu, fixed.twice_nll, free.twice_nll, free.bestfit[poi]);
    const double sqrtq = std::sqrt(q);

    const double qA = asimov_q(mu);
    sqrtqA_ = std::sqrt(qA);
    const FitResult& fixed_asimov = cache.fixed_asimov.at(mu);

    HypotestResult& r = result_;
    r.q_obs = q;
    r.q_asimov = qA;
    r.asimov_pars = cache.asimov_fit.bestfit;
    r.free_fit_to_data = free.bestfit;
    r.free_fit_to_asimov = cache.free_asimov.bestfit;
    r.fixed_poi_fit_to_data = fixed.bestfit;
    r.fixed_poi_fit_to_asimov = fixed_asimov.bestfit;
    r.twice_nll_free = free.twice_nll;
    r.converged = free.converged && fixed.converged && cache.asimov_fit.converged && cache.free_asimov.converged &&
                  fixed_asimov.converged;
    r.minimizer = {};
    const FitResult* fits[] = {&free, &fixed, &cache.asimov_fit, &cache.free_asimov, &fixed_asimov};
    for (const FitResult* f : fits) r.minimizer.add(f->minimizer);
    r.warnings = detail::test_stat_warnings(stat, poi_test, config_.bounds[poi].first);

    double teststat;
    // With q_A = 0 (mu = 0 tested) the s+b and b-only distributions are the same: CLs = 1 (pvalues), and the
    // qtilde tail formula, which divides by sqrt(q_A), is not needed.
    if (stat == TestStat::q || stat == TestStat::q0 || sqrtq <= sqrtqA_ || sqrtqA_ == 0.0)
        teststat = sqrtq - sqrtqA_;
    else
        teststat = (q - qA) / (2.0 * sqrtqA_);
    r.teststat = teststat;
    return teststat;
}

std::array<double, 3> AsymptoticCalculator::State::pvalues(double teststat) const {
    if (sqrtqA_ < 0) throw Error("AsymptoticCalculator: call teststatistic(poi_test) first");
    const double cutoff =
        options_.calc_base_dist == BaseDist::clipped_normal ? -sqrtqA_ : -std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // s+b: shift -sqrt(q_A); b only: shift 0. p = 1 - Phi(value - shift).
    const double clsb = teststat >= cutoff ? normal_sf(teststat + sqrtqA_) : nan;
    const double clb = teststat >= cutoff ? normal_sf(teststat) : nan;
    // q_A = 0: the two distributions coincide and CLs is 1 (its limit as mu -> 0), also where both tails
    // underflow (pyhf gives NaN there, 0 / 0).
    if (sqrtqA_ == 0.0 && teststat >= cutoff) return {clsb, clb, 1.0};
    return {clsb, clb, clsb / clb};
}

std::array<std::array<double, 3>, 5> AsymptoticCalculator::State::expected_pvalues() const {
    const double cutoff =
        options_.calc_base_dist == BaseDist::clipped_normal ? -sqrtqA_ : -std::numeric_limits<double>::infinity();
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
