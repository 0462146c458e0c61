// Fits with some parameters held at given values, around a free fit: what ranking, profile scans and intervals
// are made of. Each starts at the linear prediction of the free fit's covariance (the other parameters move by
// C[:, held] C[held, held]^-1 times the held parameters' shift), which is within rounding of the answer for
// small shifts. They run as one batched fit (see held_batch.cpp), then alone with fit() where the batch
// did not converge (or all alone when batching is off), on worker threads with their own model copies.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hfcore/diagnostics.hpp"
#include "infer/diagnostics/parameter_lookup.hpp"
#include "infer/minimize/basin_search.hpp"
#include "infer/minimize/held_batch.hpp"
#include "infer/minimize/problem.hpp"

namespace hf::infer::detail {

using HeldValues = std::vector<std::pair<std::int64_t, double>>;  // parameter index, value

struct HeldFitProblem {
    HeldValues held;
    std::vector<double> start;  // all parameters; empty = the linear prediction from the free fit
};


// A held fit the batch says converged, polished to its local minimum (HeldFits::polish_batched), then searched
// for other basins as a single fit is (search_basins from y, f and newton, which it replaces by a lower minimum).
struct HeldMinimum {
    Problem hp;  // the held fit's own problem: the held parameters fixed; n_eval the local fit's cost
    std::vector<double> y;
    double f = 0.0;
    NewtonOutcome newton;
    bool by_free_curvature = false;          // converged on the free fit's curvature, without a Hessian
    std::vector<std::vector<double>> given;  // the search's given starts (known_starts)
    BasinSearch search;
};

class HeldFits {
public:
    // Runs the free fit (with uncertainties) unless `free_fit` is given with them.
    HeldFits(const Model& model, const std::vector<double>& data, const DiagnosticOptions& options,
              const FitResult* free_fit = nullptr);
    ~HeldFits();

    const FitConfig& config() const { return config_; }  // resolved
    const FitResult& free_fit() const { return free_; }
    const std::vector<std::string>& names() const { return names_; }

    // The start of a fit with `held` at their values: `base` (default: the free fit's minimum) moved along the free
    // fit's covariance by the held parameters' shift from their values in `base`, within bounds.
    std::vector<double> predicted_start(const HeldValues& held, const std::vector<double>* base = nullptr) const;

    std::vector<HeldFit> run(const std::vector<HeldFitProblem>& problems);

    // The largest difference between two parameter points in units of the parameters' widths (the free
    // fit's uncertainties).
    double scaled_distance(const std::vector<double>& a, const std::vector<double>& b) const;

    // The global-minimum rule: a held fit is never below the free fit. When one is (by more than rounding),
    // the free fit is redone from the lowest such point and true is returned: the caller starts again.
    bool free_fit_improved(const std::vector<HeldFit>& outcomes);

    std::int64_t n_batched = 0, n_single = 0;
    int restarts = 0;

private:
    void set_free_fit(FitResult r);
    // Problems with their starts filled in.
    std::vector<HeldFitProblem> with_starts(const std::vector<HeldFitProblem>& problems) const;
    // `probs` on `model` (this object's or a worker's): one batched fit, then alone with fit() where the batch
    // did not converge (on `threads` threads, worker t > 0 on workers_[t - 1], when `model` is this one's).
    std::vector<HeldFit> solve(const Model& model, const std::vector<HeldFitProblem>& probs, int threads,
                                       const ProgressFn& progress);
    // run() through options_.held_runner: blocks of options_.held_block problems.
    std::vector<HeldFit> run_blocks(const std::vector<HeldFitProblem>& probs);
    // The free fit's minimum with the held parameters at their values: one more start of every held fit's basin
    // search (a start moved along the covariance far from the minimum can lead a descent into a higher basin than
    // this one does: random_workspace.py seeds 10 and 13 with --channels 2 --bins 3 --samples 3).
    std::vector<double> free_with(const HeldValues& held) const;
    // The given starts of a held fit's basin search: FitOptions::other_starts and free_with(the held values).
    std::vector<std::vector<double>> known_starts(const HeldFitProblem& pr) const;
    // The configuration of a fit with `held` at their values: the resolved one with those parameters fixed
    // (FitConfig::fixed) at their values.
    FitConfig held_config(const HeldValues& held) const;
    // A problem the batch says converged at `x`, finished as a single fit finishes, in two steps. First the
    // Newton polish that decides convergence (exact gradient projected on the bounds, finite-difference Hessian;
    // `hints` are the Hessians of this batch's other problems) into h, ready for the basin search (its given
    // starts); false when the polish does not converge there: the problem is refitted alone. Then, after the
    // basin search (search_basins, alone or in lockstep with the others'), the outcome and its reason into `o`
    // (false, and `o` untouched, where the likelihood is not finite at the minimum).
    bool polish_batched(const Model& model, const BoundLikelihood& data_t, const HeldFitProblem& pr,
                        const HeldSolution& sol, HessianHints* hints, HeldMinimum& h) const;
    bool report_batched(const HeldFitProblem& pr, const HeldSolution& sol, const HeldMinimum& h, HeldFit& o) const;
    // The edm of the held problem `hp` at y (exact gradient g) on the free fit's curvature: 0.5 pg.M pg with M the
    // free fit's covariance conditioned on the held and bound-active parameters (the inverse of the free
    // Hessian's block of the others). Infinity where that curvature cannot stand in for the Hessian at y.
    double free_curvature_edm(const Problem& hp, const std::vector<double>& y, const std::vector<double>& g,
                              const HeldValues& held) const;
    // Every problem the batch says converged, finished (polish_batched, the basin search, report_batched) on
    // `threads` threads (worker t > 0 on workers_[t - 1], when `model` is this one's); finished[k] says which were.
    // The searches run one problem at a time, or in lockstep (routines_on_fibers.hpp) where the backend's batched
    // calls pay
    // (or HFCORE_HELD_LOCKSTEP says so): the same fits either way.
    void finish_all(const Model& model, const BoundLikelihood& data_t, int threads,
                    const std::vector<HeldFitProblem>& probs, const std::vector<HeldSolution>& sol,
                    std::vector<HeldFit>& out, std::vector<char>& finished);
    // The threads for `items` independent items on `model` (resolve_threads(threads), at most one per item; one
    // when `model` is a worker's), with a worker model made for each thread past the first.
    int worker_count(const Model& model, int threads, std::size_t items);
    // Fits problems[which[i]] alone with fit() on `model`, on `threads` threads, into out[which[i]];
    // batch_ends[which[i]] (when not empty: where the batch stopped) is one more start of its basin search.
    void run_single(const Model& model, int threads, const std::vector<HeldFitProblem>& problems,
                    const std::vector<std::vector<double>>& batch_ends,
                    const std::vector<std::size_t>& which, std::vector<HeldFit>& out,
                    std::int64_t done_before, const ProgressFn& progress);

    const Model& model_;
    std::vector<double> data_;
    BoundLikelihood data_t_;  // data_ bound to model_, once
    DiagnosticOptions options_;
    FitConfig config_;
    FitResult free_;
    std::vector<std::string> names_;
    Problem problem_;             // every parameter free that the configuration leaves free
    std::vector<double> cov_y_;   // the free fit's covariance in the problem's scaled variables
    // cov_y_ is the inverse of a positive definite Hessian that resolved every direction (no unit widths put in).
    bool cov_resolved_ = false;
    std::vector<std::unique_ptr<Model>> workers_;  // model copies for threads, made on first use
    int calls_ = 0;  // run() calls so far: names the held runner's units
};

}  // namespace hf::infer::detail
