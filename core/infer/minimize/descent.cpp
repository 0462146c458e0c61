// The local minimiser of a fit (see descent.hpp): NLopt's quasi-Newton descents and the projected Newton polish.
#include "infer/minimize/descent.hpp"

#include <nlopt.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "numerics/dense.hpp"

namespace hf::infer {

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

namespace detail {

namespace {

struct NloptContext {
    Problem* problem;
    double offset;  // NLL at the start: NLopt sees values of order one whatever the likelihood's size
    double best_f = std::numeric_limits<double>::infinity();
    std::vector<double> best_y;
    const StopRule* stop = nullptr;
    nlopt::opt* opt = nullptr;
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
        if (ctx->stop && *ctx->stop && (*ctx->stop)(ctx->best_y, g)) ctx->opt->force_stop();
    }
    return f;
}

}  // namespace

const char* quasi_newton_name(QuasiNewton alg) { return alg == QuasiNewton::lbfgs ? "LD_LBFGS" : "LD_SLSQP"; }

std::string quasi_newton(Problem& p, QuasiNewton which, std::vector<double>& y, double& f, int max_eval,
                         const StopRule& stop) {
    const unsigned n = static_cast<unsigned>(p.nfree());
    const nlopt::algorithm alg = which == QuasiNewton::lbfgs ? nlopt::LD_LBFGS : nlopt::LD_SLSQP;
    NloptContext ctx{&p, f, 0.0, y};
    ctx.best_f = 0.0;
    ctx.best_y = y;
    nlopt::opt opt(alg, n);
    ctx.stop = &stop;
    ctx.opt = &opt;
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
    } catch (const nlopt::forced_stop&) {
        status = "stopped: back in a basin already known";
    } catch (const nlopt::roundoff_limited&) {
        status = "nlopt roundoff limited";
    } catch (const std::exception& e) {
        status = std::string("nlopt: ") + e.what();
    }
    y = ctx.best_y;
    f = ctx.offset + ctx.best_f;
    return status;
}

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
            shift = numerics::shifted_cholesky(hj, m, factor);
            d = numerics::cholesky_solve(factor, m, gj);
            for (auto& v : d) v = -v;
            return -0.5 * numerics::dot(gj.data(), d.data(), m);
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

}  // namespace detail
}  // namespace hf::infer
