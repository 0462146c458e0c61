#include "infer/minimize/preconditioners.hpp"

#include <cmath>
#include <limits>

#include "infer/minimize/problem.hpp"
#include "numerics/dense.hpp"
#include "numerics/lanes.hpp"

namespace hf::infer::detail {

namespace {

namespace lanes = numerics::lanes;

// A first descent takes its own curvature once its projected gradient falls below this. Trade-off: taken
// earlier it saves evaluations but moves more descents into other (mostly higher) local minima
// (docs/decisions/batch-fit-own-curvature.md).
constexpr double kOwnCurvatureAt = 0.3;

// The factor gamma = s.y / y.M y of the newest pair (s, y) by which the initial matrix M is shrunk where the
// steps show more than twice the curvature M holds: Oren and Luenberger's scaling, which the identity gets as
// gamma = s.y / y.y, for a preconditioned recursion. Within a factor 2 the unit step still passes the line
// search's sufficient-decrease test (on a quadratic it does up to a curvature twice the model's), so M is left
// alone there; M is never enlarged (docs/decisions/batch-fit-initial-matrix-scaling.md).
constexpr double kShrinkBelow = 0.5;

double initial_scale(const LbfgsHistory& h, const std::vector<char>& free, bool all_free, double y_m_y) {
    const int m = h.size();
    if (m == 0 || !(y_m_y > 0.0) || !std::isfinite(y_m_y)) return 1.0;
    const std::size_t n = free.size();
    const double sy = all_free ? h.sy(m - 1) : lanes::masked_dot(h.s(m - 1), h.y(m - 1), free.data(), n);
    const double gamma = sy / y_m_y;
    return sy > 0.0 && gamma < kShrinkBelow ? gamma : 1.0;
}

// The secant pair of a basin search's start and its known minimum (see secant_start): factor s.g / g.M g.
double secant_scale(const Lane& s, const KnownMinimum& known, double g_m_g) {
    double sy = 0.0;
    for (std::size_t i = 0; i < s.y.size(); ++i) sy += s.free[i] ? (s.y[i] - known.y[i]) * s.g[i] : 0.0;
    const double gamma = sy / g_m_g;
    return sy > 0.0 && g_m_g > 0.0 && std::isfinite(gamma) && gamma < kShrinkBelow ? gamma : 1.0;
}

}  // namespace

SharedThenOwnCurvature::SharedThenOwnCurvature(const Model& model, const Problem& p, InverseHessian& shared,
                                               bool own_curvature, std::size_t lanes,
                                               const std::vector<KnownMinimum>* known)
    : model_(model), p_(p), shared_(shared), own_curvature_(own_curvature), known_(known), own_(lanes),
      own_taken_(lanes, 0), use_shared_(lanes, 1) {}

void SharedThenOwnCurvature::prepare(const std::vector<int>& running, std::vector<Lane>& lanes) {
    if (!own_curvature_) return;
    to_take_.clear();
    for (int k : running) {
        const Lane& s = lanes[static_cast<std::size_t>(k)];
        if (!own_taken_[k] && s.steps > 0 && s.pg_max < kOwnCurvatureAt) {
            own_taken_[k] = 1;
            to_take_.push_back(k);
        }
    }
    if (to_take_.empty()) return;
    ys_.clear();
    for (int k : to_take_) ys_.push_back(&lanes[static_cast<std::size_t>(k)].y);
    auto taken = OwnFisher::at(model_, p_, ys_);
    for (std::size_t j = 0; j < to_take_.size(); ++j) own_[static_cast<std::size_t>(to_take_[j])] = std::move(taken[j]);
}

// A basin search's start moved one multimodal parameter of a minimum, whose gradient is zero, within that
// parameter's side of zero: the start and the minimum are a step with gradient change g, a secant pair before
// any step is taken, whose factor shortens the first step where M holds far less curvature than the toy has.
// Starts across zero (the mirrored one, shifts past zero) keep the unit step: the secant then spans the hump
// between two basins, and shortening it there moves descents into higher minima
// (docs/decisions/batch-fit-initial-matrix-scaling.md).
bool SharedThenOwnCurvature::secant_start(int k, const Lane& s) const {
    if (!known_) return false;
    const KnownMinimum& kn = (*known_)[static_cast<std::size_t>(k)];
    return kn.moved >= 0 && s.steps == 0 && s.mem.size() == 0 && !kn.y.empty() &&
           s.y[static_cast<std::size_t>(kn.moved)] * kn.y[static_cast<std::size_t>(kn.moved)] > 0.0;
}

void SharedThenOwnCurvature::apply(const int* ks, int count, std::vector<Lane>& lanes, bool* applied) {
    enum Initial : char { kNone, kOwn, kShared };
    Initial initial[lanes::kMaxVectors] = {};
    double y_m_y[lanes::kMaxVectors];
    free_.clear();
    q_.clear();
    y_new_.clear();
    for (int c = 0; c < count; ++c) {
        const int k = ks[c];
        Lane& s = lanes[static_cast<std::size_t>(k)];
        initial[c] = kNone;
        // y.M y of the newest pair, for the scaling, with the matrix's application
        const double* y_new = s.mem.size() > 0 ? s.mem.y(s.mem.size() - 1) : secant_start(k, s) ? s.g.data() : nullptr;
        y_m_y[c] = std::numeric_limits<double>::quiet_NaN();
        OwnFisher& own = own_[static_cast<std::size_t>(k)];
        if (!own.empty()) {
            if (own.apply_with_form(s.free.data(), s.d.data(), y_new, y_m_y[c])) initial[c] = kOwn;
        } else if (use_shared_[static_cast<std::size_t>(k)]) {
            initial[c] = kShared;
            free_.push_back(s.free.data());
            q_.push_back(s.d.data());
            y_new_.push_back(y_new);
        }
    }
    shared_.apply_many(free_, q_, applied_, y_new_, &forms_);
    for (int c = 0, j = 0; c < count; ++c) {
        const int k = ks[c];
        Lane& s = lanes[static_cast<std::size_t>(k)];
        applied[c] = initial[c] == kOwn;
        if (initial[c] == kShared) {
            y_m_y[c] = forms_[static_cast<std::size_t>(j)];
            applied[c] = applied_[static_cast<std::size_t>(j++)];
        }
        if (!applied[c]) continue;
        const double gamma = secant_start(k, s) ? secant_scale(s, (*known_)[static_cast<std::size_t>(k)], y_m_y[c])
                                                : initial_scale(s.mem, s.free, s.all_free, y_m_y[c]);
        if (gamma != 1.0)
            for (auto& v : s.d) v *= gamma;
    }
}

void SharedThenOwnCurvature::step_taken(int k, const Lane& lane) {
    if (lane.steps == 1 && lane.t < 0.5) use_shared_[static_cast<std::size_t>(k)] = 0;
}

CovarianceSchur::CovarianceSchur(const std::vector<double>& cov, std::size_t nf, std::size_t lanes)
    : cov_(cov), nf_(nf), active_(lanes), caa_factor_(lanes), factored_(lanes, 0) {}

// The factor depends on the active set alone: a lane whose set did not change since its last step keeps it.
void CovarianceSchur::free_set_changed(int k, const Lane& lane) {
    auto& active = active_[static_cast<std::size_t>(k)];
    scratch_active_.clear();
    for (std::size_t a = 0; a < nf_; ++a)
        if (!lane.free[a]) scratch_active_.push_back(a);
    if (factored_[static_cast<std::size_t>(k)] && scratch_active_ == active) return;
    active.swap(scratch_active_);
    factored_[static_cast<std::size_t>(k)] = 1;
    const std::size_t m = active.size();
    std::vector<double> caa(m * m);
    for (std::size_t r = 0; r < m; ++r)
        for (std::size_t c = 0; c < m; ++c) caa[r * m + c] = cov_[active[r] * nf_ + active[c]];
    numerics::shifted_cholesky(caa, m, caa_factor_[static_cast<std::size_t>(k)]);
}

// M q for q zero off the free components (the result is too).
bool CovarianceSchur::apply_alone(int k, const Lane& lane, std::vector<double>& q) {
    std::vector<double>& r = r_;
    r.assign(nf_, 0.0);
    for (std::size_t a = 0; a < nf_; ++a) {
        if (q[a] == 0.0) continue;
        const double qa = q[a];
        const double* row = cov_.data() + a * nf_;  // C is symmetric: row a is column a
        for (std::size_t b = 0; b < nf_; ++b) r[b] += row[b] * qa;
    }
    const auto& active = active_[static_cast<std::size_t>(k)];
    const std::size_t m = active.size();
    if (m > 0) {
        std::vector<double> ra(m);
        for (std::size_t j = 0; j < m; ++j) ra[j] = r[active[j]];
        const auto w = numerics::cholesky_solve(caa_factor_[static_cast<std::size_t>(k)], m, ra);
        for (std::size_t b = 0; b < nf_; ++b) {
            double c = 0.0;
            for (std::size_t j = 0; j < m; ++j) c += cov_[b * nf_ + active[j]] * w[j];
            r[b] -= c;
        }
    }
    for (std::size_t a = 0; a < nf_; ++a)
        if (!lane.free[a]) r[a] = 0.0;
    q.swap(r);
    return true;
}

void CovarianceSchur::apply(const int* ks, int count, std::vector<Lane>& lanes, bool* applied) {
    for (int c = 0; c < count; ++c) {
        Lane& s = lanes[static_cast<std::size_t>(ks[c])];
        applied[c] = apply_alone(ks[c], s, s.d);
    }
}

}  // namespace hf::infer::detail
