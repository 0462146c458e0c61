// Statistical inference on a Model: maximum-likelihood fits, profile-likelihood test statistics, the
// asymptotic and toy calculators, hypothesis tests (CLs) and upper limits. Semantics follow pyhf.infer
// (pyhf 0.7): same defaults, same test-statistic definitions, same Asimov data, same expected bands.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hfcore/model.hpp"

namespace hf::infer {

// Where a fit starts, what it may reach and what it must not move. Empty vectors mean the model's suggested
// values (pyhf: init_pars=None etc.). An init outside its bounds, or vectors of the wrong length, throw
// InputError (pyhf raises ValueError).
struct FitConfig {
    std::vector<double> init;
    std::vector<std::pair<double, double>> bounds;
    std::vector<bool> fixed;

    static FitConfig suggested(const Model& model);
    // The same configuration with every empty field replaced by the model's suggestion, validated.
    FitConfig resolved(const Model& model) const;
};

// The minimiser's own controls (Newton polish, basin search, more starts, Hessian hints), for callers that drive
// the engine: hfcore/infer_advanced.hpp.
struct MinimizerControls;

// automatic = LD_LBFGS, then LD_SLSQP when the first does not converge; or lbfgs / slsqp alone.
enum class FitAlgorithm { automatic, lbfgs, slsqp };
FitAlgorithm parse_fit_algorithm(const std::string& name);  // "auto", "lbfgs", "slsqp"; InputError otherwise
const char* fit_algorithm_name(FitAlgorithm algorithm);

struct FitOptions {
    FitAlgorithm algorithm = FitAlgorithm::automatic;
    int max_eval = 20000;
    // Converged when the Newton estimate of the remaining NLL decrease is below this (in NLL units; 0 means a
    // precision-dependent default: 1e-9 at 64b, 1e-4 at 32b).
    double tolerance = 0.0;
    bool uncertainties = false;  // also compute the Hessian, uncertainties and correlations
    // Optional; none = the defaults (hfcore/infer_advanced.hpp). Never changed once made, so the copies of these
    // options (one per fit of a hypotest) share it; with_minimizer_controls gives options with other controls.
    std::shared_ptr<const MinimizerControls> minimizer;
};

// How the minimiser reached a minimum, beyond FitResult::converged and reason: for a fit, its own figures; for a
// hypotest or a limit search, the totals over its fits (add).
struct MinimizerReport {
    std::int64_t n_eval = 0;      // likelihood evaluations (a batch of K points counts K)
    double edm = 0.0;             // Newton estimate of the remaining NLL decrease at the minimum
    double max_projected_gradient = 0.0;  // in scaled variables (units of each parameter's constraint width)
    // The basin search (MinimizerControls::basin_search): how many other starting points were descended from, and
    // whether the minimum returned came from one of them (the descent from the fit's start ended higher).
    int basin_candidates = 0;
    bool other_basin = false;

