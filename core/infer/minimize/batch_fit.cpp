// K fits in lockstep, a cache-sized group at a time (lockstep_group): projected L-BFGS in scaled variables (see
// problem.hpp) with one Model::logpdf call per step for every problem of the group still running. Problems leave
// the group as they converge, so late stragglers cost little. The recursion starts from one inverse Hessian for
// the whole batch (inverse_hessian.hpp): the toys share their truth, so its first step is a Newton step
// (docs/decisions/batch-fit-shared-curvature.md). Near its minimum a first descent switches to its own curvature
// (own_fisher.hpp).
// Either initial matrix is shrunk where the steps show far more curvature than it holds (initial_scale).
// The per-problem arithmetic (two-loop recursion, line search bookkeeping) runs on the host; the device evaluates
// likelihoods and gradients only.
//
// Over 400 lines: one algorithm (the lockstep loop fit_group, its per-problem state and the two-loop recursion
// around it); it is to be split when the held fits' L-BFGS (held_batch.cpp) becomes the same engine (issue 37).
// Why each constant has its value: docs/decisions/batch-fit-*.md.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "hfcore/backend.hpp"
#include "infer/minimize/basin_search.hpp"
#include "infer/minimize/inverse_hessian.hpp"
#include "infer/minimize/lbfgs_steps.hpp"
#include "infer/minimize/own_fisher.hpp"
#include "infer/minimize/problem.hpp"
#include "infer/minimize/batch_fit.hpp"
#include "numerics/lanes.hpp"

namespace hf::infer {

namespace {

namespace lanes = numerics::lanes;

// Steps kept per problem. The memory decides which local minimum a toy fit of a likelihood with many ends in, so
// it is part of the results: 10 keeps the minima of earlier releases; more pairs save evaluations but move minima
// (docs/decisions/batch-fit-lbfgs-memory.md).
constexpr int kMemory = 10;

// The last kMemory steps s and gradient changes y of one problem, in two rings allocated once (no allocation per
// step, and each problem's history contiguous). Pushes follow
// detail::lbfgs_push: a pair without enough curvature (s.y <= 1e-10 |s| |y|) is skipped.
class History {
public:
    int size() const { return count_; }
    void clear() { count_ = oldest_ = 0; }
    // k = 0 is the oldest pair, size() - 1 the newest.
    const double* s(int k) const { return s_.data() + slot(k) * nf_; }
    const double* y(int k) const { return y_.data() + slot(k) * nf_; }
    double rho(int k) const { return rho_[slot(k)]; }
    double sy(int k) const { return sy_[slot(k)]; }  // s.y over every component
    void push(const double* sv, const double* yv, std::size_t nf) {
        const double sy = lanes::dot(sv, yv, nf);
        if (!(sy > 1e-10 * std::sqrt(lanes::dot(sv, sv, nf) * lanes::dot(yv, yv, nf)))) return;
        if (s_.empty()) {
            nf_ = nf;
            s_.resize(kMemory * nf);
            y_.resize(kMemory * nf);
        }
        std::size_t to;
        if (count_ < kMemory) {
            to = slot(count_++);
        } else {  // the oldest pair makes room
            to = static_cast<std::size_t>(oldest_);
            oldest_ = (oldest_ + 1) % kMemory;
        }
        std::copy(sv, sv + nf, s_.begin() + to * nf);
        std::copy(yv, yv + nf, y_.begin() + to * nf);
        sy_[to] = sy;
        rho_[to] = 1.0 / sy;
    }

private:
    std::size_t slot(int k) const { return static_cast<std::size_t>((oldest_ + k) % kMemory); }
    std::vector<double> s_, y_;
    double rho_[kMemory] = {}, sy_[kMemory] = {};
    int count_ = 0, oldest_ = 0;
    std::size_t nf_ = 0;
};

struct State {
    std::vector<double> y, g;
    double f = 0.0;
    History mem;
    int status = 0;  // 0 running, 1 converged, 2 failed
    int stall = 0;
    int steps = 0;                 // accepted steps
    bool fixed_curvature = true;  // h0 as the recursion's initial matrix (see the line search)
    detail::OwnFisher own;       // this problem's own curvature, once taken (it then replaces h0)
    bool own_taken = false;
    // A minimum this problem already has from another start (batch_fit_known; its point in scaled variables, for
    // the distance test), and whether the descent reached it (the result is then that minimum, as given).
    std::vector<double> y_known;
    double f_known = 0.0;
    bool at_known = false;
    int moved = -1;  // in a basin search (BasinReturn), the multimodal parameter its start moved (-1: none)
    // the direction being computed
    std::vector<char> free;  // not bound-active
    bool all_free = true;
    double alpha[kMemory] = {};
    // line search
    std::vector<double> d, trial;
    double t = 1.0;
    double gd = 0.0;
};

class BatchEvaluator {
public:
    BatchEvaluator(const Model& model, const Tensor& data_kn, const detail::Problem& p)
        : model_(model), data_(data_kn), p_(p) {}

