#include "infer/fixed_fits.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <sstream>
#include <thread>

#include "hfcore/backend.hpp"
#include "hfcore/observed_data.hpp"
#include "infer/dense.hpp"

namespace hf::infer::detail {

FixedFits::FixedFits(const Model& model, const std::vector<double>& data, const DiagnosticOptions& options,
                     const FitResult* free_fit)
    : model_(model), data_(data), options_(options), config_(options.config.resolved(model)),
      names_(model.par_names()) {
    check_observed_data(model, data, "diagnostics");
    data_t_ = model.bind(data);
    const auto np = static_cast<std::size_t>(model.n_pars());
    if (free_fit && free_fit->uncertainties.size() == np && free_fit->correlations.size() == np * np) {
        set_free_fit(*free_fit);
    } else {
        FitOptions fo = options.fit;
        fo.uncertainties = true;
        if (free_fit) fo.start = free_fit->bestfit;
        set_free_fit(fit(model, data_t_, config_, fo));
    }
}

FixedFits::~FixedFits() = default;

void FixedFits::set_free_fit(FitResult r) {
    free_ = std::move(r);
    problem_ = make_problem(model_, data_t_, config_);
    const std::size_t f = problem_.nfree();
    const auto np = static_cast<std::size_t>(model_.n_pars());
    cov_y_.assign(f * f, 0.0);
    for (std::size_t a = 0; a < f; ++a) {
        const std::size_t ia = static_cast<std::size_t>(problem_.free[a]);
        const double ua = free_.uncertainties[ia] / problem_.scale[a];
        for (std::size_t b = 0; b < f; ++b) {
            const std::size_t ib = static_cast<std::size_t>(problem_.free[b]);
            const double ub = free_.uncertainties[ib] / problem_.scale[b];
            cov_y_[a * f + b] = a == b ? ua * ua : ua * ub * free_.correlations[ia * np + ib];
        }
        // A direction the Hessian could not resolve: unit width in scaled variables, no correlation.
        if (!(ua > 0.0) || !std::isfinite(ua)) {
            for (std::size_t b = 0; b < f; ++b) cov_y_[a * f + b] = cov_y_[b * f + a] = 0.0;
            cov_y_[a * f + a] = 1.0;
        }
    }
}

std::vector<double> FixedFits::predicted_start(const FixedValues& fixed, const std::vector<double>* base) const {
    const Problem& p = problem_;
    const std::size_t f = p.nfree();
    const std::vector<double>& from = base ? *base : free_.bestfit;
    std::vector<double> y = p.to_y(from);
    std::vector<std::size_t> pin;
    std::vector<double> shift;
    for (const auto& [i, v] : fixed) {
        auto it = std::find(p.free.begin(), p.free.end(), static_cast<int>(i));
        if (it == p.free.end()) continue;
        const auto a = static_cast<std::size_t>(it - p.free.begin());
        pin.push_back(a);
        shift.push_back((v - from[static_cast<std::size_t>(i)]) / p.scale[a]);
    }
    if (!pin.empty()) {
        const std::size_t m = pin.size();
        std::vector<double> cpp(m * m), factor;
        for (std::size_t r = 0; r < m; ++r)
            for (std::size_t c = 0; c < m; ++c) cpp[r * m + c] = cov_y_[pin[r] * f + pin[c]];
        shifted_cholesky(cpp, m, factor);
        const auto w = cholesky_solve(factor, m, shift);
        for (std::size_t a = 0; a < f; ++a) {
            double d = 0.0;
            for (std::size_t r = 0; r < m; ++r) d += cov_y_[a * f + pin[r]] * w[r];
            y[a] = std::clamp(y[a] + d, p.lo[a], p.hi[a]);
        }
    }
    std::vector<double> x = p.to_x(y);
    for (const auto& [i, v] : fixed) x[static_cast<std::size_t>(i)] = v;
    return x;
}

double FixedFits::scaled_distance(const std::vector<double>& a, const std::vector<double>& b) const {
    double d = 0.0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        const double w = free_.uncertainties[i];
        if (w > 0.0 && std::isfinite(w)) d = std::max(d, std::fabs(a[i] - b[i]) / w);
    }
    return d;
}

