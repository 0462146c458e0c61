// Single maximum-likelihood fits: NLopt quasi-Newton (LD_LBFGS, LD_SLSQP) on the analytic gradient in scaled
// variables, then a projected Newton polish with the finite-difference Hessian, then a convergence check on the
// Newton estimate of the distance to the minimum (edm). A second algorithm runs when the first does not
// converge.
#include <nlopt.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>

#include "hfcore/backend.hpp"
#include "hfcore/plugin/likelihood.hpp"
#include "infer/dense.hpp"
#include "infer/problem.hpp"

namespace hf::infer {

using detail::Problem;

// The last finite-difference Hessian of each set of free parameters (a fixed-POI fit frees one parameter fewer).
struct HessianHints {
    std::mutex mutex;
    std::map<std::vector<int>, std::vector<double>> by_free;

    bool find(const std::vector<int>& free, std::vector<double>& h) {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = by_free.find(free);
        if (it == by_free.end()) return false;
        h = it->second;
        return true;
    }
    void store(const std::vector<int>& free, const std::vector<double>& h) {
        std::lock_guard<std::mutex> lock(mutex);
        by_free[free] = h;
    }
};

std::shared_ptr<HessianHints> make_hessian_hints() { return std::make_shared<HessianHints>(); }

namespace {

struct NloptContext {
    Problem* problem;
    double offset;  // NLL at the start: NLopt sees values of order one whatever the likelihood's size
    double best_f = std::numeric_limits<double>::infinity();
    std::vector<double> best_y;
};

double nlopt_objective(unsigned n, const double* y, double* grad, void* data) {
    auto* ctx = static_cast<NloptContext*>(data);
    std::vector<double> yv(y, y + n), g;
    double f = ctx->problem->nll(yv, grad ? &g : nullptr);
    if (!std::isfinite(f)) {
        // Outside the region where the likelihood is defined: a wall the line search backs away from.
        if (grad) std::fill(grad, grad + n, 0.0);
        return std::numeric_limits<double>::max() / 4;
    }
    if (grad) std::copy(g.begin(), g.end(), grad);
    f -= ctx->offset;
    if (f < ctx->best_f) {
        ctx->best_f = f;
        ctx->best_y = yv;
    }
    return f;
}

// Runs one NLopt algorithm from y (updated to the best point seen). Returns a short status text.
std::string run_nlopt(Problem& p, nlopt::algorithm alg, std::vector<double>& y, double& f, int max_eval) {
    const unsigned n = static_cast<unsigned>(p.nfree());
    NloptContext ctx{&p, f, 0.0, y};
    ctx.best_f = 0.0;
    ctx.best_y = y;
    nlopt::opt opt(alg, n);
    opt.set_lower_bounds(p.lo);
    opt.set_upper_bounds(p.hi);
    opt.set_min_objective(nlopt_objective, &ctx);
    opt.set_ftol_abs(1e-12);
    opt.set_ftol_rel(0.0);
    opt.set_xtol_rel(1e-12);
    opt.set_maxeval(max_eval);
    if (alg == nlopt::LD_LBFGS) opt.set_vector_storage(20);
    std::vector<double> x = y;
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::clamp(x[i], p.lo[i], p.hi[i]);
    std::string status;
    try {
        double fval = 0.0;
        nlopt::result r = opt.optimize(x, fval);
        status = std::string("nlopt result ") + std::to_string(static_cast<int>(r));
    } catch (const nlopt::roundoff_limited&) {
        status = "nlopt roundoff limited";
    } catch (const std::exception& e) {
        status = std::string("nlopt: ") + e.what();
    }
    y = ctx.best_y;
    f = ctx.offset + ctx.best_f;
    return status;
}

struct NewtonOutcome {
    double edm = std::numeric_limits<double>::infinity();
    bool converged = false;
    int iterations = 0;
};

// Projected Newton iterations with a line search. Bound-active parameters (at a bound with the gradient
// pushing outward) are held; the others take the Newton step, clamped to the box.
NewtonOutcome newton_polish(Problem& p, std::vector<double>& y, double& f, double tol, int max_iter,
                            HessianHints* hints) {
    NewtonOutcome out;
    const std::size_t n = p.nfree();
    std::vector<double> g;
    f = p.nll(y, &g);
    for (int it = 0; it <= max_iter; ++it) {
        out.iterations = it;
        std::vector<int> J;
        for (std::size_t i = 0; i < n; ++i) {
            bool at_lo = y[i] <= p.lo[i] && g[i] > 0.0;
            bool at_hi = y[i] >= p.hi[i] && g[i] < 0.0;
            if (!at_lo && !at_hi) J.push_back(static_cast<int>(i));
        }
        if (J.empty()) {
            out.edm = 0.0;
            out.converged = true;
            return out;
        }
        const std::size_t m = J.size();
        std::vector<double> gj(m), d;
        for (std::size_t a = 0; a < m; ++a) gj[a] = g[J[a]];
        // Newton step d on the components J and the edm it predicts, from the Hessian h.
        auto newton_step = [&](const std::vector<double>& h, double& shift) {
            std::vector<double> hj(m * m), factor;
            for (std::size_t a = 0; a < m; ++a)
                for (std::size_t b = 0; b < m; ++b) hj[a * m + b] = h[J[a] * n + J[b]];
            shift = detail::shifted_cholesky(hj, m, factor);
            d = detail::cholesky_solve(factor, m, gj);
            for (auto& v : d) v = -v;
            return -0.5 * detail::dot(gj.data(), d.data(), m);
        };
        double shift = 0.0;
        // A Hessian of an earlier fit of the same problem (another tested POI value) confirms convergence without
        // a new one when its edm is far inside the tolerance and it is positive definite.
        if (it == 0 && hints) {
            std::vector<double> h0;
            if (hints->find(p.free, h0)) {
                const double edm0 = newton_step(h0, shift);
                if (std::isfinite(edm0) && edm0 < 0.01 * tol && shift == 0.0) {
                    out.edm = edm0;
                    out.converged = true;
                    return out;
                }
            }
        }
        auto h = p.hessian_forward(y, g);
        if (hints) hints->store(p.free, h);
        out.edm = newton_step(h, shift);
        if (!std::isfinite(out.edm)) return out;
        if (out.edm < tol && shift >= 0.0) {
            out.converged = true;
            return out;
        }
        if (it == max_iter) return out;
        // Line search on the projected path. Close to the minimum the predicted decrease can be smaller than
        // the rounding noise of the NLL itself (Poisson constraints with tau ~ 1e11 sum terms of ~1e12 that
        // cancel), so there a step is also accepted when the exact gradient shows the minimum along the step
        // was approached (directional derivative reduced) and the NLL did not rise beyond that noise.
        const bool small_step = out.edm < 1e-4;
        const double noise = 1e-6 * std::max(1.0, std::fabs(f));
        bool accepted = false;
        double t = 1.0;
        for (int ls = 0; ls < 40; ++ls) {
            std::vector<double> yn = y;
            for (std::size_t a = 0; a < m; ++a) {
                const int i = J[a];
                yn[i] = std::clamp(y[i] + t * d[a], p.lo[i], p.hi[i]);
            }
            double decrease = 0.0, slope_new = 0.0;  // g.s and g_new.s along the projected step s
            std::vector<double> gn;
            double fn = p.nll(yn, &gn);
            for (std::size_t i = 0; i < n; ++i) {
                decrease += g[i] * (yn[i] - y[i]);
                if (std::isfinite(fn)) slope_new += gn[i] * (yn[i] - y[i]);
            }
            if (!(decrease < 0.0)) break;  // the step vanished (or is no descent): nothing more to gain
            const bool armijo = std::isfinite(fn) && fn <= f + 1e-4 * decrease;
            const bool by_gradient = small_step && std::isfinite(fn) && std::fabs(slope_new) <= 0.5 * -decrease &&
                                     fn <= f + noise;
            if (armijo || by_gradient) {
                const double df = f - fn;
                y.swap(yn);
                g.swap(gn);
                f = fn;
                accepted = true;
                // No measurable change in the objective any more: the point is as good as rounding allows.
                if (armijo && df <= 4 * std::numeric_limits<double>::epsilon() * std::fabs(f) && out.edm < 1e3 * tol) {
                    out.edm = std::max(df, 0.0);
                    out.converged = true;
                    return out;
                }
                break;
            }
            t *= 0.5;
        }
        if (!accepted) return out;
    }
    return out;
}

// Parameters that can have two basins at +-a: those of a histosys or normsys whose up and down variations move
// some yield the same way (one-sided systematics symmetrised by hand), on a smooth interpolation. On a kinked one
// (histosys code0, normsys code1) the side a fit takes from the kink at 0 is decided by the derivative
// convention there (the right-hand one, as pyhf's forward differences), and mirroring would leave pyhf's minimum.
std::vector<bool> mirror_candidates(const Model& model) {
    const auto np = static_cast<std::size_t>(model.n_pars());
    std::vector<bool> symmetric(np, false), kinked(np, false);
    const auto& pk = packed_likelihood(model);
    for (std::size_t d = 0; d < pk.delta_kind.size(); ++d) {
        if (pk.delta_kind[d] == kDeltaCode0) kinked[pk.delta_par[d]] = true;
        if ((pk.delta_hi[d] - pk.delta_nom[d]) * (pk.delta_lo[d] - pk.delta_nom[d]) > 0) symmetric[pk.delta_par[d]] = true;
    }
    for (std::size_t f = 0; f < pk.factor_kind.size(); ++f) {
        if (pk.factor_kind[f] == kFactorNormsysCode1) kinked[pk.factor_par[f]] = true;
        if (pk.factor_kind[f] != kFactorLinear && (pk.factor_hi[f] - 1.0) * (pk.factor_lo[f] - 1.0) > 0)
            symmetric[pk.factor_par[f]] = true;
    }
    std::vector<bool> out(np);
    for (std::size_t i = 0; i < np; ++i) out[i] = symmetric[i] && !kinked[i];
    return out;
}

// Symmetric variations make the likelihood nearly symmetric in that parameter around its start, with two basins
// at +-a; which one a fit from the start falls into is luck. A candidate that ended more than 0.3 widths from
// its start is tried on the other side (the nearly symmetric ones together, and each alone) when the mirrored
// point is nearly as likely; the lowest minimum wins, for up to three rounds. Returns true when a mirrored basin
// was taken.
bool try_mirrored_basins(const Model& model, Problem& p, std::vector<double>& y, double& f, NewtonOutcome& newton,
                         double tol) {
    const auto candidate = mirror_candidates(model);
    bool taken = false;
    for (int round = 0; round < 3; ++round) {
        std::vector<std::size_t> cand;
        for (std::size_t a = 0; a < p.nfree(); ++a)
            if (candidate[p.free[a]] && std::fabs(y[a]) > 0.3 && -y[a] >= p.lo[a] && -y[a] <= p.hi[a]) cand.push_back(a);
        if (cand.empty()) return taken;
        std::vector<std::vector<double>> pts;
        for (std::size_t a : cand) {
            pts.push_back(y);
            pts.back()[a] = -y[a];
        }
        auto vals = p.nll_batch(pts, nullptr);
        // Nearly symmetric: the mirrored point is almost as likely as the minimum itself.
        std::vector<std::size_t> near;
        for (std::size_t i = 0; i < cand.size(); ++i)
            if (vals[i] < f + 0.5) near.push_back(i);
        if (near.empty()) return taken;
        std::sort(near.begin(), near.end(), [&](std::size_t a, std::size_t b) { return vals[a] < vals[b]; });
        std::vector<std::vector<double>> starts;
        if (near.size() > 1) {
            starts.push_back(y);
            for (std::size_t i : near) starts.back()[cand[i]] = -y[cand[i]];
        }
        for (std::size_t k = 0; k < near.size() && k < 3; ++k) starts.push_back(pts[near[k]]);
        std::vector<double> best_y;
        double best_f = f;
        NewtonOutcome best_n;
        for (auto& y2 : starts) {
            // A quasi-Newton descent first (gradients only): most mirrored starts fall back into the basin they
            // came from, and only a lower end point is worth the Newton polish.
            double f2 = p.nll(y2, nullptr);
            run_nlopt(p, nlopt::LD_LBFGS, y2, f2, 1000);
            if (!(f2 < best_f - 1e-7)) continue;
            NewtonOutcome n2 = newton_polish(p, y2, f2, tol, 40, nullptr);
            if (n2.converged && f2 < best_f - std::max(1e-9, 10 * tol)) {
                best_f = f2;
                best_y = y2;
                best_n = n2;
            }
        }
        if (best_y.empty()) return taken;
        y = best_y;
        f = best_f;
        newton = best_n;
        taken = true;
    }
    return taken;
}

FitResult run_fit(const Model& model, const Tensor& data, const FitConfig& cfg, const FitOptions& options) {
    Problem p = detail::make_problem(model, data, cfg);
    const double tol = options.tolerance > 0 ? options.tolerance : detail::default_tolerance(model);
    FitResult r;
    std::vector<double> y(p.nfree(), 0.0);
    if (!options.start.empty()) {
        if (static_cast<std::int64_t>(options.start.size()) != model.n_pars())
            throw InputError("fit", "start", std::to_string(options.start.size()) + " start values, the model has " +
                                                 std::to_string(model.n_pars()) + " parameters");
        y = p.to_y(options.start);
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
    std::vector<nlopt::algorithm> algs;
    switch (options.algorithm) {
        case FitAlgorithm::automatic: algs = {nlopt::LD_LBFGS, nlopt::LD_SLSQP}; break;
        case FitAlgorithm::lbfgs: algs = {nlopt::LD_LBFGS}; break;
        case FitAlgorithm::slsqp: algs = {nlopt::LD_SLSQP}; break;
    }

    NewtonOutcome newton;
    std::string status;
    if (p.nfree() == 0) {
        newton.converged = true;
        newton.edm = 0.0;
        r.algorithm = "none (every parameter fixed)";
    }
    for (std::size_t a = 0; a < algs.size() && !newton.converged; ++a) {
        const char* name = algs[a] == nlopt::LD_LBFGS ? "LD_LBFGS" : "LD_SLSQP";
        const int budget = static_cast<int>(std::max<std::int64_t>(100, options.max_eval - p.n_eval));
        status = run_nlopt(p, algs[a], y, f, budget);
        if (!r.algorithm.empty()) r.algorithm += '+';
        r.algorithm += name;
        if (options.polish) {
            newton = newton_polish(p, y, f, tol, 30, options.hessian_hints.get());
            r.algorithm += "+newton";
        } else {
            // Without polish: check the distance to the minimum only.
            newton = newton_polish(p, y, f, tol, 0, options.hessian_hints.get());
        }
    }
    if (options.mirror_check && options.polish && p.nfree() > 0) {
        if (try_mirrored_basins(model, p, y, f, newton, tol)) r.algorithm += "+mirror";
    }

    r.bestfit = p.to_x(y);
    f = p.nll(y, &g);
    if (!std::isfinite(f)) throw Error("fit ended at a point where the likelihood is not finite (" + status + ")");
    r.twice_nll = 2.0 * f;
    r.edm = newton.edm;
    std::vector<double> pg;
    detail::project_gradient(y, g, p.lo, p.hi, pg);
    r.max_projected_gradient = 0.0;
    for (double v : pg) r.max_projected_gradient = std::max(r.max_projected_gradient, std::fabs(v));
    r.converged = newton.converged;
    {
        std::ostringstream os;
        os.precision(3);
        if (r.converged)
            os << "converged: edm " << r.edm << " < " << tol;
        else
            os << "not converged: edm " << r.edm << " >= " << tol << ", max projected gradient "
               << r.max_projected_gradient << " (" << status << ")";
        r.reason = os.str();
    }

    if (options.uncertainties) {
        const std::size_t np = static_cast<std::size_t>(model.n_pars());
        const std::size_t n = p.nfree();
        r.uncertainties.assign(np, 0.0);
        r.correlations.assign(np * np, 0.0);
        for (std::size_t i = 0; i < np; ++i) r.correlations[i * np + i] = 1.0;
        if (n > 0) {
            auto h = p.hessian(y);
            std::vector<double> factor;
            double shift = detail::shifted_cholesky(h, n, factor);
            r.hessian_ok = shift == 0.0;
            auto inv = detail::cholesky_inverse(factor, n);
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
    r.n_eval = p.n_eval;
    return r;
}

}  // namespace

FitResult fit(const Model& model, const Tensor& data, const FitConfig& config, const FitOptions& options) {
    return run_fit(model, data, config.resolved(model), options);
}

FitResult fit(const Model& model, const std::vector<double>& data, const FitConfig& config,
              const FitOptions& options) {
    const auto expected = static_cast<std::size_t>(model.n_main() + model.n_aux());
    if (data.size() != expected)
        throw InputError("fit", "data",
                         "data has " + std::to_string(data.size()) + " entries but the model expects " +
                             std::to_string(expected) + " (main bins + auxdata)");
    return fit(model, model.backend()->from_host(data), config, options);
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
