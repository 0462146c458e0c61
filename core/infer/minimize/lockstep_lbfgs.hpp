// The one lockstep L-BFGS engine: K problems in scaled variables (problem.hpp), each a projected L-BFGS descent,
// stepped together so that every step evaluates all running problems in one batched likelihood call. The toys'
// fits (batch_fit.cpp) and the diagnostics' held fits (held_batch.cpp) are this engine with different parts:
//   - a Preconditioner, the recursion's initial inverse Hessian (the Asimov curvature shared by a batch of toys,
//     each toy's own Fisher information, or the free fit's covariance restricted by a Schur complement);
//   - a LaneStopRule (projected gradient, edm, a known minimum reached);
//   - LockstepRules, the few switches of the line search and the memory.
// A parameter held at a value is a bound with lo == hi: it is never free and never moves.
// The per-problem arithmetic runs on the host; the backend evaluates likelihoods and gradients only.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "infer/minimize/lbfgs_history.hpp"

namespace hf::infer::detail {

enum class LaneStatus { running, converged, failed };

// One problem of the engine.
struct Lane {
    std::vector<double> y, g;  // point and gradient, scaled variables [F]
    double f = 0.0;            // NLL at y
    const std::vector<double>* lo = nullptr;  // bounds [F]; a held component has lo == hi
    const std::vector<double>* hi = nullptr;
    LaneStatus status = LaneStatus::running;
    LbfgsHistory mem;
    int steps = 0;       // accepted steps
    int iterations = 0;  // directions taken
    std::int64_t evaluations = 0;
    double pg_max = 0.0;  // largest projected-gradient component at y
    double edm = std::numeric_limits<double>::infinity();  // set by stop rules that estimate it
    int stall = 0;  // steps in a row that no longer changed the objective (stop rules' count)
    // the direction being computed: free = not bound-active (held components never are)
    std::vector<char> free;
    bool all_free = true;
    double alpha[LbfgsHistory::kMaxMemory] = {};
    // line search
    std::vector<double> d, trial;
    double t = 1.0;
    double gd = 0.0;
};

// NLL and scaled gradients [n, F] of lanes idx at the points ys.
class LaneEvaluator {
public:
    virtual ~LaneEvaluator() = default;
    virtual void evaluate(const std::vector<int>& idx, const std::vector<const std::vector<double>*>& ys,
                          std::vector<double>& f, std::vector<double>& g) = 0;
};

// The initial inverse Hessian M of the recursion, on each lane's free components.
class Preconditioner {
public:
    virtual ~Preconditioner() = default;
    // Before the directions of a step, with every running lane's free set and pg_max known.
    virtual void prepare(const std::vector<int>& running, std::vector<Lane>& lanes) { (void)running, (void)lanes; }
    // The lane's free set changed (it is set anew at every step, and by LockstepRules::hold_outward).
    virtual void free_set_changed(int k, const Lane& lane) { (void)k, (void)lane; }
    // lanes[ks[c]].d <- M d on its free components, for count <= 4 lanes; applied[c] false where M was not
    // applied (the recursion then uses a multiple of the identity). The history's pairs are in lane.mem.
    virtual void apply(const int* ks, int count, std::vector<Lane>& lanes, bool* applied) = 0;
    // q <- M q for one lane, the matrix alone (for a stop rule's check); false where there is none.
    virtual bool apply_alone(int k, const Lane& lane, std::vector<double>& q) {
        (void)k, (void)lane, (void)q;
        return false;
    }
    // After lane k accepted a step (lane.steps counts it, lane.t is its length).
    virtual void step_taken(int k, const Lane& lane) { (void)k, (void)lane; }
};

// When a lane ends.
class LaneStopRule {
public:
    virtual ~LaneStopRule() = default;
    enum class Stuck { no_decrease, line_search_failed };
    // Before a direction, with lane.pg_max set; pg is the projected gradient.
    virtual LaneStatus before_direction(int k, Lane& lane, const std::vector<double>& pg) = 0;
    // After its direction (lane.d, lane.gd) from the gradient's own free set.
    virtual LaneStatus after_direction(int k, Lane& lane, Preconditioner& m) {
        (void)k, (void)lane, (void)m;
        return LaneStatus::running;
    }
    // After an accepted step that decreased the NLL by df (armijo: by the sufficient-decrease test).
    virtual LaneStatus after_step(int k, Lane& lane, double df, bool armijo) = 0;
    // When no step could be found.
    virtual LaneStatus when_stuck(int k, Lane& lane, Stuck why) = 0;
};

struct LockstepRules {
    int memory = LbfgsHistory::kMaxMemory;  // L-BFGS pairs kept
    int max_iterations = 1000;
    // A direction whose step does not descend, recomputed without the history: through M (true) or from the
    // scaled identity (false).
    bool restart_with_matrix = false;
    // Components at a bound that the direction would leave join the bound-active set and the direction is
    // recomputed (a few rounds): the correlations in M can turn d outward where the gradient points inward.
    bool hold_outward = false;
    // A step along which the clamped trial point gains nothing is shortened to the first bound it meets; where
    // nothing is left, LaneStopRule::when_stuck(no_decrease) decides.
    bool shorten_to_box = false;
    // Near a minimum (lane.edm < 1e-4), a step whose directional derivative fell by half and whose NLL rose no
    // more than its rounding noise is accepted too: the decrease can be below that noise (Poisson constraints
    // with tau ~ 1e11).
    bool accept_by_gradient = false;
};

// Runs every lane from its point (y, bounds, and status set; f and g are evaluated here) to its end. Returns the
// number of lockstep iterations.
int run_lockstep_lbfgs(std::vector<Lane>& lanes, LaneEvaluator& ev, Preconditioner& m, LaneStopRule& stop,
                       const LockstepRules& rules);

}  // namespace hf::infer::detail