std::vector<FixedFitProblem> FixedFits::with_starts(const std::vector<FixedFitProblem>& problems) const {
    std::vector<FixedFitProblem> probs = problems;
    for (auto& pr : probs)
        if (pr.start.empty()) pr.start = predicted_start(pr.fixed);
    return probs;
}

std::vector<FixedFitOutcome> FixedFits::run(const std::vector<FixedFitProblem>& problems) {
    const std::vector<FixedFitProblem> probs = with_starts(problems);
    ++calls_;
    std::vector<FixedFitOutcome> out = options_.held_runner && !probs.empty()
                                           ? run_blocks(probs)
                                           : solve(model_, probs, options_.threads, options_.progress);
    for (const auto& o : out) ++(o.batched ? n_batched : n_single);
    return out;
}

std::vector<FixedFitOutcome> FixedFits::run_blocks(const std::vector<FixedFitProblem>& probs) {
    const auto size = static_cast<std::size_t>(std::max<std::int64_t>(1, options_.held_block));
    const std::size_t n_blocks = (probs.size() + size - 1) / size;
    auto block_fn = [&](const Model& model, std::size_t b) {
        const auto first = probs.begin() + static_cast<std::ptrdiff_t>(b * size);
        const std::vector<FixedFitProblem> sub(first, first + static_cast<std::ptrdiff_t>(std::min(size, probs.size() - b * size)));
        return solve(model, sub, 1, {});
    };
    std::function<void(std::int64_t, std::int64_t)> blocks_done;
    if (options_.progress) {
        const auto total = static_cast<std::int64_t>(probs.size());
        blocks_done = [this, total, size](std::int64_t done, std::int64_t) {
            options_.progress(std::min<std::int64_t>(total, done * static_cast<std::int64_t>(size)), total, "fits");
        };
    }
    // The n-th run() of this object: every rank makes the same calls in the same order.
    const auto blocks = options_.held_runner(n_blocks, "held" + std::to_string(calls_), block_fn, blocks_done);
    std::vector<FixedFitOutcome> out;
    out.reserve(probs.size());
    for (const auto& b : blocks) out.insert(out.end(), b.begin(), b.end());
    if (out.size() != probs.size())
        throw Error("held fits: " + std::to_string(out.size()) + " results for " + std::to_string(probs.size()) + " fits");
    return out;
}

std::vector<FixedFitOutcome> FixedFits::solve(const Model& model, const std::vector<FixedFitProblem>& problems,
                                              int threads, const ProgressFn& progress) {
    std::vector<FixedFitProblem> probs = problems;
    std::vector<FixedFitOutcome> out(probs.size());
    std::vector<std::size_t> single;
    if (options_.batched && !probs.empty()) {
        // A worker's model has its own backend: its data and scaled problem live there.
        const bool own = &model == &model_;
        const BoundLikelihood data_t = own ? data_t_ : model.bind(data_);
        Problem p = own ? problem_ : make_problem(model, data_t, config_);
        std::vector<PinnedStart> starts(probs.size());
        for (std::size_t k = 0; k < probs.size(); ++k) {
            starts[k].y = p.to_y(probs[k].start);
            for (std::size_t a = 0; a < p.nfree(); ++a) starts[k].y[a] = std::clamp(starts[k].y[a], p.lo[a], p.hi[a]);
            for (const auto& [i, v] : probs[k].fixed) {
                auto it = std::find(p.free.begin(), p.free.end(), static_cast<int>(i));
                if (it != p.free.end()) starts[k].pinned.emplace_back(static_cast<std::size_t>(it - p.free.begin()), v);
            }
        }
        // A thousand times below the fits' tolerance: an edm of 1e-9 still allows the POI to be 4e-5 of its
        // uncertainty off, a thousandth of a small impact; the last steps of the batch are cheap.
        const double tol = 1e-3 * (options_.fit.tolerance > 0 ? options_.fit.tolerance : default_tolerance(model));
        auto sol = solve_pinned_batch(model, data_t, p, cov_y_, starts, tol);
        for (std::size_t k = 0; k < probs.size(); ++k) {
            out[k].bestfit = sol[k].x;
            for (const auto& [i, v] : probs[k].fixed) out[k].bestfit[static_cast<std::size_t>(i)] = v;
            out[k].twice_nll = 2.0 * sol[k].f;
            if (sol[k].converged) {
                out[k].converged = true;
                out[k].batched = true;
                std::ostringstream os;
                os.precision(3);
                os << "converged (batched): edm " << sol[k].edm << " after " << sol[k].iterations << " iterations";
                out[k].reason = os.str();
            } else {
                // The batch's best point is the better start.
                if (std::isfinite(sol[k].f)) probs[k].start = out[k].bestfit;
                single.push_back(k);
            }
        }
    } else {
        for (std::size_t k = 0; k < probs.size(); ++k) single.push_back(k);
    }
    const auto done = static_cast<std::int64_t>(probs.size() - single.size());
    if (progress) progress(done, static_cast<std::int64_t>(probs.size()), "fits");
    if (!single.empty()) run_single(model, threads, probs, single, out, done, progress);
    return out;
}

