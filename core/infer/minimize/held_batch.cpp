// The held fits: K problems of one likelihood, each with some parameters held at given values (bounds with
// lo == hi), in the lockstep L-BFGS engine (lockstep_lbfgs.hpp) with the free fit's covariance as the initial
// inverse Hessian (preconditioners.hpp, CovarianceSchur) and the edm stop (stop_rules.hpp, EdmStop).
#include <algorithm>
#include <cmath>

#include "hfcore/backend.hpp"
#include "infer/minimize/held_batch.hpp"
#include "infer/minimize/lockstep_lbfgs.hpp"
#include "infer/minimize/preconditioners.hpp"
#include "infer/minimize/stop_rules.hpp"

namespace hf::infer::detail {

namespace {

constexpr int kMemory = 8;
constexpr int kMaxIterations = 300;

class HeldEvaluator : public LaneEvaluator {
public:
    HeldEvaluator(const Model& model, const BoundLikelihood& data, const Problem& p,
                  const std::vector<HeldStart>& starts)
        : model_(model), data_(data), p_(p), starts_(starts) {}

    // The parameters of lane k at y into x [P], with the held ones at their exact values.
    void to_x(const std::vector<double>& y, std::size_t k, double* x) const {
        p_.to_x(y, x);
        for (const auto& [a, v] : starts_[k].held) x[static_cast<std::size_t>(p_.free[a])] = v;
    }
    std::vector<double> to_x(const std::vector<double>& y, std::size_t k) const {
        std::vector<double> x(static_cast<std::size_t>(model_.n_pars()));
        to_x(y, k, x.data());
        return x;
    }

    void evaluate(const std::vector<int>& idx, const std::vector<const std::vector<double>*>& ys,
                  std::vector<double>& f, std::vector<double>& g) override {
        auto& be = *model_.backend();
        const auto n = static_cast<std::int64_t>(idx.size());
        const std::int64_t np = model_.n_pars();
        const std::size_t nf = p_.nfree();
        pars_.resize(static_cast<std::size_t>(n * np));
        for (std::int64_t j = 0; j < n; ++j) to_x(*ys[j], static_cast<std::size_t>(idx[j]), pars_.data() + j * np);
        Tensor grad;
        Tensor lp = data_.logpdf(be.from_host(pars_, {n, np}), &grad);
        const auto lph = be.to_host_double(lp);
        const auto gh = be.to_host_double(grad);
        f.resize(static_cast<std::size_t>(n));
        g.assign(static_cast<std::size_t>(n) * nf, 0.0);
        for (std::int64_t j = 0; j < n; ++j) {
            f[j] = -lph[j];
            for (std::size_t a = 0; a < nf; ++a) g[j * nf + a] = -gh[j * np + p_.free[a]] * p_.scale[a];
        }
    }

private:
    const Model& model_;
    BoundLikelihood data_;
    const Problem& p_;
    const std::vector<HeldStart>& starts_;
    std::vector<double> pars_;  // [n, P] of the last evaluation, kept for its capacity
};

}  // namespace

std::vector<HeldSolution> solve_held_batch(const Model& model, const BoundLikelihood& data, Problem& p,
                                           const std::vector<double>& cov_y, const std::vector<HeldStart>& problems,
                                           double tol) {
    const std::size_t K = problems.size(), nf = p.nfree();
    std::vector<HeldSolution> out(K);
    if (K == 0) return out;
    // Each lane's bounds: the problem's, with every held component's lo and hi at its value.
    std::vector<std::vector<double>> lo(K, p.lo), hi(K, p.hi);
    std::vector<Lane> lanes(K);
    for (std::size_t k = 0; k < K; ++k) {
        Lane& s = lanes[k];
        s.y = problems[k].y;
        for (const auto& [a, v] : problems[k].held) {
            const double y = (v - p.x0[static_cast<std::size_t>(p.free[a])]) / p.scale[a];
            s.y[a] = lo[k][a] = hi[k][a] = y;
        }
        s.lo = &lo[k];
        s.hi = &hi[k];
    }
    HeldEvaluator ev(model, data, p, problems);
    CovarianceSchur m(cov_y, nf, K);
    EdmStop stop(tol);
    LockstepRules rules;
    rules.memory = kMemory;
    rules.max_iterations = kMaxIterations;
    rules.restart_with_matrix = true;
    rules.hold_outward = true;
    rules.shorten_to_box = true;
    rules.accept_by_gradient = true;
    run_lockstep_lbfgs(lanes, ev, m, stop, rules);
    for (std::size_t k = 0; k < K; ++k) {
        out[k].x = ev.to_x(lanes[k].y, k);
        out[k].f = lanes[k].f;
        out[k].edm = lanes[k].edm;
        out[k].converged = lanes[k].status == LaneStatus::converged;
        out[k].iterations = lanes[k].iterations;
        out[k].evaluations = lanes[k].evaluations;
    }
    return out;
}

}  // namespace hf::infer::detail
