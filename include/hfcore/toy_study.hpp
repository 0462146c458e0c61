// Toy studies of a fit's bias and coverage: toys drawn at a truth point with the POI injected at given values,
// each fitted with the POI free by the batched fits of the toy calculator (batch_fit, with a single fit for the
// toys the batch leaves unconverged). Per toy: the best fit, the uncertainty of every parameter from that toy's
// own Hessian (the full matrix, forward differences of the analytic gradient at its minimum; a parameter other
// than the POI sitting at a bound is held), twice_nll, and whether the fit converged. Per injected value: the
// bias and the pulls of every free parameter and the POI's coverage; over the injected values: the linearity of
// the fitted POI.
//
// Toy i of injected value j is Philox stream j of the seed (sample_toys), and a toy's batched fit does not
// depend on the other toys of its block, so a study is the same for any number of threads, MPI ranks and any
// toy_batch.
//     hf::infer::ToyStudyOptions o;
//     o.poi_values = {0.5, 1.0, 2.0};
//     o.ntoys = 1000;
//     auto r = hf::infer::toy_study(model, data, o);
//     r.points[1].parameters[model.poi_index()].pull_width;   // ~1 for a well-behaved fit
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hfcore/distributed.hpp"
#include "hfcore/infer.hpp"
#include "hfcore/json.hpp"