    // NLL and y-gradients of problems `idx` at points ys (each of length F).
    void eval(const std::vector<int>& idx, const std::vector<const std::vector<double>*>& ys, std::vector<double>& f,
              std::vector<double>& g) {
        auto& be = *model_.backend();
        const std::int64_t n = static_cast<std::int64_t>(idx.size());
        const std::int64_t np = model_.n_pars();
        const std::size_t nf = p_.nfree();
        if (pars_.size() < static_cast<std::size_t>(n * np)) pars_.resize(static_cast<std::size_t>(n * np));
        for (std::int64_t j = 0; j < n; ++j) p_.to_x(*ys[j], pars_.data() + j * np);
        const Tensor pt = be.precision() == Precision::f64
                              ? be.from_host(DType::f64, {n, np}, pars_.data())
                              : be.from_host(std::vector<double>(pars_.begin(), pars_.begin() + n * np), {n, np});
        Tensor grad;
        Tensor lp = bound_rows(idx).logpdf(pt, &grad);
        const double* lph = download(lp, lp_);
        const double* gh = download(grad, grad_);
        f.resize(n);
        // grown only: a vector resized down and up again is zeroed at every step, and every element used is written
        if (g.size() < static_cast<std::size_t>(n) * nf) g.resize(static_cast<std::size_t>(n) * nf);
        for (std::int64_t j = 0; j < n; ++j) {
            f[j] = -lph[j];
            for (std::size_t i = 0; i < nf; ++i) g[j * nf + i] = -gh[j * np + p_.free[i]] * p_.scale[i];
        }
        n_eval += n;
    }
    std::int64_t n_eval = 0;

private:
    // x's values as doubles in buf, which only grows (the evaluations' sizes change from step to step, and a
    // std::vector zeroes what it grows by before the download overwrites it).
    const double* download(const Tensor& x, std::vector<double>& buf) {
        auto& be = *model_.backend();
        if (x.dtype() != DType::f64) {
            buf = be.to_host_double(x);
            return buf.data();
        }
        if (buf.size() < static_cast<std::size_t>(x.size())) buf.resize(static_cast<std::size_t>(x.size()));
        be.to_host(x, buf.data());
        return buf.data();
    }

    // The data rows of problems `idx` (in order; all of them when the batch is full), bound once per distinct set:
    // consecutive steps mostly evaluate the same problems. The whole group's data are bound once, and a subset
    // takes its rows' data-only constants from there (BoundLikelihood::rows) instead of computing them again.
    const BoundLikelihood& bound_rows(const std::vector<int>& idx) {
        if (bound_.bound() && idx == bound_idx_) return bound_;
        if (!all_.bound()) all_ = model_.bind(data_);
        if (static_cast<std::int64_t>(idx.size()) == data_.dim(0)) {
            bound_ = all_;
        } else {
            rows_.assign(idx.begin(), idx.end());
            bound_ = all_.rows(rows_);
        }
        bound_idx_ = idx;
        return bound_;
    }