    // Adds another fit: evaluations and candidates summed, the largest edm and gradient, other_basin of any.
    void add(const MinimizerReport& fit);
};

struct FitResult {
    std::vector<double> bestfit;  // all parameters, par_names() order (fixed ones at their values)
    double twice_nll = 0.0;       // -2 logpdf(bestfit, data), full normalisation (pyhf return_fitted_val)
    bool converged = false;
    std::string reason;           // why it stopped ("converged: ...", or what went wrong)
    std::string algorithm;        // what produced the final point, e.g. "LD_LBFGS+newton"
    // With FitOptions::uncertainties: from the inverse Hessian of the NLL (finite differences of the analytic
    // gradient). Fixed parameters get 0 and no correlation (1 on the diagonal).
    std::vector<double> uncertainties;
    std::vector<double> correlations;  // row-major [P, P]
    bool hessian_ok = false;           // the Hessian was positive definite on the free parameters
    MinimizerReport minimizer;
};

// Maximum-likelihood fit of every non-fixed parameter (pyhf.infer.mle.fit). Throws InputError on bad inputs.
// A fit that cannot reach a minimum returns converged == false, a reason and the best point found; it never
// returns NaN silently (a NaN or infinite likelihood at the start throws).
FitResult fit(const Model& model, const std::vector<double>& data, const FitConfig& config = {},
              const FitOptions& options = {});
FitResult fit(const Model& model, const Tensor& data, const FitConfig& config = {}, const FitOptions& options = {});
// On data already bound to `model` (Model::bind): what repeated fits of one data set use.
FitResult fit(const Model& model, const BoundLikelihood& data, const FitConfig& config = {},
              const FitOptions& options = {});

// The POI fixed at poi_value (pyhf.infer.mle.fixed_poi_fit). InputError when the model has no POI.
FitResult fixed_poi_fit(double poi_value, const Model& model, const std::vector<double>& data,
                        const FitConfig& config = {}, const FitOptions& options = {});
FitResult fixed_poi_fit(double poi_value, const Model& model, const Tensor& data, const FitConfig& config = {},
                        const FitOptions& options = {});
FitResult fixed_poi_fit(double poi_value, const Model& model, const BoundLikelihood& data,
                        const FitConfig& config = {}, const FitOptions& options = {});

// -2 logpdf at a point.
double twice_nll(const Model& model, const std::vector<double>& pars, const std::vector<double>& data);

// ---------------------------------------------------------------------------------------------------------
// Test statistics (pyhf.infer.test_statistics). q0 forces mu = 0 (with a warning when another was given).

enum class TestStat { q0, q, qtilde, t, ttilde };
TestStat parse_test_stat(const std::string& name);  // "q0", "q", "qtilde", "t"/"tmu", "ttilde"/"tmu_tilde"
const char* test_stat_name(TestStat t);

struct TestStatResult {
    double value = 0.0;
    FitResult fixed_fit;  // mu fixed: (mu, theta-hat-hat)
    FitResult free_fit;   // (mu-hat, theta-hat)
    std::vector<std::string> warnings;  // pyhf's logged warnings (e.g. qmu with the POI bounded at zero)
};

TestStatResult test_statistic(TestStat stat, double mu, const Model& model, const Tensor& data,
                              const FitConfig& config = {}, const FitOptions& options = {});
TestStatResult test_statistic(TestStat stat, double mu, const Model& model, const BoundLikelihood& data,
                              const FitConfig& config = {}, const FitOptions& options = {});
TestStatResult test_statistic(TestStat stat, double mu, const Model& model, const std::vector<double>& data,
                              const FitConfig& config = {}, const FitOptions& options = {});

// ---------------------------------------------------------------------------------------------------------
// Calculators and hypothesis tests.

enum class CalcType { asymptotics, toybased };
CalcType parse_calctype(const std::string& name);

// pyhf's calc_base_dist of the asymptotic calculator.
enum class BaseDist { normal, clipped_normal };
BaseDist parse_base_dist(const std::string& name);  // "normal", "clipped_normal"; InputError otherwise
const char* base_dist_name(BaseDist dist);

// Called with (done, total) as toys or scan points complete. Runs on the calling thread.
using ProgressFn = std::function<void(std::int64_t done, std::int64_t total, const std::string& label)>;

// Fits of an asymptotic hypotest that do not depend on the tested POI value (HypotestOptions::cache; made by
// make_asymptotic_cache in hfcore/infer_advanced.hpp).
struct AsymptoticFitCache;

// The toys of a toy-based hypotest come in blocks: toys [first, first + count) of Philox stream `stream`
// (0: signal-like, 1: background-like), fitted together. A block's result depends on nothing else, so blocks
// may be computed anywhere (another thread's model, another MPI rank) and merged in block order.
struct ToyBlock {
    std::uint32_t stream = 0;
    std::int64_t first = 0;
    std::int64_t count = 0;
};
struct ToyBlockResult {
    std::vector<double> teststats;  // one per toy of the block
    std::int64_t batched = 0, fallback = 0, failed = 0;  // as HypotestResult::toy_fits_*
};
// Computes one block on `model` (the hypotest's model, or an identical one compiled on another backend).
using ToyBlockFn = std::function<ToyBlockResult(const Model& model, const ToyBlock& block)>;
// Computes all `blocks` of one hypotest (identified by `tag`, e.g. for a journal) and returns their results
// in the same order. Made by make_toy_runner (hfcore/distributed.hpp) to use threads and MPI ranks.
using ToyRunner = std::function<std::vector<ToyBlockResult>(const std::vector<ToyBlock>& blocks,
                                                            const std::string& tag, const ToyBlockFn& fn)>;

struct HypotestOptions {
    TestStat test_stat = TestStat::qtilde;
    CalcType calctype = CalcType::asymptotics;
    FitConfig config;           // init/bounds/fixed; empty = suggested
    FitOptions fit;
    BaseDist calc_base_dist = BaseDist::normal;  // asymptotics only
    // Toys
    std::int64_t ntoys = 2000;
    std::uint64_t seed = 0;
    std::int64_t toy_batch = 1000;   // toys per block: drawn and fitted together, one unit of work
    ProgressFn progress;             // optional
    ToyRunner toy_runner;            // optional: where the toy blocks run (default: here, one after another)
    std::shared_ptr<AsymptoticFitCache> cache;  // optional, asymptotics only
};

// Pyhf's Asimov data set: expected main + aux data at the fixed-POI fit to `data` with the POI at asimov_mu.
std::vector<double> asimov_data(double asimov_mu, const Model& model, const std::vector<double>& data,
                                const FitConfig& config = {}, const FitOptions& options = {},
                                std::vector<double>* asimov_pars = nullptr);

struct HypotestResult {
    // What pyhf.infer.hypotest returns first and as its expected set: CLs, or for q0 the p-value p0 (CLsb).
    double obs = 0.0;
    std::array<double, 5> exp{};  // -2, -1, 0, +1, +2 sigma
    double CLs_obs = 0.0, CLsb_obs = 0.0, CLb_obs = 0.0;
    std::array<double, 5> CLs_exp{}, CLsb_exp{}, CLb_exp{};
    double teststat = 0.0;   // what the calculator compares (asymptotics: transformed; toys: the raw statistic)
    double q_obs = 0.0;      // raw observed statistic
    double q_asimov = 0.0;   // asymptotics only
    // Asymptotics: the five fits (pyhf HypoTestFitResults)
    std::vector<double> asimov_pars, free_fit_to_data, free_fit_to_asimov, fixed_poi_fit_to_data,
        fixed_poi_fit_to_asimov;
    double twice_nll_free = 0.0;  // free fit to the observed data
    bool converged = true;        // every fit converged (toys: the fits to the observed data)
    MinimizerReport minimizer;    // totals over the same fits (toys: the fits to the observed data)
    std::vector<std::string> warnings;
    // Toys
    std::vector<double> sb_teststats, b_teststats;
    std::int64_t toy_fits_batched = 0, toy_fits_fallback = 0, toy_fits_failed = 0;
};

HypotestResult hypotest(double poi_test, const Model& model, const std::vector<double>& data,
                        const HypotestOptions& options = {});

// The asymptotic calculator, step by step (pyhf.infer.calculators.AsymptoticCalculator).
class AsymptoticCalculator {
public:
    AsymptoticCalculator(const Model& model, std::vector<double> data, HypotestOptions options = {});
    ~AsymptoticCalculator();
    AsymptoticCalculator(AsymptoticCalculator&&) noexcept;
    AsymptoticCalculator& operator=(AsymptoticCalculator&&) noexcept;
    // Runs the fits and returns the statistic compared to the distributions (sqrt(q) - sqrt(q_A), or the
    // qtilde tail form).
    double teststatistic(double poi_test);
    double sqrt_q_asimov() const;
    // sqrt(q_A) at poi_test alone: the fixed-POI fit to the Asimov data (and the POI-independent fits, once).
    // With the normal base distribution the expected CLs depend on nothing else.
    double asimov_sqrtq(double poi_test);
    // p-values under s+b and b-only of a value of teststatistic(): {CLsb, CLb, CLs}
    std::array<double, 3> pvalues(double teststat) const;
    // {CLsb, CLb, CLs} for the b-only expected values at nsigma = 2, 1, 0, -1, -2
    std::array<std::array<double, 3>, 5> expected_pvalues() const;
    const HypotestResult& details() const;

private:
    struct State;
    std::unique_ptr<State> s_;
};

// Toy samples (pyhf model.make_pdf(pars).sample((ntoys,))): main data Poisson around the expected rates, aux
// data Gaussian (normal constraints, sigma) or Poisson (poisson constraints, tau * par) around pars.
// Toy i depends only on (seed, stream, first_toy + i), never on how toys are batched or on the backend.
Tensor sample_toys(const Model& model, const std::vector<double>& pars, std::int64_t first_toy, std::int64_t count,
                   std::uint64_t seed, std::uint32_t stream);

// ---------------------------------------------------------------------------------------------------------
// Upper limits (pyhf.infer.intervals.upper_limits).

struct UpperLimitResult {
    double obs = 0.0;
    std::array<double, 5> exp{};
    // Every POI value where a full hypotest ran, in evaluation order. Asymptotic expected limits (q, qtilde,
    // normal base distribution) are found from the fit to the Asimov data alone and add no hypotests here.
    std::vector<double> scanned;
    std::vector<HypotestResult> results;      // same order
    bool converged = false;                   // every fit of the search converged
    MinimizerReport minimizer;                // totals over the distinct fits of the search
    std::pair<double, double> bracket{0, 0};  // toms748: the bracket after expansion
    std::pair<double, double> poi_bounds_used{0, 0};
};

// Linear grid scan with interpolation of CLs(mu) at `level` (pyhf linear_grid_scan, np.interp semantics).
UpperLimitResult upper_limit_scan(const Model& model, const std::vector<double>& data,
                                  const std::vector<double>& scan, double level = 0.05,
                                  const HypotestOptions& options = {});

struct Toms748Options {
    double level = 0.05;
    double atol = 2e-12;
    double rtol = 1e-4;
    // Bracket [low, high]; high NaN = the POI's upper bound (pyhf upper_limit with scan=None).
    double low = 0.0;
    double high = std::numeric_limits<double>::quiet_NaN();
    // Double `high` until obs and every expected CLs are below `level` there (pyhf's toms748_scan does the
    // same); the POI's upper bound is widened to the bracket end when it lies below it.
    int max_expansions = 12;
};

// Root finding with Boost.Math toms748_solve for the observed and each expected limit, brackets from the
// cached evaluations as pyhf's toms748_scan. Throws hf::Error when no bracket can be found.
UpperLimitResult upper_limit(const Model& model, const std::vector<double>& data,
                             const Toms748Options& limit_options = {}, const HypotestOptions& options = {});

// ---------------------------------------------------------------------------------------------------------

// Normal distribution helpers used by the calculators (double precision, accurate far in the tails).
double normal_cdf(double x);
double normal_sf(double x);   // 1 - cdf, without cancellation
double normal_isf(double p);  // x with normal_sf(x) == p (significance of a p-value)

}  // namespace hf::infer
