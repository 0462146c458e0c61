// The toys' fits: K problems, one data row each, in the lockstep L-BFGS engine (lockstep_lbfgs.hpp), a
// cache-sized group at a time, with the toys' curvature (preconditioners.hpp, SharedThenOwnCurvature) and the
// projected-gradient stop (stop_rules.hpp), from one start, a start each, or against a minimum each problem
// already has (batch_fit.hpp). Why each constant has its value: docs/decisions/batch-fit-*.md.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "hfcore/backend.hpp"
#include "infer/minimize/basin_search.hpp"
#include "infer/minimize/batch_fit.hpp"
#include "infer/minimize/inverse_hessian.hpp"
#include "infer/minimize/lockstep_lbfgs.hpp"
#include "infer/minimize/preconditioners.hpp"
#include "infer/minimize/problem.hpp"
#include "infer/minimize/stop_rules.hpp"

namespace hf::infer {

namespace {

// Steps kept per problem. The memory decides which local minimum a toy fit of a likelihood with many ends in, so
// it is part of the results: 10 keeps the minima of earlier releases; more pairs save evaluations but move minima
// (docs/decisions/batch-fit-lbfgs-memory.md).
constexpr int kMemory = 10;

class BatchEvaluator : public detail::LaneEvaluator {
public:
    BatchEvaluator(const Model& model, const Tensor& data_kn, const detail::Problem& p)
        : model_(model), data_(data_kn), p_(p) {}

    // NLL and y-gradients of problems `idx` at points ys (each of length F).
    void evaluate(const std::vector<int>& idx, const std::vector<const std::vector<double>*>& ys,
                  std::vector<double>& f, std::vector<double>& g) override {
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

// Problems [first, first + K) of the batch (data rows data_kn), fitted in lockstep to the end.
int fit_group(const Model& model, const Tensor& data_kn, const detail::Problem& p, detail::InverseHessian& h0,
              const std::vector<double>& y0, const std::vector<double>* starts, const BatchFitResult* known,
              const detail::BasinReturn* back, std::int64_t first, double gtol, BatchFitResult& out) {
    const std::int64_t K = data_kn.dim(0);
    const std::int64_t np = model.n_pars();
    const std::size_t nf = p.nfree();
    std::vector<detail::Lane> lanes(static_cast<std::size_t>(K));
    std::vector<detail::KnownMinimum> minima(known ? static_cast<std::size_t>(K) : 0);
    for (std::int64_t k = 0; k < K; ++k) {
        detail::Lane& s = lanes[static_cast<std::size_t>(k)];
        s.lo = &p.lo;
        s.hi = &p.hi;
        if (starts) {
            std::vector<double> x(starts->begin() + (first + k) * np, starts->begin() + (first + k + 1) * np);
            s.y = p.to_y(x);
            for (std::size_t i = 0; i < nf; ++i) s.y[i] = std::clamp(s.y[i], p.lo[i], p.hi[i]);
        } else {
            s.y = y0;
        }
        if (known && known->converged[first + k]) {
            std::vector<double> x(known->bestfit.begin() + (first + k) * np,
                                  known->bestfit.begin() + (first + k + 1) * np);
            auto& kn = minima[static_cast<std::size_t>(k)];
            kn.y = p.to_y(x);
            kn.f = 0.5 * known->twice_nll[first + k];
            if (back) kn.moved = back->moved[static_cast<std::size_t>(first + k)];
        }
    }
    BatchEvaluator ev(model, data_kn, p);
    // Not where the Jacobian would be differences of expected data: on a GPU backend 2 x parameters points per toy
    // to upload and evaluate, several times a fit's traffic, for a saving that was measured on the cpu plugin.
    const bool own_curvature = known == nullptr && model.native_jacobian();
    detail::SharedThenOwnCurvature m(model, p, h0, own_curvature, lanes.size(), known ? &minima : nullptr);
    const std::vector<std::size_t> multimodal =
        known ? detail::multimodal_free(model, p) : std::vector<std::size_t>{};
    detail::ProjectedGradientStop stop(p, gtol, known ? &minima : nullptr, multimodal,
                                       back ? back->multimodal : nullptr);
    detail::LockstepRules rules;
    rules.memory = kMemory;
    rules.max_iterations = 1000;
    const int it = detail::run_lockstep_lbfgs(lanes, ev, m, stop, rules);
    for (std::int64_t k = 0; k < K; ++k) {
        const std::int64_t row = first + k;
        const detail::Lane& s = lanes[static_cast<std::size_t>(k)];
        if (known && minima[static_cast<std::size_t>(k)].reached) {
            std::copy(known->bestfit.begin() + row * np, known->bestfit.begin() + (row + 1) * np,
                      out.bestfit.begin() + row * np);
            out.twice_nll[row] = known->twice_nll[row];
        } else {
            auto x = p.to_x(s.y);
            std::copy(x.begin(), x.end(), out.bestfit.begin() + row * np);
            out.twice_nll[row] = 2.0 * s.f;
        }
        out.converged[row] = s.status == detail::LaneStatus::converged;
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
