// K fits of one likelihood, each with some of its parameters held at given values, in lockstep: one
// Model::logpdf evaluation of every running problem per step. Projected L-BFGS whose initial inverse Hessian
// is the free fit's covariance restricted to the problem's free parameters,
//     M = C_FF - C_FA C_AA^-1 C_AF      (A = held and bound-active parameters, F = the rest),
// the exact inverse of the Hessian block H_FF at the free minimum (Schur complement), so that a fit displaced
// by a fraction of a standard deviation converges in a few steps, and far ones still take Newton-sized steps.
// Convergence: the quasi-Newton estimate of the remaining NLL decrease, 0.5 g^T B g with B the inverse-Hessian
// estimate (M updated by the last steps), below the tolerance.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "hfcore/backend.hpp"
#include "infer/minimize/held_batch.hpp"
#include "infer/minimize/lbfgs_steps.hpp"
#include "numerics/dense.hpp"

namespace hf::infer::detail {

using numerics::cholesky_solve, numerics::dot, numerics::shifted_cholesky;

namespace {

constexpr std::size_t kMemory = 8;
constexpr int kMaxIterations = 300;

struct HeldState {
    std::vector<double> y, g, d;
    double f = 0.0;
    std::vector<char> held;  // [F]
    std::vector<char> active;  // held or at a bound with the gradient pushing outward
    std::vector<std::size_t> active_list;
    std::vector<double> caa_factor;  // Cholesky factor of C_AA
    std::deque<std::vector<double>> s_mem, y_mem;
    std::deque<double> rho;
    double edm = std::numeric_limits<double>::infinity();
    double t = 1.0, gd = 0.0;
    int iterations = 0;
    std::int64_t evaluations = 1;  // of the NLL and gradient (the start's included)
    int status = 0;  // 0 running, 1 converged, 2 failed
};

class HeldSolver {
public:
    HeldSolver(const Model& model, const BoundLikelihood& data, Problem& p, const std::vector<double>& cov)
        : model_(model), data_(data), p_(p), cov_(cov), f_(p.nfree()) {}

    // The parameters of state k: the scaled point, with the held ones at their exact values.
    std::vector<double> to_x(const std::vector<double>& y, const HeldStart& start) const {
        std::vector<double> x = p_.to_x(y);
        for (const auto& [a, v] : start.held) x[static_cast<std::size_t>(p_.free[a])] = v;
        return x;
    }

    // NLL and scaled gradients of the points ys (one per listed problem).
    void evaluate(const std::vector<std::size_t>& idx, const std::vector<const std::vector<double>*>& ys,
                  const std::vector<HeldStart>& starts, std::vector<double>& f, std::vector<double>& g) {
        auto& be = *model_.backend();
        const auto n = static_cast<std::int64_t>(idx.size());
        const std::int64_t np = model_.n_pars();
        std::vector<double> pars(static_cast<std::size_t>(n * np));
        for (std::int64_t j = 0; j < n; ++j) {
            auto x = to_x(*ys[j], starts[idx[j]]);
            std::copy(x.begin(), x.end(), pars.begin() + j * np);
        }
        Tensor grad;
        Tensor lp = data_.logpdf(be.from_host(pars, {n, np}), &grad);
        const auto lph = be.to_host_double(lp);
        const auto gh = be.to_host_double(grad);
        f.resize(static_cast<std::size_t>(n));
        g.assign(static_cast<std::size_t>(n) * f_, 0.0);
        for (std::int64_t j = 0; j < n; ++j) {
            f[j] = -lph[j];
            for (std::size_t a = 0; a < f_; ++a) g[j * f_ + a] = -gh[j * np + p_.free[a]] * p_.scale[a];
        }
    }

    // Active set and the Cholesky factor of C_AA for state s at its current point.
    void update_active(HeldState& s) const {
        s.active = s.held;
        for (std::size_t a = 0; a < f_; ++a) {
            if (s.held[a]) continue;
            const bool at_lo = s.y[a] <= p_.lo[a] && s.g[a] > 0.0;
            const bool at_hi = s.y[a] >= p_.hi[a] && s.g[a] < 0.0;
            s.active[a] = at_lo || at_hi;
        }
        factor_active(s);
    }