namespace hf::infer {

// Where the nuisance parameters of the truth lie: their suggested init ("nominal"), or the fit to the data with
// the POI held at the injected value ("fitted", pyhf's generate_asimov_data convention).
enum class ToyNuisance { nominal, fitted };
// The toys' auxiliary data: drawn around the truth as pyhf's make_pdf(pars).sample does ("sampled"), or held at
// the observed auxiliary data of every toy ("fixed": the conditional ensemble; only the main bins vary).
enum class ToyAux { sampled, fixed };
ToyNuisance parse_toy_nuisance(const std::string& name);  // "nominal", "fitted"; InputError otherwise
ToyAux parse_toy_aux(const std::string& name);             // "sampled", "fixed"; InputError otherwise
const char* toy_nuisance_name(ToyNuisance n);
const char* toy_aux_name(ToyAux a);

// The fits of a block of toys, row-major per toy.
struct ToyFits {
    std::vector<double> bestfit;        // [count, P]
    std::vector<double> uncertainties;  // [count, P]; 0 for fixed parameters
    std::vector<double> twice_nll;      // [count]
    std::vector<std::uint8_t> converged;   // [count]
    std::vector<std::uint8_t> hessian_ok;  // [count]: the Hessian at the minimum was positive definite
    std::int64_t fallback = 0;          // toys refitted by a single fit where the batched fit did not converge
    std::int64_t size() const { return static_cast<std::int64_t>(twice_nll.size()); }
    void append(const ToyFits& other);
};

// One block of a toy study (stream = the injected value's position in poi_values), computed on `model`.
using ToyFitsFn = std::function<ToyFits(const Model& model, const ToyBlock& block)>;
// Computes all `blocks` of a study (identified by `tag`) and returns their fits in block order.
using ToyStudyRunner = std::function<std::vector<ToyFits>(const std::vector<ToyBlock>& blocks, const std::string& tag,
                                                          const ToyFitsFn& fn)>;
// On threads and MPI ranks through the executor (journal keys "<tag>/s<stream>/<first>+<count>"); every rank
// receives all fits.
ToyStudyRunner make_toy_study_runner(ModelFactory models, run::ExecutorOptions options);

struct ToyStudyOptions {
    std::vector<double> poi_values{1.0};  // injected POI values, each within the POI's bounds
    std::int64_t ntoys = 1000;            // per injected value
    std::uint64_t seed = 0;
    ToyNuisance nuisance = ToyNuisance::nominal;
    ToyAux aux = ToyAux::sampled;
    FitConfig config;  // of the toys' fits (and of the fit that gives the truth); empty = suggested
    FitOptions fit;
    std::int64_t toy_batch = 1000;  // toys drawn and fitted together: one unit of work
    ProgressFn progress;            // (toys done, all toys), without a runner
    ToyStudyRunner runner;          // optional: where the blocks run (default: here, one after another)
};

// Mean and spread of a parameter's fitted values and pulls over the toys of one injected value. The bias and
// the POI's mean use the converged toys; the pulls (fitted - truth) / uncertainty those of them whose Hessian
// was positive definite. Errors are statistical: sd / sqrt(n) for means, sd / sqrt(2 (n - 1)) for widths.
struct ParameterPulls {
    std::string name;
    bool fixed = false;  // held in the fits: no statistics (NaN)
    double truth = 0.0;
    std::int64_t n = 0, n_pulls = 0;
    double mean = 0.0, mean_error = 0.0;  // of the fitted values
    double bias = 0.0, bias_error = 0.0;  // mean of fitted - truth
    double spread = 0.0;                  // sample standard deviation of the fitted values
    double mean_uncertainty = 0.0;        // mean of the per-toy uncertainties
    double pull_mean = 0.0, pull_mean_error = 0.0;
    double pull_width = 0.0, pull_width_error = 0.0;
};

// The fraction of toys whose interval fitted +- z * uncertainty holds the injected POI, with its binomial error.
struct Coverage {
    double nominal = 0.0;  // 0.6827 (z = 1), 0.95 (z = 1.96)
    double z = 0.0;
    std::int64_t n = 0;
    double fraction = 0.0, error = 0.0;
};

struct ToyStudyPoint {
    double poi_value = 0.0;
    std::vector<double> truth;  // [P]: the parameters the toys were drawn at
    bool truth_converged = true;  // the fit that gave the truth (nuisance = fitted)
    std::int64_t ntoys = 0, n_converged = 0, n_hessian_ok = 0;
    ToyFits toys;
    std::vector<ParameterPulls> parameters;  // [P], par_names() order
    std::array<Coverage, 2> coverage{};      // the POI's 68.27% and 95% intervals
};

// Weighted least squares of the POI's mean fitted value against the injected value (weights 1 / mean_error^2).
struct Linearity {
    bool defined = false;  // two distinct injected values or more
    double slope = 0.0, slope_error = 0.0, offset = 0.0, offset_error = 0.0, correlation = 0.0;
    double chi2 = 0.0;
    std::int64_t ndf = 0;
};

struct ToyStudyResult {
    std::vector<std::string> par_names;
    std::vector<bool> fixed;  // [P]: held in the fits (no statistics)
    std::int64_t poi_index = -1;
    std::vector<ToyStudyPoint> points;  // poi_values order
    Linearity linearity;
    std::int64_t fallback = 0;  // toys refitted by a single fit, all points
    std::vector<std::string> warnings;
};

// The study on `data` (observations + auxdata: the observed auxiliary data of ToyAux::fixed and the data of
// ToyNuisance::fitted). InputError for a model without POI, a POI fixed in the config, an injected value outside
// the POI's bounds (path "poi_values"), fewer than 2 toys or a toy_batch below 1.
ToyStudyResult toy_study(const Model& model, const std::vector<double>& data, const ToyStudyOptions& options);

// The summary of a study from its points' toys (toy_study calls it; a caller that merged toys calls it too).
void summarise(ToyStudyResult& result);
// Linearity of the POI from the points' summaries.
Linearity poi_linearity(const std::vector<ToyStudyPoint>& points, std::int64_t poi_index);

// Every toy of every injected value as one row (poi_values order, then toy order): what `hfcore toys --per-toy`
// writes and hfcore.infer.toys.fit_toys returns. Row-major [rows, cols] for the per-parameter columns.
struct ToyColumns {
    std::int64_t rows = 0, cols = 0;
    std::vector<double> poi_true, twice_nll;                      // [rows]
    std::vector<double> truth, bestfit, uncertainties, pull;      // [rows, cols]; pull NaN without an uncertainty
    std::vector<std::int64_t> toy;                                // [rows]: the toy's number within its value
    std::vector<std::uint8_t> converged, hessian_ok;              // [rows]
};
ToyColumns toy_columns(const ToyStudyResult& result);

// The summary as JSON (no per-toy arrays): options, per injected value the truth, counts, coverage and the
// per-parameter statistics, and the linearity.
json::Value to_json(const ToyStudyResult& result, const ToyStudyOptions& options);

}  // namespace hf::infer
