#include "infer/diagnostics/held_fits.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <limits>
#include <sstream>
#include <string>

#include "hfcore/backend.hpp"
#include "hfcore/plugin/backend.hpp"
#include "hfcore/executor.hpp"
#include "hfcore/infer_advanced.hpp"
#include "hfcore/observed_data.hpp"
#include "infer/fit_from.hpp"
#include "infer/minimize/basin_search.hpp"
#include "infer/minimize/descent.hpp"
#include "infer/minimize/routines_on_fibers.hpp"
#include "numerics/dense.hpp"

namespace hf::infer::detail {

namespace {

// Whether the held fits' basin searches run in lockstep (routines_on_fibers.hpp): where the backend says batched calls
// pay
// (a device's latency per call; on the cpu plugin a point costs the same alone or batched, and the lockstep's
// bookkeeping is not repaid). HFCORE_HELD_LOCKSTEP=1 or =0 forces either path: both give the same fits, bit for
// bit (the tests compare them, bench/compare_held_batching.py times them).
bool searches_in_lockstep(const Backend& backend) {
    if (const char* forced = std::getenv("HFCORE_HELD_LOCKSTEP"); forced && *forced) return std::string(forced) != "0";
    return batched_calls_pay(backend);
}

}  // namespace

HeldFits::HeldFits(const Model& model, const std::vector<double>& data, const DiagnosticOptions& options,
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
        const std::vector<double> start = free_fit ? free_fit->bestfit : std::vector<double>{};
        set_free_fit(detail::fit_from(model, data_t_, config_, fo, start));
    }
}

HeldFits::~HeldFits() = default;

void HeldFits::set_free_fit(FitResult r) {
    free_ = std::move(r);
    problem_ = make_problem(model_, data_t_, config_);
    const std::size_t f = problem_.nfree();
    const auto np = static_cast<std::size_t>(model_.n_pars());
    cov_y_.assign(f * f, 0.0);
    bool resolved = true;
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
            resolved = false;
        }
    }
    std::vector<double> factor;
    cov_resolved_ = resolved && numerics::shifted_cholesky(cov_y_, f, factor) == 0.0;
}

std::vector<double> HeldFits::predicted_start(const HeldValues& held, const std::vector<double>* base) const {
    const Problem& p = problem_;
    const std::size_t f = p.nfree();
    const std::vector<double>& from = base ? *base : free_.bestfit;
    std::vector<double> y = p.to_y(from);
    std::vector<std::size_t> pin;
    std::vector<double> shift;
    for (const auto& [i, v] : held) {
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
        numerics::shifted_cholesky(cpp, m, factor);
        const auto w = numerics::cholesky_solve(factor, m, shift);
        for (std::size_t a = 0; a < f; ++a) {
            double d = 0.0;
            for (std::size_t r = 0; r < m; ++r) d += cov_y_[a * f + pin[r]] * w[r];
            y[a] = std::clamp(y[a] + d, p.lo[a], p.hi[a]);
        }
    }
    std::vector<double> x = p.to_x(y);
    for (const auto& [i, v] : held) x[static_cast<std::size_t>(i)] = v;
    return x;
}

double HeldFits::scaled_distance(const std::vector<double>& a, const std::vector<double>& b) const {
    double d = 0.0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        const double w = free_.uncertainties[i];
        if (w > 0.0 && std::isfinite(w)) d = std::max(d, std::fabs(a[i] - b[i]) / w);
    }
    return d;
}

std::vector<HeldFitProblem> HeldFits::with_starts(const std::vector<HeldFitProblem>& problems) const {
    std::vector<HeldFitProblem> probs = problems;
    for (auto& pr : probs)
        if (pr.start.empty()) pr.start = predicted_start(pr.held);
    return probs;
}

std::vector<HeldFit> HeldFits::run(const std::vector<HeldFitProblem>& problems) {
    const std::vector<HeldFitProblem> probs = with_starts(problems);
    ++calls_;
    std::vector<HeldFit> out = options_.held_runner && !probs.empty()
                                           ? run_blocks(probs)
                                           : solve(model_, probs, options_.threads, options_.progress);
    for (const auto& o : out) ++(o.batched ? n_batched : n_single);
    return out;
}