void FixedFits::run_single(const Model& model, int threads, const std::vector<FixedFitProblem>& problems,
                           const std::vector<std::size_t>& which, std::vector<FixedFitOutcome>& out,
                           std::int64_t done_before, const ProgressFn& progress) {
    int nthreads = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
    nthreads = std::max(1, std::min<int>(nthreads, static_cast<int>(which.size())));
    // Threads never share a backend: worker t > 0 fits on its own copy of this object's model.
    if (&model != &model_) nthreads = 1;
    while (static_cast<int>(workers_.size()) < nthreads - 1) workers_.push_back(model_.clone());

    auto fit_one = [&](const Model& m, const FixedFitProblem& pr, FixedFitOutcome& o) {
        try {
            FitConfig c = config_;
            for (const auto& [i, v] : pr.fixed) {
                const auto k = static_cast<std::size_t>(i);
                c.fixed[k] = true;
                c.init[k] = v;
                c.bounds[k] = {std::min(c.bounds[k].first, v), std::max(c.bounds[k].second, v)};
            }
            FitOptions fo = options_.fit;
            fo.uncertainties = false;
            fo.start = pr.start;
            FitResult r = fit(m, data_, c, fo);
            o.bestfit = std::move(r.bestfit);
            o.twice_nll = r.twice_nll;
            o.converged = r.converged;
            o.reason = r.reason;
        } catch (const std::exception& e) {
            o.converged = false;
            o.twice_nll = std::numeric_limits<double>::quiet_NaN();
            o.reason = e.what();
            if (o.bestfit.empty()) o.bestfit = pr.start;
        }
        o.batched = false;
    };
    std::atomic<std::size_t> next{0};
    std::atomic<std::int64_t> done{done_before};
    const auto total = done_before + static_cast<std::int64_t>(which.size());
    auto worker = [&](int t) {
        const Model& m = t == 0 ? model : *workers_[static_cast<std::size_t>(t - 1)];
        for (std::size_t j = next++; j < which.size(); j = next++) {
            fit_one(m, problems[which[j]], out[which[j]]);
            if (progress) progress(++done, total, "fits");
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < nthreads; ++t) pool.emplace_back(worker, t);
    worker(0);
    for (auto& th : pool) th.join();
}

bool FixedFits::free_fit_improved(const std::vector<FixedFitOutcome>& outcomes) {
    const FixedFitOutcome* lowest = nullptr;
    for (const auto& o : outcomes)
        if (std::isfinite(o.twice_nll) && (!lowest || o.twice_nll < lowest->twice_nll)) lowest = &o;
    // Beyond the fits' own tolerance (edm 1e-9 in NLL) and the likelihood's rounding.
    const double margin = 1e-6 + 1e-12 * std::fabs(free_.twice_nll);
    if (!lowest || !(lowest->twice_nll < free_.twice_nll - margin)) return false;
    FitOptions fo = options_.fit;
    fo.uncertainties = true;
    fo.start = lowest->bestfit;
    FitResult r = fit(model_, data_t_, config_, fo);
    if (!(r.twice_nll < free_.twice_nll)) return false;
    set_free_fit(std::move(r));
    ++restarts;
    return true;
}

}  // namespace hf::infer::detail