    const Model& model_;
    Tensor data_;
    const detail::Problem& p_;
    std::vector<double> pars_;       // [n, P] of the last evaluation, kept for its capacity
    std::vector<double> lp_, grad_;  // its results, downloaded
    BoundLikelihood all_, bound_;
    std::vector<int> bound_idx_;
    std::vector<std::int64_t> rows_;
};

// Problems fitted in lockstep at a time. Every step walks the state of each running problem (its L-BFGS history of
// 2 x kMemory vectors, point, gradient, direction, trial) and the evaluation's [K, P] points and gradients, and
// rebinds the data rows whenever a problem leaves. In groups whose state is about a core's L2 cache, the state
// stays in the cache from one step to the next and a leaver rebinds few rows
// (docs/decisions/batch-fit-lockstep-groups.md). The problems are independent: the grouping changes no result.
std::int64_t lockstep_group(std::size_t nf, std::int64_t K) {
    constexpr double kStateBudget = 1.5 * 1024 * 1024;  // bytes
    const double per_problem =
        (2.0 * kMemory + 8.0) * static_cast<double>(std::max<std::size_t>(nf, 1)) * sizeof(double);
    const auto group = static_cast<std::int64_t>(kStateBudget / per_problem);
    return std::clamp<std::int64_t>(group, 1, std::max<std::int64_t>(K, 1));
}

// (see the basin search's early end in fit_group) Trade-off: a descent into a basin that is not kept is cut short,
// at the price of a rare wrong prediction that leaves a toy above a single fit's minimum
// (docs/decisions/batch-fit-basin-search-early-end.md).
constexpr int kPredictFrom = 3;
constexpr double kPredictedAbove = 0.05;  // NLL

bool below_known(const State& s) { return s.f < s.f_known - 1e-9 * std::max(1.0, std::fabs(s.f_known)); }

// A problem's own curvature (own_fisher.hpp: the Fisher information where it stands, from the plugin's
// Jacobian of the expected counts) replaces the fixed one once its projected gradient falls below
// kOwnCurvatureAt, in first descents only (not in batch_fit_known's), where the plugin's Jacobian is native.
// Trade-off: taken earlier it saves evaluations but moves more descents into other (mostly higher) local minima
// (docs/decisions/batch-fit-own-curvature.md).
constexpr double kOwnCurvatureAt = 0.3;

// Four running maxima: one made every comparison wait for the one before. A maximum is exact, so the order
// changes nothing (and a NaN is passed over either way).
double max_abs(const std::vector<double>& v) {
    double m[4] = {0.0, 0.0, 0.0, 0.0};
    const std::size_t n = v.size();
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; ++l) m[l] = std::max(m[l], std::fabs(v[i + l]));
    for (; i < n; ++i) m[0] = std::max(m[0], std::fabs(v[i]));
    return std::max(std::max(m[0], m[1]), std::max(m[2], m[3]));
}

// The L-BFGS two-loop recursion on the free (not bound-active) components, in three parts so that the
// initial matrix of every problem that uses the fixed curvature is applied to all of them at once (each row of
// it read once for four problems). The first part: q <- the gradient on the free components (where it equals
// the projected gradient: projection only zeroes components at a bound, which are not free), less its history
// terms (alpha). With every component free (most steps of most toys), plain dot products.
void first_loop(const History& h, const std::vector<double>& g, const std::vector<char>& free, bool all_free,
                std::vector<double>& q, double* alpha) {
    const std::size_t n = g.size();
    const char* fr = free.data();
    q.resize(n);
    for (std::size_t i = 0; i < n; ++i) q[i] = free[i] ? g[i] : 0.0;
    const int m = h.size();
    if (!all_free) {
        for (int k = m - 1; k >= 0; --k) {
            alpha[k] = h.rho(k) * lanes::masked_dot(h.s(k), q.data(), fr, n);
            lanes::masked_axpy(-alpha[k], h.y(k), fr, q.data(), n);
        }
        return;
    }
    double sq = m > 0 ? lanes::dot(h.s(m - 1), q.data(), n) : 0.0;
    for (int k = m - 1; k >= 0; --k) {
        alpha[k] = h.rho(k) * sq;
        if (k > 0) sq = lanes::axpy_dot(-alpha[k], h.y(k), q.data(), h.s(k - 1), n);
        else lanes::axpy(-alpha[k], h.y(k), q.data(), n);
    }
}

// The factor gamma = s.y / y.M y of the newest pair (s, y) by which the initial matrix M of the recursion (the
// fixed curvature or the problem's own) is shrunk where the steps show more than twice the curvature M holds:
// Oren and Luenberger's scaling, which the identity gets as gamma = s.y / y.y, for a preconditioned recursion.
// Within a factor 2 the unit step still passes the line search's sufficient-decrease test (on a quadratic it does
// up to a curvature twice the model's), so M is left alone there; M is never enlarged
// (docs/decisions/batch-fit-initial-matrix-scaling.md).
constexpr double kShrinkBelow = 0.5;

double initial_scale(const History& h, const std::vector<char>& free, bool all_free, double y_m_y) {
    const int m = h.size();
    if (m == 0 || !(y_m_y > 0.0) || !std::isfinite(y_m_y)) return 1.0;
    const std::size_t n = free.size();
    const double sy = all_free ? h.sy(m - 1) : lanes::masked_dot(h.s(m - 1), h.y(m - 1), free.data(), n);
    const double gamma = sy / y_m_y;
    return sy > 0.0 && gamma < kShrinkBelow ? gamma : 1.0;
}

// A basin search's start moved one multimodal parameter of a minimum, whose gradient is zero, within that
// parameter's side of zero: the start and the minimum are a step s = y - y_known with gradient change g, a
// secant pair before any step is taken. Its factor s.g / g.M g (as initial_scale's, from the pair) shortens the
// first step where M holds far less curvature than the toy has. Starts across zero (the mirrored one, shifts past
// zero) keep the unit step: the secant then spans the hump between two basins, and shortening it there moves
// descents into higher minima (docs/decisions/batch-fit-initial-matrix-scaling.md).
bool secant_start(const State& s) {
    return s.moved >= 0 && s.steps == 0 && s.mem.size() == 0 && !s.y_known.empty() &&
           s.y[static_cast<std::size_t>(s.moved)] * s.y_known[static_cast<std::size_t>(s.moved)] > 0.0;
}

double secant_scale(const State& s, double g_m_g) {
    double sy = 0.0;
    for (std::size_t i = 0; i < s.y.size(); ++i) sy += s.free[i] ? (s.y[i] - s.y_known[i]) * s.g[i] : 0.0;
    const double gamma = sy / g_m_g;
    return sy > 0.0 && g_m_g > 0.0 && std::isfinite(gamma) && gamma < kShrinkBelow ? gamma : 1.0;
}

// The rest, after the fixed curvature was applied to q (h0_applied) or not: else the usual multiple of the
// identity (a steepest-descent step of bounded size without history); the second loop; the descent direction
// -q.
void second_loop(const History& h, const std::vector<char>& free, bool all_free, bool h0_applied,
                 std::vector<double>& q, const double* alpha) {
    const std::size_t n = q.size();
    const char* fr = free.data();
    const int m = h.size();
    if (m == 0) {
        if (!h0_applied) {
            const double scale = 1.0 / std::max(1.0, max_abs(q));
            for (auto& v : q) v *= scale;
        }
        for (auto& v : q) v = -v;
        return;
    }
    if (!h0_applied) {
        const double* s = h.s(m - 1);
        const double* y = h.y(m - 1);
        const double sy = all_free ? lanes::dot(s, y, n) : lanes::masked_dot(s, y, fr, n);
        const double yy = all_free ? lanes::dot(y, y, n) : lanes::masked_dot(y, y, fr, n);
        const double gamma = (sy > 0 && yy > 0) ? sy / yy : 1.0;
        for (auto& v : q) v *= gamma;
    }
    if (!all_free) {
        for (int k = 0; k < m; ++k) {
            const double beta = h.rho(k) * lanes::masked_dot(h.y(k), q.data(), fr, n);
            lanes::masked_axpy(alpha[k] - beta, h.s(k), fr, q.data(), n);
        }
    } else {
        double yq = lanes::dot(h.y(0), q.data(), n);
        for (int k = 0; k < m; ++k) {
            const double beta = h.rho(k) * yq;
            if (k + 1 < m) yq = lanes::axpy_dot(alpha[k] - beta, h.s(k), q.data(), h.y(k + 1), n);
            else lanes::axpy(alpha[k] - beta, h.s(k), q.data(), n);
        }
    }
    for (std::size_t i = 0; i < n; ++i) q[i] = free[i] ? -q[i] : 0.0;
}

// Problems [first, first + K) of the batch (data rows data_kn), fitted in lockstep to the end.
int fit_group(const Model& model, const Tensor& data_kn, const detail::Problem& p, detail::InverseHessian& h0,
              const std::vector<double>& y0, const std::vector<double>* starts, const BatchFitResult* known,
              const detail::BasinReturn* back, std::int64_t first, double gtol, BatchFitResult& out) {
    const std::int64_t K = data_kn.dim(0);
    const std::int64_t np = model.n_pars();
    const std::size_t nf = p.nfree();
    const int max_iter = 1000;
    std::vector<State> st(static_cast<std::size_t>(K));
    BatchEvaluator ev(model, data_kn, p);
    const std::vector<std::size_t> multimodal =
        known ? detail::multimodal_free(model, p) : std::vector<std::size_t>{};
    {
        std::vector<int> idx(K);
        std::iota(idx.begin(), idx.end(), 0);
        for (std::int64_t k = 0; k < K; ++k) {
            if (starts) {
                std::vector<double> x(starts->begin() + (first + k) * np, starts->begin() + (first + k + 1) * np);
                st[k].y = p.to_y(x);
                for (std::size_t i = 0; i < nf; ++i) st[k].y[i] = std::clamp(st[k].y[i], p.lo[i], p.hi[i]);
            } else {
                st[k].y = y0;
            }
            if (known && known->converged[first + k]) {
                std::vector<double> x(known->bestfit.begin() + (first + k) * np,
                                      known->bestfit.begin() + (first + k + 1) * np);
                st[k].y_known = p.to_y(x);
                st[k].f_known = 0.5 * known->twice_nll[first + k];
                if (back) st[k].moved = back->moved[static_cast<std::size_t>(first + k)];
            }
        }
        std::vector<const std::vector<double>*> ys;
        for (auto& s : st) ys.push_back(&s.y);
        std::vector<double> f, g;
        ev.eval(idx, ys, f, g);
        for (std::int64_t k = 0; k < K; ++k) {
            st[k].f = f[k];
            st[k].g.assign(g.begin() + k * nf, g.begin() + (k + 1) * nf);
            if (!std::isfinite(f[k])) st[k].status = 2;
        }
    }
    if (nf == 0)
        for (auto& s : st)
            if (s.status == 0) s.status = 1;

    std::vector<double> pg, f, g, sv(nf), yv(nf);
    std::vector<int> running, pending, again;
    std::vector<const char*> h0_free;
    std::vector<double*> h0_q;
    std::vector<char> h0_applied;
    std::vector<const double*> h0_y;  // the newest y of each, null without history
    std::vector<double> forms;
    double y_m_y[lanes::kMaxVectors];
    std::vector<const std::vector<double>*> ys;
    // per problem of the four: its own curvature applied (kOwn), the fixed one to apply (kFixed), or neither
    enum Initial : char { kNone, kOwn, kFixed };
    Initial initial[lanes::kMaxVectors] = {};
    std::vector<int> to_take;
    // Not where the Jacobian would be differences of expected data: on a GPU backend 2 x parameters points per toy
    // to upload and evaluate, several times a fit's traffic, for a saving that was measured on the cpu plugin.
    const bool own_curvature = known == nullptr && model.native_jacobian();
    int it = 0;
    for (; it < max_iter; ++it) {
        // Directions for every running problem, four at a time: their first loops, the fixed curvature for those
        // that use it (each row of it read once for the four), their second loops. Four histories (4 x 40 kB
        // with 250 parameters) stay in the cache with the matrix between the loops; all histories of a group
        // may not.
        running.clear();
        for (std::int64_t k = 0; k < K; ++k) {
            State& s = st[k];
            if (s.status != 0) continue;
            detail::project_gradient(s.y, s.g, p.lo, p.hi, pg);
            const double pg_max = max_abs(pg);
            if (pg_max < gtol) {
                s.status = 1;
                continue;
            }
            // A descent from another start ends at the minimum its problem already has (never below it): once it
            // has settled there, and a basin search's as soon as it is back in that minimum's basin (as a single
            // fit's search does, basin_search.cpp).
            const bool back_known = back && s.moved >= 0 &&
                                    detail::back_in_basin(s.y, s.y_known, *back->multimodal,
                                                          static_cast<std::size_t>(s.moved));
            if (!s.y_known.empty() && !below_known(s) &&
                (back_known || detail::settled_at(p, s.y, pg_max, s.y_known, multimodal))) {
                s.status = 1;
                s.at_known = true;
                continue;
            }
            s.free.resize(nf);
            bool all_free = true;
            for (std::size_t i = 0; i < nf; ++i) {
                const bool free = pg[i] != 0.0 || (s.y[i] > p.lo[i] && s.y[i] < p.hi[i]);
                s.free[i] = free;
                all_free = all_free && free;
            }
            s.all_free = all_free;
            running.push_back(static_cast<int>(k));
            if (own_curvature && !s.own_taken && s.steps > 0 && pg_max < kOwnCurvatureAt) {
                s.own_taken = true;
                to_take.push_back(static_cast<int>(k));
            }
        }
        if (running.empty()) break;
        if (!to_take.empty()) {
            ys.clear();
            for (int k : to_take) ys.push_back(&st[k].y);
            auto taken = detail::OwnFisher::at(model, p, ys);
            for (std::size_t j = 0; j < to_take.size(); ++j) st[to_take[j]].own = std::move(taken[j]);
            to_take.clear();
        }
        for (std::size_t c0 = 0; c0 < running.size(); c0 += lanes::kMaxVectors) {
            const std::size_t c1 = std::min(running.size(), c0 + lanes::kMaxVectors);
            h0_free.clear();
            h0_q.clear();
            h0_y.clear();
            for (std::size_t c = c0; c < c1; ++c) {
                State& s = st[running[c]];
                first_loop(s.mem, s.g, s.free, s.all_free, s.d, s.alpha);
                initial[c - c0] = kNone;
                // y.M y of the newest pair, for initial_scale, with the curvature's application
                const double* y_new = s.mem.size() > 0 ? s.mem.y(s.mem.size() - 1)
                                      : secant_start(s)    ? s.g.data()
                                                           : nullptr;
                y_m_y[c - c0] = std::numeric_limits<double>::quiet_NaN();
                if (!s.own.empty()) {
                    if (s.own.apply_with_form(s.free.data(), s.d.data(), y_new, y_m_y[c - c0]))
                        initial[c - c0] = kOwn;
                } else if (s.fixed_curvature) {
                    initial[c - c0] = kFixed;
                    h0_free.push_back(s.free.data());
                    h0_q.push_back(s.d.data());
                    h0_y.push_back(y_new);
                }
            }
            h0.apply_many(h0_free, h0_q, h0_applied, h0_y, &forms);
            for (std::size_t c = c0, j = 0; c < c1; ++c) {
                State& s = st[running[c]];
                bool applied = initial[c - c0] == kOwn;
                if (initial[c - c0] == kFixed) {
                    y_m_y[c - c0] = forms[j];
                    applied = h0_applied[j++];
                }
                if (applied) {
                    const double gamma = secant_start(s) ? secant_scale(s, y_m_y[c - c0])
                                                         : initial_scale(s.mem, s.free, s.all_free, y_m_y[c - c0]);
                    if (gamma != 1.0)
                        for (auto& v : s.d) v *= gamma;
                }
                second_loop(s.mem, s.free, s.all_free, applied, s.d, s.alpha);
                s.gd = lanes::dot(s.d.data(), s.g.data(), nf);
                if (!(s.gd < 0.0)) {
                    s.mem.clear();
                    first_loop(s.mem, s.g, s.free, s.all_free, s.d, s.alpha);
                    second_loop(s.mem, s.free, s.all_free, false, s.d, s.alpha);
                    s.gd = lanes::dot(s.d.data(), s.g.data(), nf);
                }
                s.t = 1.0;
            }
        }

        // A basin search's descent whose quadratic model (f + g.d / 2 at the full step, d from a history of
        // kPredictFrom pairs or more) ends above its known minimum by kPredictedAbove is in a higher basin: it ends
        // there, returning the known minimum, instead of descending to the bottom of a basin that is not kept.
        if (back) {
            std::size_t kept = 0;
            for (int k : running) {
                State& s = st[k];
                const bool higher = s.mem.size() >= kPredictFrom && s.f + 0.5 * s.gd > s.f_known + kPredictedAbove;
                if (!s.y_known.empty() && higher) {
                    s.status = 1;
                    s.at_known = true;
                    continue;
                }
                running[kept++] = k;
            }
            running.resize(kept);
        }

        // Backtracking line search, all pending problems evaluated together.
        pending = running;
        for (int ls = 0; ls < 40 && !pending.empty(); ++ls) {
            ys.clear();
            for (int k : pending) {
                State& s = st[k];
                s.trial.resize(nf);
                for (std::size_t i = 0; i < nf; ++i) s.trial[i] = std::clamp(s.y[i] + s.t * s.d[i], p.lo[i], p.hi[i]);
                ys.push_back(&s.trial);
            }
            ev.eval(pending, ys, f, g);
            again.clear();
            for (std::size_t j = 0; j < pending.size(); ++j) {
                const int k = pending[j];
                State& s = st[k];
                for (std::size_t i = 0; i < nf; ++i) sv[i] = s.trial[i] - s.y[i];
                const double decrease = lanes::dot(s.g.data(), sv.data(), nf);
                const double fn = f[j];
                if (std::isfinite(fn) && fn <= s.f + 1e-4 * std::min(decrease, 0.0)) {
                    for (std::size_t i = 0; i < nf; ++i) yv[i] = g[j * nf + i] - s.g[i];
                    s.mem.push(sv.data(), yv.data(), nf);
                    const double df = s.f - fn;
                    std::swap(s.y, s.trial);
                    // A first step from the fixed curvature cut below half: the likelihood is far from
                    // quadratic between this toy's start and its minimum (on a 250-parameter model, the sample
                    // normalisations move with many normsys at once), and the fixed matrix, which L-BFGS
                    // corrects only in the directions it has stepped, then slows the fit down instead.
                    if (s.steps++ == 0 && s.t < 0.5) s.fixed_curvature = false;
                    s.f = fn;
                    std::copy(g.begin() + j * nf, g.begin() + (j + 1) * nf, s.g.begin());
                    // Rounding-limited: the objective no longer changes.
                    s.stall = df <= 1e-14 * std::max(1.0, std::fabs(fn)) ? s.stall + 1 : 0;
                    if (s.stall >= 5) {
                        detail::project_gradient(s.y, s.g, p.lo, p.hi, pg);
                        s.status = max_abs(pg) < 100 * gtol ? 1 : 2;
                    }
                } else {
                    s.t = detail::backtrack_step(s.t, s.f, fn, s.gd);
                    again.push_back(k);
                }
            }
            pending.swap(again);
        }
        for (int k : pending) {
            // Line search failed: restart from steepest descent once, then give up.
            State& s = st[k];
            if (s.mem.size() > 0) {
                s.mem.clear();
            } else {
                detail::project_gradient(s.y, s.g, p.lo, p.hi, pg);
                s.status = max_abs(pg) < 100 * gtol ? 1 : 2;
            }
        }
    }
    for (std::int64_t k = 0; k < K; ++k) {
        const std::int64_t row = first + k;
        if (st[k].at_known) {
            std::copy(known->bestfit.begin() + row * np, known->bestfit.begin() + (row + 1) * np,
                      out.bestfit.begin() + row * np);
            out.twice_nll[row] = known->twice_nll[row];
        } else {
            auto x = p.to_x(st[k].y);
            std::copy(x.begin(), x.end(), out.bestfit.begin() + row * np);
            out.twice_nll[row] = 2.0 * st[k].f;
        }
        out.converged[row] = st[k].status == 1;
    }
    return it;
}

BatchFitResult run_batch_fit(const Model& model, const Tensor& data_kn, const FitConfig& config,
                             const FitOptions& options, const std::vector<double>& start,
                             const std::vector<double>* starts, const BatchFitResult* known = nullptr,
                             const detail::BasinReturn* back = nullptr) {
    const FitConfig cfg = config.resolved(model);
    if (data_kn.ndim() != 2 || data_kn.dim(1) != model.n_main() + model.n_aux())
        throw ShapeError("batch_fit: data must be [K, " + std::to_string(model.n_main() + model.n_aux()) +
                         "], got " + shape_str(data_kn.shape()));
    const std::int64_t K = data_kn.dim(0);
    const std::int64_t np = model.n_pars();
    detail::Problem p = detail::make_problem(model, Tensor(), cfg);
    const std::size_t nf = p.nfree();
    const bool f32 = model.backend()->precision() == Precision::f32;
    // Projected-gradient tolerance in scaled units (curvatures of order one): NLL within ~gtol^2 of the minimum.
    const double gtol = options.tolerance > 0 ? std::sqrt(2.0 * options.tolerance) : (f32 ? 2e-2 : 1e-5);

    BatchFitResult out;
    out.bestfit.assign(static_cast<std::size_t>(K * np), 0.0);
    out.twice_nll.assign(static_cast<std::size_t>(K), 0.0);
    out.converged.assign(static_cast<std::size_t>(K), false);

    // Every problem starts at the init, or at `start` (the same point for all), or at its own start.
    std::vector<double> y0(nf, 0.0);
    if (!start.empty()) {
        if (static_cast<std::int64_t>(start.size()) != np)
            throw InputError("batch_fit", "start", std::to_string(start.size()) +
                                                       " start values, the model has " + std::to_string(np) +
                                                       " parameters");
        y0 = p.to_y(start);
        for (std::size_t i = 0; i < nf; ++i) y0[i] = std::clamp(y0[i], p.lo[i], p.hi[i]);
    }
    if (starts && static_cast<std::int64_t>(starts->size()) != K * np)
        throw InputError("batch_fit", "starts", std::to_string(starts->size()) + " start values for " +
                                                     std::to_string(K) + " problems of " + std::to_string(np) +
                                                     " parameters");
    detail::InverseHessian h0 = detail::InverseHessian::at_asimov(model, p, y0);
    const std::int64_t group = lockstep_group(nf, K);
    auto& be = *model.backend();
    for (std::int64_t first = 0; first < K; first += group) {
        const std::int64_t count = std::min(group, K - first);
        Tensor rows = data_kn;
        if (count < K) {
            std::vector<std::int64_t> idx(static_cast<std::size_t>(count));
            std::iota(idx.begin(), idx.end(), first);
            rows = be.gather(data_kn, be.from_host_index(idx), 0);
        }
        const int it = fit_group(model, rows, p, h0, y0, starts, known, back, first, gtol, out);
        out.iterations = std::max<std::int64_t>(out.iterations, it);
    }
    return out;
}

}  // namespace