std::vector<HeldFit> HeldFits::run_blocks(const std::vector<HeldFitProblem>& probs) {
    const auto size = static_cast<std::size_t>(std::max<std::int64_t>(1, options_.held_block));
    const std::size_t n_blocks = (probs.size() + size - 1) / size;
    auto block_fn = [&](const Model& model, std::size_t b) {
        const auto first = probs.begin() + static_cast<std::ptrdiff_t>(b * size);
        const std::vector<HeldFitProblem> sub(
            first, first + static_cast<std::ptrdiff_t>(std::min(size, probs.size() - b * size)));
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
    std::vector<HeldFit> out;
    out.reserve(probs.size());
    for (const auto& b : blocks) out.insert(out.end(), b.begin(), b.end());
    if (out.size() != probs.size())
        throw Error("held fits: " + std::to_string(out.size()) + " results for " + std::to_string(probs.size()) + " fits");
    return out;
}

std::vector<HeldFit> HeldFits::solve(const Model& model, const std::vector<HeldFitProblem>& problems,
                                              int threads, const ProgressFn& progress) {
    std::vector<HeldFitProblem> probs = problems;
    std::vector<HeldFit> out(probs.size());
    std::vector<std::size_t> single;
    std::vector<std::vector<double>> batch_ends(probs.size());
    if (options_.batched && !probs.empty()) {
        // A worker's model has its own backend: its data and scaled problem live there.
        const bool own = &model == &model_;
        const BoundLikelihood data_t = own ? data_t_ : model.bind(data_);
        Problem p = own ? problem_ : make_problem(model, data_t, config_);
        std::vector<HeldStart> starts(probs.size());
        for (std::size_t k = 0; k < probs.size(); ++k) {
            starts[k].y = p.to_y(probs[k].start);
            for (std::size_t a = 0; a < p.nfree(); ++a) starts[k].y[a] = std::clamp(starts[k].y[a], p.lo[a], p.hi[a]);
            for (const auto& [i, v] : probs[k].held) {
                auto it = std::find(p.free.begin(), p.free.end(), static_cast<int>(i));
                if (it != p.free.end()) starts[k].held.emplace_back(static_cast<std::size_t>(it - p.free.begin()), v);
            }
        }
        // A thousand times below the fits' tolerance: an edm of 1e-9 still allows the POI to be 4e-5 of its
        // uncertainty off, a thousandth of a small impact; the last steps of the batch are cheap.
        const double tol = 1e-3 * (options_.fit.tolerance > 0 ? options_.fit.tolerance : default_tolerance(model));
        auto sol = solve_held_batch(model, data_t, p, cov_y_, starts, tol);
        // The batch's own stop rule rests on an approximate inverse Hessian (the free fit's, updated by its
        // steps), which a point far from the free minimum can make wrong: every problem it calls converged is
        // finished as a single fit is, and one that does not converge there is refitted alone.
        std::vector<char> finished(probs.size(), 0);
        finish_all(model, data_t, threads, probs, sol, out, finished);
        for (std::size_t k = 0; k < probs.size(); ++k) {
            if (finished[k]) continue;
            // Refitted from its own start as --no-batch does, the batch's end point one more start of its basin
            // search (the lower minimum is kept).
            if (std::isfinite(sol[k].f)) batch_ends[k] = sol[k].x;
            single.push_back(k);
        }
    } else {
        for (std::size_t k = 0; k < probs.size(); ++k) single.push_back(k);
    }
    const auto done = static_cast<std::int64_t>(probs.size() - single.size());
    if (progress) progress(done, static_cast<std::int64_t>(probs.size()), "fits");
    if (!single.empty()) run_single(model, threads, probs, batch_ends, single, out, done, progress);
    return out;
}

void HeldFits::finish_all(const Model& model, const BoundLikelihood& data_t, int threads,
                           const std::vector<HeldFitProblem>& probs, const std::vector<HeldSolution>& sol,
                           std::vector<HeldFit>& out, std::vector<char>& finished) {
    // Problems that hold the same parameters share the polish's Hessians (hints), in runs of at most kHintRun
    // consecutive ones with hints of their own: a run is the unit dealt to threads, and what a problem finds
    // among the hints depends only on the problems before it in its run, so the results depend neither on the
    // number of threads nor on their timing (nor, as before, on how blocks are dealt to threads and ranks).
    constexpr std::size_t kHintRun = 8;
    std::vector<std::vector<std::size_t>> runs;
    {
        std::vector<std::pair<std::vector<std::int64_t>, std::size_t>> open;  // held indices -> its last run
        for (std::size_t k = 0; k < probs.size(); ++k) {
            if (!sol[k].converged) continue;
            std::vector<std::int64_t> held;
            for (const auto& [i, v] : probs[k].held) held.push_back(static_cast<std::int64_t>(i));
            std::sort(held.begin(), held.end());
            auto it = std::find_if(open.begin(), open.end(), [&](const auto& e) { return e.first == held; });
            if (it == open.end()) {
                runs.emplace_back();
                open.emplace_back(std::move(held), runs.size() - 1);
                it = open.end() - 1;
            } else if (runs[it->second].size() >= kHintRun) {
                runs.emplace_back();
                it->second = runs.size() - 1;
            }
            runs[it->second].push_back(k);
        }
    }
    const int nthreads = worker_count(model, threads, runs.size());
    // Each worker's data bound once, on its own model.
    std::vector<BoundLikelihood> bound;
    for (int t = 1; t < nthreads; ++t) bound.push_back(workers_[static_cast<std::size_t>(t - 1)]->bind(data_));
    auto model_of = [&](int t) -> const Model& {
        return t == 0 ? model : *workers_[static_cast<std::size_t>(t - 1)];
    };
    auto data_of = [&](int t) -> const BoundLikelihood& {
        return t == 0 ? data_t : bound[static_cast<std::size_t>(t - 1)];
    };
    std::vector<HeldMinimum> polished(probs.size());
    std::vector<char> ready(probs.size(), 0);
    const MinimizerControls& controls = minimizer_controls(options_.fit);
    const bool search = controls.basin_search && controls.polish;
    const double tol = options_.fit.tolerance > 0 ? options_.fit.tolerance : default_tolerance(model);
    const bool in_lockstep = search && searches_in_lockstep(*model.backend());
    run::for_each_index(runs.size(), nthreads, [&](std::size_t r, int t) {
        const auto hints = make_hessian_hints();
        for (std::size_t k : runs[r]) {
            ready[k] = polish_batched(model_of(t), data_of(t), probs[k], sol[k], hints.get(), polished[k]);
            if (in_lockstep || !ready[k]) continue;
            // One problem at a time: its search right after its polish, on the same model.
            HeldMinimum& h = polished[k];
            if (search && h.hp.nfree() > 0)
                h.search = search_basins(model_of(t), h.hp, h.y, h.f, h.newton, tol, h.given);
            finished[k] = report_batched(probs[k], sol[k], h, out[k]);
            h = HeldMinimum{};
        }
    });
    if (!in_lockstep) return;
    // The basin search of the polished problems, kSearchChunk at a time in lockstep (routines_on_fibers.hpp: the single
    // search of each, its evaluations batched with the others'), each chunk on the model of the thread that takes
    // it.
    constexpr std::size_t kSearchChunk = 128;
    std::vector<std::vector<std::size_t>> chunks;
    for (std::size_t k = 0; k < probs.size(); ++k) {
        if (!ready[k]) continue;
        if (chunks.empty() || chunks.back().size() >= kSearchChunk) chunks.emplace_back();
        chunks.back().push_back(k);
    }
    run::for_each_index(chunks.size(), std::min(nthreads, static_cast<int>(chunks.size())), [&](std::size_t c, int t) {
        const Model& m = model_of(t);
        const BoundLikelihood& d = data_of(t);
        for (std::size_t k : chunks[c]) {
            // On this thread's model (the polish may have run on another's), at the polish's cost.
            const std::int64_t cost = polished[k].hp.n_eval;
            polished[k].hp = make_problem(m, d, held_config(probs[k].held));
            polished[k].hp.n_eval = cost;
        }
        Lockstep lockstep(m, d);
        std::vector<std::function<void()>> tasks;
        for (std::size_t k : chunks[c]) {
            HeldMinimum& h = polished[k];
            if (h.hp.nfree() == 0) continue;
            tasks.push_back([&h, &lockstep, &m, tol] {
                h.hp.lockstep = &lockstep;
                h.search = search_basins(m, h.hp, h.y, h.f, h.newton, tol, h.given);
                h.hp.lockstep = nullptr;
            });
        }
        lockstep.run(tasks);
        for (std::size_t k : chunks[c]) finished[k] = report_batched(probs[k], sol[k], polished[k], out[k]);
    });
}

int HeldFits::worker_count(const Model& model, int threads, std::size_t items) {
    // Each thread past the first works on its own copy of this object's model (its own backend instance: queue and
    // caches of its own; docs/architecture.md, Threads); a worker's model (not this object's) gets no threads.
    if (&model != &model_) return 1;
    const auto wanted = static_cast<std::size_t>(run::resolve_threads(threads));
    const int n = static_cast<int>(std::min(items, wanted));
    while (static_cast<int>(workers_.size()) < n - 1) workers_.push_back(model_.clone());
    return std::max(1, n);
}

std::vector<double> HeldFits::free_with(const HeldValues& held) const {
    std::vector<double> x = free_.bestfit;
    for (const auto& [i, v] : held) x[static_cast<std::size_t>(i)] = v;
    return x;
}

std::vector<std::vector<double>> HeldFits::known_starts(const HeldFitProblem& pr) const {
    std::vector<std::vector<double>> out = minimizer_controls(options_.fit).other_starts;
    out.push_back(free_with(pr.held));
    return out;
}

FitConfig HeldFits::held_config(const HeldValues& held) const {
    FitConfig c = config_;
    for (const auto& [i, v] : held) {
        const auto k = static_cast<std::size_t>(i);
        c.fixed[k] = true;
        c.init[k] = v;
        c.bounds[k] = {std::min(c.bounds[k].first, v), std::max(c.bounds[k].second, v)};
    }
    return c;
}

void HeldFits::run_single(const Model& model, int threads, const std::vector<HeldFitProblem>& problems,
                           const std::vector<std::vector<double>>& batch_ends, const std::vector<std::size_t>& which,
                           std::vector<HeldFit>& out,
                           std::int64_t done_before, const ProgressFn& progress) {
    const int nthreads = worker_count(model, threads, which.size());

    auto fit_one = [&](const Model& m, const HeldFitProblem& pr, const std::vector<double>& batch_end,
                       HeldFit& o) {
        try {
            const FitConfig c = held_config(pr.held);
            MinimizerControls controls = minimizer_controls(options_.fit);
            std::vector<double> start = pr.start;
            // A start moved along the covariance can leave the region where the likelihood exists (negative
            // yields far out on a scan): the free fit's minimum with the held values is the start then.
            if (!std::isfinite(m.logpdf(pr.start, data_))) {
                start = free_.bestfit;
                for (const auto& [i, v] : pr.held) start[static_cast<std::size_t>(i)] = v;
            }
            if (!batch_end.empty()) controls.other_starts.push_back(batch_end);
            controls.other_starts.push_back(free_with(pr.held));
            FitOptions fo = with_minimizer_controls(options_.fit, std::move(controls));
            fo.uncertainties = false;
            FitResult r = detail::fit_from(m, data_, c, fo, start);
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
    std::atomic<std::int64_t> done{done_before};
    const auto total = done_before + static_cast<std::int64_t>(which.size());
    run::for_each_index(which.size(), nthreads, [&](std::size_t j, int t) {
        const Model& m = t == 0 ? model : *workers_[static_cast<std::size_t>(t - 1)];
        fit_one(m, problems[which[j]], batch_ends[which[j]], out[which[j]]);
        if (progress) progress(++done, total, "fits");
    });
}

bool HeldFits::free_fit_improved(const std::vector<HeldFit>& outcomes) {
    const HeldFit* lowest = nullptr;
    for (const auto& o : outcomes)
        if (std::isfinite(o.twice_nll) && (!lowest || o.twice_nll < lowest->twice_nll)) lowest = &o;
    // Beyond the fits' own tolerance (edm 1e-9 in NLL) and the likelihood's rounding.
    const double margin = 1e-6 + 1e-12 * std::fabs(free_.twice_nll);
    if (!lowest || !(lowest->twice_nll < free_.twice_nll - margin)) return false;
    FitOptions fo = options_.fit;
    fo.uncertainties = true;
    FitResult r = detail::fit_from(model_, data_t_, config_, fo, lowest->bestfit);
    if (!(r.twice_nll < free_.twice_nll)) return false;
    set_free_fit(std::move(r));
    ++restarts;
    return true;
}

}  // namespace hf::infer::detail
