// Single maximum-likelihood fits: a local fit from the start (NLopt quasi-Newton, LD_LBFGS then LD_SLSQP when the
// first does not converge, each followed by the Newton polish that decides convergence; descent.cpp), then the
// search of the other basins of the model's multimodal parameters and of the given starts (basin_search.cpp), then the
// result with uncertainties when asked.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "hfcore/backend.hpp"
#include "hfcore/infer_advanced.hpp"
#include "hfcore/observed_data.hpp"
#include "infer/fit_from.hpp"
#include "infer/minimize/basin_search.hpp"
#include "infer/minimize/descent.hpp"
#include "numerics/dense.hpp"

namespace hf::infer {

using detail::NewtonOutcome;
using detail::Problem;
using detail::QuasiNewton;

namespace {

FitResult run_fit(const Model& model, const BoundLikelihood& data, const FitConfig& cfg, const FitOptions& options,
                  const std::vector<double>& start) {
    Problem p = detail::make_problem(model, data, cfg);
    const MinimizerControls& controls = minimizer_controls(options);
    const double tol = options.tolerance > 0 ? options.tolerance : detail::default_tolerance(model);
    FitResult r;
    std::vector<double> y(p.nfree(), 0.0);
    if (!start.empty()) {
        if (static_cast<std::int64_t>(start.size()) != model.n_pars())
            throw InputError("fit", "start", std::to_string(start.size()) + " start values, the model has " +
                                                 std::to_string(model.n_pars()) + " parameters");
        y = p.to_y(start);
        for (std::size_t i = 0; i < y.size(); ++i) y[i] = std::clamp(y[i], p.lo[i], p.hi[i]);
    }
    std::vector<double> g;
    double f = p.nll(y, &g);
    if (!std::isfinite(f)) {
        std::ostringstream os;
        os << "the likelihood is not finite at the initial parameters (logpdf = " << -f
           << "); check the data (negative counts?) and the initial values";
        throw Error(os.str());
    }
    std::vector<QuasiNewton> algs;
    switch (options.algorithm) {
        case FitAlgorithm::automatic: algs = {QuasiNewton::lbfgs, QuasiNewton::slsqp}; break;
        case FitAlgorithm::lbfgs: algs = {QuasiNewton::lbfgs}; break;
        case FitAlgorithm::slsqp: algs = {QuasiNewton::slsqp}; break;
    }

    NewtonOutcome newton;
    std::string status;
    if (p.nfree() == 0) {
        newton.converged = true;
        newton.edm = 0.0;
        r.algorithm = "none (every parameter fixed)";
    }
    for (std::size_t a = 0; a < algs.size() && !newton.converged; ++a) {
        const int budget = static_cast<int>(std::max<std::int64_t>(100, options.max_eval - p.n_eval));
        status = detail::quasi_newton(p, algs[a], y, f, budget);
        if (!r.algorithm.empty()) r.algorithm += '+';
        r.algorithm += detail::quasi_newton_name(algs[a]);
        if (controls.polish) {
            newton = detail::newton_polish(p, y, f, tol, 30, controls.hessian_hints.get());
            r.algorithm += "+newton";
        } else {
            // Without polish: check the distance to the minimum only.
            newton = detail::newton_polish(p, y, f, tol, 0, controls.hessian_hints.get());
        }
    }
    int basin_skipped = 0;
    if (controls.basin_search && controls.polish && p.nfree() > 0) {
        const auto search = detail::search_basins(model, p, y, f, newton, tol, controls.other_starts);
        r.minimizer.basin_candidates = search.candidates;
        r.minimizer.other_basin = search.moved;
        basin_skipped = search.skipped;
        if (search.moved) r.algorithm += "+basin";
    }

    r.bestfit = p.to_x(y);
    f = p.nll(y, &g);
    if (!std::isfinite(f)) throw Error("fit ended at a point where the likelihood is not finite (" + status + ")");
    r.twice_nll = 2.0 * f;
    r.minimizer.edm = newton.edm;
    std::vector<double> pg;
    detail::project_gradient(y, g, p.lo, p.hi, pg);
    r.minimizer.max_projected_gradient = 0.0;
    for (double v : pg) r.minimizer.max_projected_gradient = std::max(r.minimizer.max_projected_gradient, std::fabs(v));
    r.converged = newton.converged;
    {
        std::ostringstream os;
        os.precision(3);
        if (r.converged)
            os << "converged: edm " << r.minimizer.edm << " < " << tol;
        else
            os << "not converged: edm " << r.minimizer.edm << " >= " << tol << ", max projected gradient "
               << r.minimizer.max_projected_gradient << " (" << status << ")";
        if (r.minimizer.basin_candidates > 0)
            os << "; lowest of " << r.minimizer.basin_candidates + 1 << " starts"
               << (r.minimizer.other_basin ? " (in another basin than the first descent's)" : "");
        if (basin_skipped > 0) os << "; " << basin_skipped << " starts left out at the basin search's budget";
        r.reason = os.str();
    }

    if (options.uncertainties) detail::add_uncertainties(p, y, r);
    r.minimizer.n_eval = p.n_eval;
    return r;
}

}  // namespace

void MinimizerReport::add(const MinimizerReport& fit) {
    n_eval += fit.n_eval;
    edm = std::max(edm, fit.edm);
    max_projected_gradient = std::max(max_projected_gradient, fit.max_projected_gradient);
    basin_candidates += fit.basin_candidates;
    other_basin = other_basin || fit.other_basin;
}

const MinimizerControls& minimizer_controls(const FitOptions& options) {
    static const MinimizerControls defaults;
    return options.minimizer ? *options.minimizer : defaults;
}

FitOptions with_minimizer_controls(FitOptions options, MinimizerControls controls) {
    options.minimizer = std::make_shared<const MinimizerControls>(std::move(controls));
    return options;
}

namespace detail {

void add_uncertainties(Problem& p, const std::vector<double>& y, FitResult& r) {
    const std::size_t np = p.x0.size();
    const std::size_t n = p.nfree();
    r.uncertainties.assign(np, 0.0);
    r.correlations.assign(np * np, 0.0);
    for (std::size_t i = 0; i < np; ++i) r.correlations[i * np + i] = 1.0;
    if (n > 0) {
        auto h = p.hessian(y);
        std::vector<double> factor;
        double shift = numerics::shifted_cholesky(h, n, factor);
        r.hessian_ok = shift == 0.0;
        auto inv = numerics::cholesky_inverse(factor, n);
        for (std::size_t a = 0; a < n; ++a) {
            r.uncertainties[p.free[a]] = std::sqrt(std::max(inv[a * n + a], 0.0)) * p.scale[a];
        }
        for (std::size_t a = 0; a < n; ++a)
            for (std::size_t b = 0; b < n; ++b) {
                if (a == b) continue;
                double den = std::sqrt(inv[a * n + a] * inv[b * n + b]);
                r.correlations[p.free[a] * np + p.free[b]] = den > 0 ? inv[a * n + b] / den : 0.0;
            }
    } else {
        r.hessian_ok = true;
    }
}

}  // namespace detail

FitResult detail::fit_from(const Model& model, const BoundLikelihood& data, const FitConfig& config,
                           const FitOptions& options, const std::vector<double>& start) {
    return run_fit(model, data, config.resolved(model), options, start);
}

FitResult detail::fit_from(const Model& model, const Tensor& data, const FitConfig& config,
                           const FitOptions& options, const std::vector<double>& start) {
    const FitConfig cfg = config.resolved(model);  // before binding: a bad configuration is reported first
    return run_fit(model, model.bind(data), cfg, options, start);
}

FitResult detail::fit_from(const Model& model, const std::vector<double>& data, const FitConfig& config,
                           const FitOptions& options, const std::vector<double>& start) {
    check_observed_data(model, data, "fit");
    return fit_from(model, model.backend()->from_host(data), config, options, start);
}

FitResult fit(const Model& model, const BoundLikelihood& data, const FitConfig& config, const FitOptions& options) {
    return detail::fit_from(model, data, config, options, {});
}

FitResult fit(const Model& model, const Tensor& data, const FitConfig& config, const FitOptions& options) {
    return detail::fit_from(model, data, config, options, {});
}

FitResult fit(const Model& model, const std::vector<double>& data, const FitConfig& config,
              const FitOptions& options) {
    return detail::fit_from(model, data, config, options, {});
}

namespace {
FitConfig with_fixed_poi(double poi_value, const Model& model, const FitConfig& config) {
    if (model.poi_index() < 0)
        throw InputError("fit", "poi", "No POI is defined. A POI is required to fit with a fixed POI.");
    FitConfig c = config;
    if (c.init.empty()) c.init = model.suggested_init();
    if (c.fixed.empty()) c.fixed = model.suggested_fixed();
    if (static_cast<std::int64_t>(c.init.size()) == model.n_pars() &&
        static_cast<std::int64_t>(c.fixed.size()) == model.n_pars()) {
        c.init[model.poi_index()] = poi_value;
        c.fixed[model.poi_index()] = true;
    }
    return c;
}
}  // namespace

FitResult fixed_poi_fit(double poi_value, const Model& model, const BoundLikelihood& data, const FitConfig& config,
                        const FitOptions& options) {
    return fit(model, data, with_fixed_poi(poi_value, model, config), options);
}

FitResult fixed_poi_fit(double poi_value, const Model& model, const Tensor& data, const FitConfig& config,
                        const FitOptions& options) {
    return fit(model, data, with_fixed_poi(poi_value, model, config), options);
}

FitResult fixed_poi_fit(double poi_value, const Model& model, const std::vector<double>& data,
                        const FitConfig& config, const FitOptions& options) {
    return fit(model, data, with_fixed_poi(poi_value, model, config), options);
}

double twice_nll(const Model& model, const std::vector<double>& pars, const std::vector<double>& data) {
    return -2.0 * model.logpdf(pars, data);
}

}  // namespace hf::infer
