#include "infer/minimize/lockstep_lbfgs.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "infer/minimize/problem.hpp"
#include "numerics/lanes.hpp"

namespace hf::infer::detail {

namespace {

namespace lanes = numerics::lanes;

constexpr int kChunk = lanes::kMaxVectors;  // lanes whose initial matrices are applied together

// The next trial step of a backtracking line search after step t failed with value fn (f0 and slope gd at
// t = 0): the minimum of the quadratic through them, kept within [0.1, 0.5] of t (half of t when fn is not finite).
double backtrack_step(double t, double f0, double fn, double gd) {
    double tn = 0.5 * t;
    if (std::isfinite(fn)) {
        const double denom = 2.0 * (fn - f0 - t * gd);
        if (denom > 0) tn = std::fmin(std::fmax(-gd * t * t / denom, 0.1 * t), 0.5 * t);
    }
    return tn;
}

class Engine {
public:
    Engine(std::vector<Lane>& lanes, LaneEvaluator& ev, Preconditioner& m, LaneStopRule& stop,
           const LockstepRules& rules)
        : lanes_(lanes), ev_(ev), m_(m), stop_(stop), rules_(rules) {}

    int run() {
        const std::size_t K = lanes_.size();
        if (K == 0) return 0;
        nf_ = lanes_[0].y.size();
        evaluate_starts();
        if (nf_ == 0)
            for (auto& s : lanes_)
                if (s.status == LaneStatus::running) s.status = LaneStatus::converged;
        int it = 0;
        for (; it < rules_.max_iterations; ++it) {
            if (!choose_running()) break;
            m_.prepare(running_, lanes_);
            for (std::size_t c0 = 0; c0 < running_.size(); c0 += kChunk)
                directions(running_.data() + c0,
                           static_cast<int>(std::min<std::size_t>(kChunk, running_.size() - c0)));
            judge_directions();
            line_search();
        }
        return it;
    }

private:
    void evaluate_starts() {
        std::vector<int> idx(lanes_.size());
        std::iota(idx.begin(), idx.end(), 0);
        ys_.clear();
        for (auto& s : lanes_) {
            s.mem.set_memory(rules_.memory);
            ys_.push_back(&s.y);
        }
        ev_.evaluate(idx, ys_, f_, g_);
        for (std::size_t k = 0; k < lanes_.size(); ++k) {
            Lane& s = lanes_[k];
            s.f = f_[k];
            s.g.assign(g_.begin() + static_cast<std::ptrdiff_t>(k * nf_),
                       g_.begin() + static_cast<std::ptrdiff_t>((k + 1) * nf_));
            s.evaluations = 1;
            if (!std::isfinite(f_[k])) s.status = LaneStatus::failed;
        }
    }

    // The running lanes' free sets; stop rules that judge the point alone end lanes here. False when none runs.
    bool choose_running() {
        running_.clear();
        for (std::size_t k = 0; k < lanes_.size(); ++k) {
            Lane& s = lanes_[k];
            if (s.status != LaneStatus::running) continue;
            project_gradient(s.y, s.g, *s.lo, *s.hi, pg_);
            s.pg_max = max_abs(pg_);
            s.status = stop_.before_direction(static_cast<int>(k), s, pg_);
            if (s.status != LaneStatus::running) continue;
            s.free.resize(nf_);
            bool all_free = true;
            for (std::size_t i = 0; i < nf_; ++i) {
                const bool free = pg_[i] != 0.0 || (s.y[i] > (*s.lo)[i] && s.y[i] < (*s.hi)[i]);
                s.free[i] = free;
                all_free = all_free && free;
            }
            s.all_free = all_free;
            m_.free_set_changed(static_cast<int>(k), s);
            running_.push_back(static_cast<int>(k));
        }
        return !running_.empty();
    }

