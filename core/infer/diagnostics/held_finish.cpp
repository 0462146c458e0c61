// How a held fit that the batch says converged is finished (HeldFits::finish_all): the single fit's Newton
// polish (polish_batched) and basin search (each problem's search_basins, in lockstep with the others':
// routines_on_fibers.hpp), the edm on the free fit's curvature that spares the polish its Hessian, and the outcome's
// report
// (report_batched).
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "infer/diagnostics/held_fits.hpp"
#include "infer/minimize/basin_search.hpp"
#include "infer/minimize/descent.hpp"
#include "numerics/dense.hpp"

namespace hf::infer::detail {

bool HeldFits::polish_batched(const Model& model, const BoundLikelihood& data_t, const HeldFitProblem& pr,
                              const HeldSolution& sol, HessianHints* hints, HeldMinimum& h) const {
    const double tol = options_.fit.tolerance > 0 ? options_.fit.tolerance : default_tolerance(model);
    h.hp = make_problem(model, data_t, held_config(pr.held));
    Problem& hp = h.hp;
    std::vector<double>& y = h.y;
    y = hp.to_y(sol.x);
    for (std::size_t a = 0; a < hp.nfree(); ++a) y[a] = std::clamp(y[a], hp.lo[a], hp.hi[a]);
    double& f = h.f;
    NewtonOutcome& newton = h.newton;
    bool& by_free_curvature = h.by_free_curvature;
    by_free_curvature = false;
    if (hp.nfree() == 0) {
        newton.converged = true;
        newton.edm = 0.0;
        f = hp.nll(y, nullptr);
    } else {
        // Near the free minimum the free fit's Hessian is as good a stand-in for the one at y as a Hessian of this
        // batch's other problems is (the polish's hints: a parameter held one sigma up and one sigma down are two
        // sigma apart): on the exact gradient at y, an edm that stays far inside the tolerance on that curvature
        // needs no finite-difference Hessian. Anywhere else, the single fit's polish and limits (30 iterations),
        // from the batch's end point.
        std::vector<double> g;
        f = hp.nll(y, &g);
        const double edm = std::isfinite(f) ? free_curvature_edm(hp, y, g, pr.held) : HUGE_VAL;
        if (edm < 0.01 * tol) {
            newton.converged = true;
            newton.edm = edm;
            by_free_curvature = true;
        } else {
            newton = newton_polish(hp, y, f, tol, 30, hints);
        }
    }
    if (!newton.converged || !std::isfinite(f)) return false;
    // The basin search's budget is a multiple of what the local fit cost: here the batch's evaluations of this
    // problem and one Hessian, whether or not the polish needed one.
    hp.n_eval = std::max<std::int64_t>(hp.n_eval, sol.evaluations + static_cast<std::int64_t>(hp.nfree()) + 1);
    h.given = known_starts(pr);
    return true;
}

bool HeldFits::report_batched(const HeldFitProblem& pr, const HeldSolution& sol, const HeldMinimum& h,
                              HeldFit& o) const {
    const double tol = options_.fit.tolerance > 0 ? options_.fit.tolerance : default_tolerance(*h.hp.model);
    std::vector<double> g, pg;
    Problem hp = h.hp;
    const double f = hp.nll(h.y, &g);
    if (!std::isfinite(f)) return false;
    project_gradient(h.y, g, h.hp.lo, h.hp.hi, pg);
    double pg_max = 0.0;
    for (double v : pg) pg_max = std::max(pg_max, std::fabs(v));
    o.bestfit = h.hp.to_x(h.y);
    for (const auto& [i, v] : pr.held) o.bestfit[static_cast<std::size_t>(i)] = v;
    o.twice_nll = 2.0 * f;
    o.converged = true;
    o.batched = true;
    const BasinSearch& search = h.search;
    std::ostringstream os;
    os.precision(3);
    os << "converged (batched, " << sol.iterations << " iterations, then "
       << (h.by_free_curvature && !search.moved ? "the free fit's curvature" : "Newton") << "): edm " << h.newton.edm
       << " < " << tol
       << ", max projected gradient " << pg_max;
    if (search.candidates > 0)
        os << "; lowest of " << search.candidates + 1 << " starts"
           << (search.moved ? " (in another basin than the batch's)" : "");
    if (search.skipped > 0) os << "; " << search.skipped << " starts left out at the basin search's budget";
    o.reason = os.str();
    return true;
}

double HeldFits::free_curvature_edm(const Problem& hp, const std::vector<double>& y, const std::vector<double>& g,
                                     const HeldValues& held) const {
    // Only within two of the free fit's widths of its minimum (the reach of a hint between a parameter's up and
    // down shifts), in every parameter.
    constexpr double kNear = 2.0;
    if (!cov_resolved_) return HUGE_VAL;
    std::vector<double> x = hp.to_x(y);
    for (const auto& [i, v] : held) x[static_cast<std::size_t>(i)] = v;
    if (!(scaled_distance(x, free_.bestfit) <= kNear)) return HUGE_VAL;
    const Problem& p = problem_;
    const std::size_t f = p.nfree();
    // q: the projected gradient in the free problem's variables (same scales), zero on the held and bound-active
    // parameters (the set A); edm = 0.5 (q.C q - r_A.C_AA^-1 r_A) with r = C q.
    std::vector<double> q(f, 0.0);
    std::vector<char> in_a(f, 1);
    for (std::size_t a = 0; a < hp.nfree(); ++a) {
        auto it = std::find(p.free.begin(), p.free.end(), hp.free[a]);
        if (it == p.free.end()) return HUGE_VAL;
        const auto b = static_cast<std::size_t>(it - p.free.begin());
        const bool at_lo = y[a] <= hp.lo[a] && g[a] > 0.0;
        const bool at_hi = y[a] >= hp.hi[a] && g[a] < 0.0;
        if (at_lo || at_hi) continue;
        in_a[b] = 0;
        q[b] = g[a];
    }
    std::vector<double> r(f, 0.0);
    for (std::size_t a = 0; a < f; ++a)
        for (std::size_t b = 0; b < f; ++b) r[a] += cov_y_[a * f + b] * q[b];
    double edm = numerics::dot(q.data(), r.data(), f);
    std::vector<std::size_t> A;
    for (std::size_t a = 0; a < f; ++a)
        if (in_a[a]) A.push_back(a);
    if (!A.empty()) {
        const std::size_t m = A.size();
        std::vector<double> caa(m * m), factor, ra(m);
        for (std::size_t i = 0; i < m; ++i) {
            ra[i] = r[A[i]];
            for (std::size_t j = 0; j < m; ++j) caa[i * m + j] = cov_y_[A[i] * f + A[j]];
        }
        if (numerics::shifted_cholesky(caa, m, factor) != 0.0) return HUGE_VAL;
        const auto w = numerics::cholesky_solve(factor, m, ra);
        edm -= numerics::dot(ra.data(), w.data(), m);
    }
    edm *= 0.5;
    return std::isfinite(edm) && edm >= 0.0 ? edm : HUGE_VAL;
}

}  // namespace hf::infer::detail
