#include "infer/minimize/stop_rules.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "infer/minimize/basin_search.hpp"
#include "infer/minimize/problem.hpp"
#include "numerics/dense.hpp"

namespace hf::infer::detail {

namespace {

// A basin search's descent whose quadratic model (f + g.d / 2 at the full step, d from a history of
// kPredictFrom pairs or more) ends above its known minimum by kPredictedAbove is in a higher basin: it ends
// there, returning the known minimum, instead of descending to the bottom of a basin that is not kept.
// Trade-off: a rare wrong prediction leaves a toy above a single fit's minimum
// (docs/decisions/batch-fit-basin-search-early-end.md).
constexpr int kPredictFrom = 3;
constexpr double kPredictedAbove = 0.05;  // NLL

bool below_known(const Lane& s, const KnownMinimum& kn) {
    return s.f < kn.f - 1e-9 * std::max(1.0, std::fabs(kn.f));
}

}  // namespace

ProjectedGradientStop::ProjectedGradientStop(const Problem& p, double gtol, std::vector<KnownMinimum>* known,
                                             const std::vector<std::size_t>& multimodal,
                                             const std::vector<std::size_t>* basin_multimodal)
    : p_(p), gtol_(gtol), known_(known), multimodal_(multimodal), basin_multimodal_(basin_multimodal) {}

// A descent from another start ends at the minimum its problem already has (never below it): once it has
// settled there, and a basin search's as soon as it is back in that minimum's basin (as a single fit's search
// does, basin_search.cpp).
LaneStatus ProjectedGradientStop::before_direction(int k, Lane& s, const std::vector<double>&) {
    if (s.pg_max < gtol_) return LaneStatus::converged;
    if (!known_) return LaneStatus::running;
    KnownMinimum& kn = (*known_)[static_cast<std::size_t>(k)];
    if (kn.y.empty() || below_known(s, kn)) return LaneStatus::running;
    const bool back = basin_multimodal_ && kn.moved >= 0 &&
                      back_in_basin(s.y, kn.y, *basin_multimodal_, static_cast<std::size_t>(kn.moved));
    if (back || settled_at(p_, s.y, s.pg_max, kn.y, multimodal_)) {
        kn.reached = true;
        return LaneStatus::converged;
    }
    return LaneStatus::running;
}

LaneStatus ProjectedGradientStop::after_direction(int k, Lane& s, Preconditioner&) {
    if (!known_ || !basin_multimodal_) return LaneStatus::running;
    KnownMinimum& kn = (*known_)[static_cast<std::size_t>(k)];
    const bool higher = s.mem.size() >= kPredictFrom && s.f + 0.5 * s.gd > kn.f + kPredictedAbove;
    if (kn.y.empty() || !higher) return LaneStatus::running;
    kn.reached = true;
    return LaneStatus::converged;
}

// Rounding-limited: five steps in a row no longer change the objective.
LaneStatus ProjectedGradientStop::after_step(int, Lane& s, double df, bool) {
    s.stall = df <= 1e-14 * std::max(1.0, std::fabs(s.f)) ? s.stall + 1 : 0;
    return s.stall >= 5 ? judged(s) : LaneStatus::running;
}

LaneStatus ProjectedGradientStop::when_stuck(int, Lane& s, Stuck) { return judged(s); }

// Where it stopped moving: a minimum when the projected gradient is within a hundred tolerances of zero.
LaneStatus ProjectedGradientStop::judged(const Lane& s) {
    project_gradient(s.y, s.g, *s.lo, *s.hi, pg_);
    return max_abs(pg_) < 100 * gtol_ ? LaneStatus::converged : LaneStatus::failed;
}

// The quasi-Newton step d = -B g (B: M updated with the last steps) predicts the remaining decrease
// 0.5 g.B g = -0.5 g.d. Below the tolerance it is confirmed with M alone: the updates must not talk the
// estimate down.
LaneStatus EdmStop::after_direction(int k, Lane& s, Preconditioner& m) {
    s.edm = -0.5 * s.gd;
    if (!(s.edm >= 0.0) || !std::isfinite(s.edm)) return LaneStatus::failed;
    if (s.edm >= tol_) return LaneStatus::running;
    const std::size_t nf = s.g.size();
    pg_.resize(nf);
    for (std::size_t a = 0; a < nf; ++a) pg_[a] = s.free[a] ? s.g[a] : 0.0;
    mg_ = pg_;
    if (m.apply_alone(k, s, mg_)) s.edm = std::max(s.edm, 0.5 * numerics::dot(pg_.data(), mg_.data(), nf));
    return s.edm < tol_ ? LaneStatus::converged : LaneStatus::running;
}

// No measurable change in the objective any more: as good as rounding allows.
LaneStatus EdmStop::after_step(int, Lane& s, double df, bool armijo) {
    const bool flat = armijo && df <= 4 * std::numeric_limits<double>::epsilon() * std::fabs(s.f);
    return flat && s.edm < 1e3 * tol_ ? LaneStatus::converged : LaneStatus::running;
}

// A projected step that vanished leaves nothing to gain along it; a failed line search is a failure.
LaneStatus EdmStop::when_stuck(int, Lane& s, Stuck why) {
    if (why == Stuck::no_decrease && s.edm < 1e3 * tol_) return LaneStatus::converged;
    return LaneStatus::failed;
}

}  // namespace hf::infer::detail