    // The directions of count <= kChunk lanes: their first loops, their initial matrices together (each row of
    // a shared matrix read once for all of them), their second loops.
    void directions(const int* ks, int count) {
        bool applied[kChunk] = {};
        for (int c = 0; c < count; ++c) {
            Lane& s = lanes_[static_cast<std::size_t>(ks[c])];
            lbfgs_first_loop(s.mem, s.g, s.free, s.all_free, s.d, s.alpha);
        }
        m_.apply(ks, count, lanes_, applied);
        for (int c = 0; c < count; ++c) {
            Lane& s = lanes_[static_cast<std::size_t>(ks[c])];
            lbfgs_second_loop(s.mem, s.free, s.all_free, applied[c], s.d, s.alpha);
            s.gd = lanes::dot(s.d.data(), s.g.data(), nf_);
            if (!(s.gd < 0.0)) restart(ks[c]);
            s.t = 1.0;
        }
    }

    // A direction that does not descend: recomputed without the history.
    void restart(int k) {
        Lane& s = lanes_[static_cast<std::size_t>(k)];
        if (rules_.restart_with_matrix) {
            if (s.mem.size() == 0) return;
            s.mem.clear();
            one_direction(k);
            return;
        }
        s.mem.clear();
        lbfgs_first_loop(s.mem, s.g, s.free, s.all_free, s.d, s.alpha);
        lbfgs_second_loop(s.mem, s.free, s.all_free, false, s.d, s.alpha);
        s.gd = lanes::dot(s.d.data(), s.g.data(), nf_);
    }

    void one_direction(int k) {
        Lane& s = lanes_[static_cast<std::size_t>(k)];
        bool applied = false;
        lbfgs_first_loop(s.mem, s.g, s.free, s.all_free, s.d, s.alpha);
        m_.apply(&k, 1, lanes_, &applied);
        lbfgs_second_loop(s.mem, s.free, s.all_free, applied, s.d, s.alpha);
        s.gd = lanes::dot(s.d.data(), s.g.data(), nf_);
    }

    // Stop rules that judge the direction; then (LockstepRules::hold_outward) the bounds the step would leave.
    void judge_directions() {
        std::size_t kept = 0;
        for (int k : running_) {
            Lane& s = lanes_[static_cast<std::size_t>(k)];
            s.status = stop_.after_direction(k, s, m_);
            if (s.status != LaneStatus::running) continue;
            for (int round = 0; round < 4 && rules_.hold_outward && hold_outward(k); ++round) {
                one_direction(k);
                if (!(s.gd < 0.0)) restart(k);
            }
            s.t = 1.0;
            ++s.iterations;
            running_[kept++] = k;
        }
        running_.resize(kept);
    }

    // Free components at a bound that the direction leads out of the box leave the free set. True when any did.
    bool hold_outward(int k) {
        Lane& s = lanes_[static_cast<std::size_t>(k)];
        bool any = false;
        for (std::size_t i = 0; i < nf_; ++i) {
            if (!s.free[i]) continue;
            if ((s.y[i] <= (*s.lo)[i] && s.d[i] < 0.0) || (s.y[i] >= (*s.hi)[i] && s.d[i] > 0.0)) {
                s.free[i] = 0;
                s.all_free = false;
                any = true;
            }
        }
        if (any) m_.free_set_changed(k, s);
        return any;
    }

    // The longest step along d that keeps every free component inside its bounds.
    double step_to_box(const Lane& s) const {
        double t = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < nf_; ++i) {
            if (!s.free[i] || s.d[i] == 0.0) continue;
            const double room = s.d[i] < 0.0 ? (s.y[i] - (*s.lo)[i]) / -s.d[i] : ((*s.hi)[i] - s.y[i]) / s.d[i];
            t = std::min(t, std::max(room, 0.0));
        }
        return std::isfinite(t) ? t : 0.0;
    }