BatchFitResult batch_fit(const Model& model, const Tensor& data_kn, const FitConfig& config,
                         const FitOptions& options) {
    return run_batch_fit(model, data_kn, config, options, {}, nullptr);
}

BatchFitResult detail::batch_fit(const Model& model, const Tensor& data_kn, const FitConfig& config,
                                 const FitOptions& options, const std::vector<double>& start) {
    return run_batch_fit(model, data_kn, config, options, start, nullptr);
}

BatchFitResult detail::batch_fit_from(const Model& model, const Tensor& data_kn, const FitConfig& config,
                                      const FitOptions& options, const std::vector<double>& start,
                                      const std::vector<double>& starts) {
    return run_batch_fit(model, data_kn, config, options, start, &starts);
}

BatchFitResult detail::batch_fit_known(const Model& model, const Tensor& data_kn, const FitConfig& config,
                                       const FitOptions& options, const std::vector<double>& start,
                                       const BatchFitResult& known) {
    if (static_cast<std::int64_t>(known.twice_nll.size()) != data_kn.dim(0))
        throw ShapeError("batch_fit: " + std::to_string(known.twice_nll.size()) + " known minima for " +
                         std::to_string(data_kn.dim(0)) + " problems");
    return run_batch_fit(model, data_kn, config, options, start, nullptr, &known);
}

BatchFitResult detail::batch_fit_known_from(const Model& model, const Tensor& data_kn, const FitConfig& config,
                                            const FitOptions& options, const std::vector<double>& start,
                                            const std::vector<double>& starts, const BatchFitResult& known,
                                            const BasinReturn& back) {
    if (static_cast<std::int64_t>(known.twice_nll.size()) != data_kn.dim(0) ||
        static_cast<std::int64_t>(back.moved.size()) != data_kn.dim(0))
        throw ShapeError("batch_fit: " + std::to_string(known.twice_nll.size()) + " known minima for " +
                         std::to_string(data_kn.dim(0)) + " problems");
    return run_batch_fit(model, data_kn, config, options, start, &starts, &known, &back);
}

}  // namespace hf::infer
