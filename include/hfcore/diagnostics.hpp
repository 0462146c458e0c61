// Fit diagnostics with cabinetry's definitions (cabinetry 0.6: fit.ranking, model_utils.yield_stdev,
// fit._goodness_of_fit, fit.scan, MINOS): pulls and constraints, the ranking of nuisance parameters by their
// impact on the POI, yields with uncertainty bands, profile-likelihood scans, asymmetric (MINOS-like) intervals
// and the saturated-model goodness of fit.
//
// Every function fits first (FitConfig / FitOptions as for fit()) unless it is given a fit. Fits of the same
// problem with some parameters held fixed (ranking, scans, intervals) start from the linear prediction of the
// free fit's covariance, run as one batched fit where the backend evaluates many points at once, or in parallel
// threads, and keep to the global-minimum rules: a held fit never ends below the free fit (if one does, the
// free fit is redone from there and the diagnostic starts again), and a held fit that the batch does not
// bring to convergence is redone with fit().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hfcore/infer.hpp"
#include "hfcore/json.hpp"

namespace hf::infer {

// ---------------------------------------------------------------------------------------------------------
// Parameter widths and centres (cabinetry.model_utils).

// The pre-fit width of every parameter: the constraint's sigma (normal), 1/sqrt(tau) (Poisson: shapesys), and 0
// for unconstrained and fixed parameters (cabinetry prefit_uncertainties).
std::vector<double> prefit_uncertainties(const Model& model);
// The value that maximises each constraint term for the auxiliary data in `data` (aux / tau for Poisson
// constraints, aux for normal ones) and the suggested init for unconstrained parameters (cabinetry
// _parameters_maximizing_constraint_term). `data` is main + aux data.
std::vector<double> constraint_centres(const Model& model, const std::vector<double>& data);
// cabinetry asimov_parameters: 0 for histosys/normsys, 1 for the other constrained ones, the suggested init for
// unconstrained ones. The pre-fit yields are evaluated there.
std::vector<double> asimov_parameters(const Model& model);

// How post-fit uncertainties are reported (pulls, the post-fit impacts' +-1 sigma of ranking, post-fit yields).
enum class UncertaintyConvention {
    // As Minuit, and so cabinetry, reports them for parameters with limits: Minuit fits in internal variables
    // (x = lo + (hi - lo)(sin p + 1)/2 for two-sided bounds, sqrt forms for one-sided ones), takes the
    // Hessian there (at a bound it includes the gradient's term) and reports half the width of the internal
    // +-1 sigma interval mapped back to x. Inside [lo, hi] that is the Hessian's uncertainty times about
    // 1 - (sigma / half range)^2 / 6; at a bound it is what the bound leaves of the interval.
    minuit,
    // The inverse Hessian of the NLL in the parameters themselves (FitResult::uncertainties).
    hessian,
};

// A fit's uncertainties and correlations in the Minuit convention (see UncertaintyConvention::minuit), from its
// Hessian (FitResult::uncertainties, ::correlations), the NLL gradient at the best fit and the bounds of `config`.
struct ReportedUncertainties {
    std::vector<double> uncertainties;  // [P], 0 for fixed parameters
    std::vector<double> correlations;   // [P, P] row-major
};
ReportedUncertainties minuit_uncertainties(const Model& model, const std::vector<double>& data, const FitResult& fit,
                                           const FitConfig& config = {});

// What every diagnostic shares.
// A fit with some parameters held at given values (one impact of a ranking, one point of a profile scan).
struct HeldFit {
    std::vector<double> bestfit;  // all parameters, the held ones at their values
    double twice_nll = 0.0;
    bool converged = false;
    bool batched = false;  // finished in the batched fit (else refitted alone with fit())
    std::string reason;
};
// Computes block `block` of a set of held fits on `model` (a worker's own model).
using HeldFitBlockFn = std::function<std::vector<HeldFit>(const Model& model, std::size_t block)>;
// Computes `n_blocks` blocks of one set of held fits (identified by `tag`, e.g. for a journal) and returns them
// in block order on every rank; `blocks_done` (optional) is told (blocks done, n_blocks) on rank 0. Made by
// make_held_fit_runner (hfcore/distributed.hpp) to use threads and MPI ranks.
using HeldFitRunner = std::function<std::vector<std::vector<HeldFit>>(
    std::size_t n_blocks, const std::string& tag, const HeldFitBlockFn& fn,
    const std::function<void(std::int64_t done, std::int64_t total)>& blocks_done)>;

struct DiagnosticOptions {
    FitConfig config;   // init / bounds / fixed of every fit (empty = the model's suggestion)
    FitOptions fit;     // options of the free fit and of single held fits
    // Held fits: K of them as one batched fit (one logpdf evaluation of K points per step), problems that
    // do not converge there refitted alone. false: each alone with fit(), on `threads` threads.
    bool batched = true;
    int threads = 1;    // worker threads for fits run alone (0 = the number of CPUs)
    UncertaintyConvention uncertainties = UncertaintyConvention::minuit;
    // Optional: called with (fits done, fits to run, label) as the fits with parameters held finish (ranking,
    // profile scans), also from worker threads, so it must be thread-safe (the CLI's ProgressBar::callback() is).
    ProgressFn progress;
    // Optional: where the held fits of ranking and profile scans run, in blocks of `held_block` fits (a block
    // is one batched fit; blocks are the units dealt to threads and ranks). Without it they run here, one batch.
    // The blocks do not depend on the number of threads or ranks, so neither do the results.
    HeldFitRunner held_runner;
    std::int64_t held_block = 32;
};

// ---------------------------------------------------------------------------------------------------------
// Pulls: best-fit values, Hessian uncertainties, and for constrained parameters
//   pull = (value - centre) / prefit width, constraint = uncertainty / prefit width.

struct ParameterPull {
    std::string name;            // "alpha", or "gamma[3]" for a component of a vector parameter
    std::int64_t index = 0;      // in par_names() order
    double value = 0.0;
    double uncertainty = 0.0;    // in DiagnosticOptions::uncertainties' convention; 0 for fixed parameters
    double hessian_uncertainty = 0.0;  // FitResult::uncertainties
    bool constrained = false;
    bool fixed = false;
    double centre = 0.0;         // constraint_centres()
    double prefit_uncertainty = 0.0;
    std::optional<double> pull;        // empty for unconstrained and fixed parameters
    std::optional<double> constraint;  // same
};

struct PullsResult {
    FitResult fit;  // with (Hessian) uncertainties and correlations
    std::vector<ParameterPull> parameters;
    std::vector<double> correlations;  // [P, P] in the chosen convention
};

PullsResult pulls(const Model& model, const std::vector<double>& data, const DiagnosticOptions& options = {});
// From a fit already made (with FitOptions::uncertainties) with `config` (for which parameters were fixed),
// with uncertainties `reported` (empty: the fit's own).
std::vector<ParameterPull> pulls_from_fit(const Model& model, const std::vector<double>& data, const FitResult& fit,
                                          const FitConfig& config = {}, const std::vector<double>& reported = {});

// ---------------------------------------------------------------------------------------------------------
// Ranking (cabinetry fit.ranking): for every parameter but the POI, the POI's shift from its best-fit value when
// the parameter is held at value +- prefit width and at value +- post-fit uncertainty, the other parameters
// refitted. A zero width (unconstrained parameters pre-fit, fixed parameters) gives zero impact without a fit.

struct RankingOptions : DiagnosticOptions {
    std::string poi;  // "" = the model's POI
};

struct RankingEntry {
    std::string name;
    std::int64_t index = 0;
    double value = 0.0, uncertainty = 0.0, prefit_uncertainty = 0.0;
    double centre = 0.0;     // constraint_centres(): the pull is (value - centre) / prefit_uncertainty
    double impact_prefit_up = 0.0, impact_prefit_down = 0.0, impact_postfit_up = 0.0, impact_postfit_down = 0.0;
    bool converged = true;   // all four held fits converged
    std::string reason;      // when not: which fit and why
};

struct RankingResult {
    std::string poi;
    std::int64_t poi_index = -1;
    double poi_hat = 0.0;
    double poi_uncertainty = 0.0;       // in DiagnosticOptions::uncertainties' convention
    FitResult fit;                      // the free fit
    std::vector<RankingEntry> ranking;  // sorted by max(|impact_postfit_up|, |impact_postfit_down|), largest first
    bool converged = true;              // the free fit and every held fit converged
    std::int64_t n_fits = 0;            // held fits run
    std::int64_t n_batched = 0;         // of these, finished in the batched fit
    std::int64_t n_refits = 0;          // run alone after the batch (or all of them when not batched)
    int restarts = 0;                   // free fit redone because a held fit went below it
};

// InputError: no POI (or an unknown poi name), no free nuisance parameter.
RankingResult ranking(const Model& model, const std::vector<double>& data, const RankingOptions& options = {});

// ---------------------------------------------------------------------------------------------------------
// Yields with uncertainty bands (cabinetry model_utils.prediction / yield_stdev): per channel, sample and bin
// the expected yields at the parameters, and the standard deviation by linear error propagation of the
// symmetrised one-sigma variations, v_i = (yield(p + sigma_i e_i) - yield(p - sigma_i e_i)) / 2,
// variance = sum_ij v_i rho_ij v_j. Pre-fit: asimov_parameters(), prefit_uncertainties(), no correlations;
// post-fit: the fit's values, uncertainties and correlations.

struct ChannelYields {
    std::string name;
    std::vector<std::string> samples;             // the model's (sorted) samples
    std::vector<std::vector<double>> yields;      // [sample][bin] (0 for a sample not in this channel)
    std::vector<std::vector<double>> stdev;       // [sample][bin]
    std::vector<double> sample_sums, sample_sums_stdev;  // [sample], summed over the channel's bins
    std::vector<double> total, total_stdev;       // [bin]
    std::vector<double> data;                     // [bin], observed
    double channel_total = 0.0, channel_total_stdev = 0.0;  // summed over bins (the stdev of the sum)
};

struct YieldsResult {
    bool postfit = false;
    std::vector<ChannelYields> channels;
    std::vector<double> parameters, uncertainties;  // where the yields were evaluated
    std::optional<FitResult> fit;                   // post-fit only
};

YieldsResult yields(const Model& model, const std::vector<double>& data, bool postfit,
                    const DiagnosticOptions& options = {});
// At given parameters, uncertainties and correlations (row-major [P, P]; empty = none).
YieldsResult yields_at(const Model& model, const std::vector<double>& data, const std::vector<double>& parameters,
                       const std::vector<double>& uncertainties, const std::vector<double>& correlations);

// ---------------------------------------------------------------------------------------------------------
// Profile-likelihood scans of one or two parameters: 2 (NLL(grid point, other parameters refitted) - NLL_min).

struct ScanAxis {
    std::string name;         // a name of par_names() ("mu", "gamma[2]")
    std::vector<double> values;
    static ScanAxis linear(std::string name, double lo, double hi, int n);
};

struct ProfilePoint {
    std::vector<double> values;  // one per axis
    double twice_nll = 0.0;
    double delta_twice_nll = 0.0;
    bool converged = true;
    std::vector<double> bestfit;  // all parameters
};

struct ProfileResult {
    std::vector<std::string> pars;
    std::vector<double> bestfit;       // the scanned parameters at the free fit
    std::vector<ProfilePoint> points;  // the grid, last axis fastest
    FitResult free_fit;
    double twice_nll_min = 0.0;        // the free fit's (or a lower point found in the scan)
    // 1-D only: where delta_twice_nll crosses 1 (68.27%) and 3.84 (95%), interpolated in sqrt(delta) between
    // grid points; an end outside the grid is empty, or the parameter's bound when the grid reaches it.
    std::map<std::string, std::pair<std::optional<double>, std::optional<double>>> intervals;
    bool converged = true;
    int restarts = 0;
};

// InputError: unknown parameter, a parameter fixed in the configuration, a value outside the parameter's bounds,
// fewer than two values, more than two axes, the same parameter twice.
ProfileResult profile_scan(const Model& model, const std::vector<double>& data, const std::vector<ScanAxis>& axes,
                           const DiagnosticOptions& options = {});

// ---------------------------------------------------------------------------------------------------------
// Asymmetric intervals: the two values where the profile of a parameter reaches 2 Delta NLL = 1, found by root
// finding on the profile (each evaluation a fit with the parameter fixed), as MINOS.

struct MinosInterval {
    std::string name;
    double value = 0.0;           // best-fit value
    double lower = 0.0, upper = 0.0;  // the interval's ends (not offsets)
    bool lower_at_bound = false, upper_at_bound = false;  // the profile stays below 1 up to the bound
    bool valid = true;            // both ends found with converged fits
    std::string reason;           // when not valid
    std::int64_t n_fits = 0;
};

std::vector<MinosInterval> minos(const Model& model, const std::vector<double>& data,
                                 const std::vector<std::string>& names, const DiagnosticOptions& options = {},
                                 const FitResult* free_fit = nullptr);

// ---------------------------------------------------------------------------------------------------------
// Saturated-model goodness of fit (cabinetry fit._goodness_of_fit): chi2 = twice_nll - twice_nll_saturated,
// where the saturated likelihood has every main bin's rate equal to its data and every constraint at its
// maximum; ndof = main bins - free unconstrained parameters; p = chi2 survival function (NaN when ndof <= 0).

struct GofResult {
    double twice_nll = 0.0;
    double twice_nll_saturated = 0.0;
    double chi2 = 0.0;
    std::int64_t ndof = 0;
    double p_value = 0.0;
    FitResult fit;
};

GofResult goodness_of_fit(const Model& model, const std::vector<double>& data, const DiagnosticOptions& options = {});
// -2 log L of the saturated model alone.
double twice_nll_saturated(const Model& model, const std::vector<double>& data);

// ---------------------------------------------------------------------------------------------------------
// The results as JSON, with the keys the CLI prints and docs/diagnostics.md describes (null for a number that is
// absent or not finite).

json::Value to_json(const PullsResult& r, bool with_correlations = false);
json::Value to_json(const RankingResult& r);
json::Value to_json(const YieldsResult& r);
json::Value to_json(const ProfileResult& r);
json::Value to_json(const GofResult& r);
// {"minos": {name: [lower, upper]}, "minos_details": {name: {"value", "lower_at_bound", ...}}}
json::Value to_json(const std::vector<MinosInterval>& r);

}  // namespace hf::infer