    // Backtracking line search of every running lane, evaluated together.
    void line_search() {
        pending_ = running_;
        sv_.resize(nf_);
        yv_.resize(nf_);
        for (int ls = 0; ls < 40 && !pending_.empty(); ++ls) {
            ys_.clear();
            for (int k : pending_) {
                Lane& s = lanes_[static_cast<std::size_t>(k)];
                s.trial.resize(nf_);
                for (std::size_t i = 0; i < nf_; ++i)
                    s.trial[i] = std::clamp(s.y[i] + s.t * s.d[i], (*s.lo)[i], (*s.hi)[i]);
                ys_.push_back(&s.trial);
            }
            ev_.evaluate(pending_, ys_, f_, g_);
            again_.clear();
            for (std::size_t j = 0; j < pending_.size(); ++j) {
                const int k = pending_[j];
                Lane& s = lanes_[static_cast<std::size_t>(k)];
                ++s.evaluations;
                if (!trial_step(k, s, f_[j], g_.data() + j * nf_)) again_.push_back(k);
            }
            pending_.swap(again_);
        }
        for (int k : pending_) {
            // No step found: once more without the history, then give up.
            Lane& s = lanes_[static_cast<std::size_t>(k)];
            if (s.mem.size() > 0) s.mem.clear();
            else s.status = stop_.when_stuck(k, s, LaneStopRule::Stuck::line_search_failed);
        }
    }

    // Judges lane k's trial point (NLL fn, gradient gn): false when the line search goes on.
    bool trial_step(int k, Lane& s, double fn, const double* gn) {
        for (std::size_t i = 0; i < nf_; ++i) sv_[i] = s.trial[i] - s.y[i];
        const double decrease = lanes::dot(s.g.data(), sv_.data(), nf_);
        if (rules_.shorten_to_box && !(decrease < 0.0)) {
            // The clamped step lost the descent of the components it clamped: from the first bound on (or half
            // the step) it moves along d itself.
            const double t_box = s.gd < 0.0 ? step_to_box(s) : 0.0;
            if (t_box > 0.0 && t_box < s.t) {
                s.t = std::min(t_box, 0.5 * s.t);
                return false;
            }
            s.status = stop_.when_stuck(k, s, LaneStopRule::Stuck::no_decrease);
            return true;
        }
        const bool armijo = std::isfinite(fn) && fn <= s.f + 1e-4 * std::min(decrease, 0.0);
        bool by_gradient = false;
        if (!armijo && rules_.accept_by_gradient && s.edm < 1e-4 && std::isfinite(fn)) {
            const double slope_new = lanes::dot(gn, sv_.data(), nf_);
            const double noise = 1e-6 * std::max(1.0, std::fabs(s.f));
            by_gradient = std::fabs(slope_new) <= 0.5 * std::fabs(decrease) && fn <= s.f + noise;
        }
        if (!armijo && !by_gradient) {
            s.t = backtrack_step(s.t, s.f, fn, s.gd);
            return false;
        }
        for (std::size_t i = 0; i < nf_; ++i) yv_[i] = gn[i] - s.g[i];
        s.mem.push(sv_.data(), yv_.data(), nf_);
        const double df = s.f - fn;
        std::swap(s.y, s.trial);
        ++s.steps;
        m_.step_taken(k, s);
        s.f = fn;
        std::copy(gn, gn + nf_, s.g.begin());
        s.status = stop_.after_step(k, s, df, armijo);
        return true;
    }

    std::vector<Lane>& lanes_;
    LaneEvaluator& ev_;
    Preconditioner& m_;
    LaneStopRule& stop_;
    const LockstepRules& rules_;
    std::size_t nf_ = 0;
    std::vector<int> running_, pending_, again_;
    std::vector<const std::vector<double>*> ys_;
    std::vector<double> f_, g_, pg_, sv_, yv_;
};

}  // namespace

int run_lockstep_lbfgs(std::vector<Lane>& lanes, LaneEvaluator& ev, Preconditioner& m, LaneStopRule& stop,
                       const LockstepRules& rules) {
    return Engine(lanes, ev, m, stop, rules).run();
}

}  // namespace hf::infer::detail