    // Components at a bound whose step d leads out of the box join the active set (their pg zeroed): clamped
    // away, they would leave a projected step that need not descend (the correlations in B turn d outward
    // where the gradient alone points inward). True when any did.
    bool hold_outward(HeldState& s, std::vector<double>& pg) const {
        bool any = false;
        for (std::size_t a = 0; a < f_; ++a) {
            if (s.active[a]) continue;
            if ((s.y[a] <= p_.lo[a] && s.d[a] < 0.0) || (s.y[a] >= p_.hi[a] && s.d[a] > 0.0)) {
                s.active[a] = 1;
                pg[a] = 0.0;
                any = true;
            }
        }
        if (any) factor_active(s);
        return any;
    }

    void factor_active(HeldState& s) const {
        s.active_list.clear();
        for (std::size_t a = 0; a < f_; ++a)
            if (s.active[a]) s.active_list.push_back(a);
        const std::size_t m = s.active_list.size();
        std::vector<double> caa(m * m);
        for (std::size_t r = 0; r < m; ++r)
            for (std::size_t c = 0; c < m; ++c) caa[r * m + c] = cov_[s.active_list[r] * f_ + s.active_list[c]];
        shifted_cholesky(caa, m, s.caa_factor);
    }

    // M q for q zero on the active set (the result is too).
    std::vector<double> apply_m(const HeldState& s, const std::vector<double>& q) const {
        std::vector<double> r(f_, 0.0);
        for (std::size_t a = 0; a < f_; ++a) {
            if (q[a] == 0.0) continue;
            const double qa = q[a];
            const double* row = cov_.data() + a * f_;  // C is symmetric: row a is column a
            for (std::size_t b = 0; b < f_; ++b) r[b] += row[b] * qa;
        }
        const std::size_t m = s.active_list.size();
        if (m > 0) {
            std::vector<double> ra(m);
            for (std::size_t j = 0; j < m; ++j) ra[j] = r[s.active_list[j]];
            const auto w = cholesky_solve(s.caa_factor, m, ra);
            for (std::size_t b = 0; b < f_; ++b) {
                double c = 0.0;
                for (std::size_t j = 0; j < m; ++j) c += cov_[b * f_ + s.active_list[j]] * w[j];
                r[b] -= c;
            }
        }
        for (std::size_t a = 0; a < f_; ++a)
            if (s.active[a]) r[a] = 0.0;
        return r;
    }

    // L-BFGS two-loop recursion on the free components with M as the initial inverse Hessian.
    std::vector<double> direction(const HeldState& s, const std::vector<double>& pg) const {
        std::vector<double> q = pg;
        auto masked_dot = [&](const std::vector<double>& u, const std::vector<double>& v) {
            double r = 0.0;
            for (std::size_t a = 0; a < f_; ++a)
                if (!s.active[a]) r += u[a] * v[a];
            return r;
        };
        const int m = static_cast<int>(s.s_mem.size());
        std::vector<double> alpha(static_cast<std::size_t>(m));
        for (int k = m - 1; k >= 0; --k) {
            alpha[k] = s.rho[k] * masked_dot(s.s_mem[k], q);
            for (std::size_t a = 0; a < f_; ++a)
                if (!s.active[a]) q[a] -= alpha[k] * s.y_mem[k][a];
        }
        std::vector<double> r = apply_m(s, q);
        for (int k = 0; k < m; ++k) {
            const double beta = s.rho[k] * masked_dot(s.y_mem[k], r);
            for (std::size_t a = 0; a < f_; ++a)
                if (!s.active[a]) r[a] += s.s_mem[k][a] * (alpha[k] - beta);
        }
        for (auto& v : r) v = -v;
        return r;
    }

private:
    const Model& model_;
    BoundLikelihood data_;
    Problem& p_;
    const std::vector<double>& cov_;
    std::size_t f_;
};

// The longest step along s.d that keeps every free component inside its bounds (0 if one at a bound is turned
// out of the box: hold_outward keeps those out of d).
double step_to_box(const HeldState& s, std::size_t nf, const Problem& p) {
    double t = std::numeric_limits<double>::infinity();
    for (std::size_t a = 0; a < nf; ++a) {
        if (s.active[a] || s.d[a] == 0.0) continue;
        const double room = s.d[a] < 0.0 ? (s.y[a] - p.lo[a]) / -s.d[a] : (p.hi[a] - s.y[a]) / s.d[a];
        t = std::min(t, std::max(room, 0.0));
    }
    return std::isfinite(t) ? t : 0.0;
}

void forget(HeldState& s) {
    s.s_mem.clear();
    s.y_mem.clear();
    s.rho.clear();
}

// The quasi-Newton step d = -B pg and g.d; from M alone when the memory's step does not descend.
void set_direction(const HeldSolver& solver, HeldState& s, const std::vector<double>& pg) {
    s.d = solver.direction(s, pg);
    s.gd = dot(s.d.data(), s.g.data(), s.g.size());
    if (!(s.gd < 0.0) && !s.s_mem.empty()) {
        forget(s);
        s.d = solver.direction(s, pg);
        s.gd = dot(s.d.data(), s.g.data(), s.g.size());
    }
}

}  // namespace

std::vector<HeldSolution> solve_held_batch(const Model& model, const BoundLikelihood& data, Problem& p,
                                               const std::vector<double>& cov_y,
                                               const std::vector<HeldStart>& problems, double tol) {
    const std::size_t K = problems.size(), nf = p.nfree();
    HeldSolver solver(model, data, p, cov_y);
    std::vector<HeldState> st(K);
    std::vector<HeldSolution> out(K);
    if (K == 0) return out;
    {
        std::vector<std::size_t> idx(K);
        std::vector<const std::vector<double>*> ys(K);
        for (std::size_t k = 0; k < K; ++k) {
            HeldState& s = st[k];
            s.y = problems[k].y;
            s.held.assign(nf, 0);
            for (const auto& [a, v] : problems[k].held) {
                s.held[a] = 1;
                s.y[a] = (v - p.x0[p.free[a]]) / p.scale[a];  // only for the bookkeeping of steps
            }
            idx[k] = k;
            ys[k] = &s.y;
        }
        std::vector<double> f, g;
        solver.evaluate(idx, ys, problems, f, g);
        for (std::size_t k = 0; k < K; ++k) {
            st[k].f = f[k];
            st[k].g.assign(g.begin() + static_cast<std::ptrdiff_t>(k * nf), g.begin() + static_cast<std::ptrdiff_t>((k + 1) * nf));
            if (!std::isfinite(f[k])) st[k].status = 2;
        }
    }

    std::vector<double> pg(nf);
    for (int it = 0; it < kMaxIterations; ++it) {
        std::vector<std::size_t> running;
        for (std::size_t k = 0; k < K; ++k) {
            HeldState& s = st[k];
            if (s.status != 0) continue;
            solver.update_active(s);
            for (std::size_t a = 0; a < nf; ++a) pg[a] = s.active[a] ? 0.0 : s.g[a];
            // The quasi-Newton step d = -B g (B: M updated with the last steps) predicts the remaining decrease
            // 0.5 g.B g = -0.5 g.d; without a usable memory B is M itself.
            set_direction(solver, s, pg);
            s.edm = -0.5 * s.gd;
            if (!(s.edm >= 0.0) || !std::isfinite(s.edm)) {
                s.status = 2;
                continue;
            }
            if (s.edm < tol) {
                // Confirmed with M alone: the updates must not talk the estimate down.
                const auto mg = solver.apply_m(s, pg);
                s.edm = std::max(s.edm, 0.5 * dot(pg.data(), mg.data(), nf));
                if (s.edm < tol) {
                    s.status = 1;
                    continue;
                }
            }
            // The step only (convergence was judged above on the gradient's own active set): held at the bounds
            // it would leave, a few times at most (each round can turn another component outward).
            for (int round = 0; round < 4 && solver.hold_outward(s, pg); ++round) set_direction(solver, s, pg);
            s.t = 1.0;
            ++s.iterations;
            running.push_back(k);
        }
        if (running.empty()) break;

        // Backtracking line search of every running problem, evaluated together.
        std::vector<std::size_t> pending = running;
        std::vector<std::vector<double>> trial(K);
        for (int ls = 0; ls < 40 && !pending.empty(); ++ls) {
            std::vector<const std::vector<double>*> ys;
            for (std::size_t k : pending) {
                const HeldState& s = st[k];
                trial[k] = s.y;
                for (std::size_t a = 0; a < nf; ++a)
                    if (!s.active[a]) trial[k][a] = std::clamp(s.y[a] + s.t * s.d[a], p.lo[a], p.hi[a]);
                ys.push_back(&trial[k]);
            }
            std::vector<double> f, g;
            solver.evaluate(pending, ys, problems, f, g);
            for (std::size_t k : pending) ++st[k].evaluations;
            std::vector<std::size_t> again;
            for (std::size_t j = 0; j < pending.size(); ++j) {
                const std::size_t k = pending[j];
                HeldState& s = st[k];
                const double* gn = g.data() + j * nf;
                double decrease = 0.0, slope_new = 0.0;  // g.s and g_new.s along the projected step s
                for (std::size_t a = 0; a < nf; ++a) {
                    const double step = trial[k][a] - s.y[a];
                    decrease += s.g[a] * step;
                    slope_new += gn[a] * step;
                }
                const double fn = f[j];
                // Near the minimum the decrease can be below the rounding noise of the NLL (Poisson constraints
                // with tau ~ 1e11): there a step that brings the directional derivative down is accepted too.
                const double noise = 1e-6 * std::max(1.0, std::fabs(s.f));
                const bool armijo = std::isfinite(fn) && fn <= s.f + 1e-4 * std::min(decrease, 0.0);
                const bool by_gradient = s.edm < 1e-4 && std::isfinite(fn) &&
                                         std::fabs(slope_new) <= 0.5 * std::fabs(decrease) && fn <= s.f + noise;
                if (!(decrease < 0.0)) {
                    // A step that crossed a bound and lost the clamped components' share of the descent: from the
                    // first bound on (or half the step), it moves along d itself and descends.
                    const double t_box = s.gd < 0.0 ? step_to_box(s, nf, p) : 0.0;
                    if (t_box > 0.0 && t_box < s.t) {
                        s.t = std::min(t_box, 0.5 * s.t);
                        again.push_back(k);
                        continue;
                    }
                    // The projected step vanished: nothing more to gain along it.
                    s.status = s.edm < 1e3 * tol ? 1 : 2;
                    continue;
                }
                if (armijo || by_gradient) {
                    std::vector<double> sv(nf), yv(nf);
                    for (std::size_t a = 0; a < nf; ++a) {
                        sv[a] = trial[k][a] - s.y[a];
                        yv[a] = gn[a] - s.g[a];
                    }
                    lbfgs_push(s.s_mem, s.y_mem, s.rho, std::move(sv), std::move(yv), kMemory);
                    const double df = s.f - fn;
                    s.y = trial[k];
                    s.f = fn;
                    s.g.assign(gn, gn + nf);
                    // No measurable change in the objective any more: as good as rounding allows.
                    if (armijo && df <= 4 * std::numeric_limits<double>::epsilon() * std::fabs(fn) && s.edm < 1e3 * tol)
                        s.status = 1;
                } else {
                    s.t = backtrack_step(s.t, s.f, fn, s.gd);
                    again.push_back(k);
                }
            }
            pending.swap(again);
        }
        for (std::size_t k : pending) {
            // The line search failed: once more from the preconditioned gradient, then give up.
            HeldState& s = st[k];
            if (!s.s_mem.empty())
                forget(s);
            else
                s.status = 2;
        }
    }
    for (std::size_t k = 0; k < K; ++k) {
        out[k].x = solver.to_x(st[k].y, problems[k]);
        out[k].f = st[k].f;
        out[k].edm = st[k].edm;
        out[k].converged = st[k].status == 1;
        out[k].iterations = st[k].iterations;
        out[k].evaluations = st[k].evaluations;
    }
    return out;
}

}  // namespace hf::infer::detail
