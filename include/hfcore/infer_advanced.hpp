// The inference engine's machinery, for callers that drive it themselves: the minimiser's own controls, the shared
// caches and hints of a search over the POI, and the lockstep batched fits and test statistics of the toys. fit,
// hypotest, limits and the diagnostics (hfcore/infer.hpp, hfcore/diagnostics.hpp) make and use these internally; a
// physicist's analysis does not need them.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hfcore/infer.hpp"

namespace hf::infer {

// Hessians of earlier fits of one model, data set and configuration (MinimizerControls::hessian_hints).
struct HessianHints;

// The minimiser's own controls (FitOptions::minimizer). fit() and fixed_poi_fit() use them, and so does every fit
// made with the same FitOptions (hypotests, limits, toys, diagnostics). The defaults are what pyhf-like results
// need; turning the polish or the basin search off is for profiling and tests.
struct MinimizerControls {
    bool polish = true;  // Newton polish with the finite-difference Hessian after the quasi-Newton fit
    // After the local fit, look for lower minima in the other basins of the parameters whose profile likelihood
    // can have two minima (histosys/normsys with a large even response: starts shifted and mirrored in each of
    // them) and from other_starts, keeping the lowest. Costs nothing on a model without such parameters and
    // without other starts. Needs the polish.
    bool basin_search = true;
    // More starting points (all parameters; fixed ones are ignored) for the basin search, e.g. the minima of the
    // other fits of a hypotest to the same data. Starts where the likelihood is not finite are skipped.
    std::vector<std::vector<double>> other_starts;
    // Optional, shared by fits of one model and configuration (the fits of a hypotest or an upper-limit search):
    // the Hessian of an earlier fit confirms a new fit's convergence when the edm it gives is far inside the
    // tolerance, saving a finite-difference Hessian (2 x free parameters gradients). Fits never step with it.
    std::shared_ptr<HessianHints> hessian_hints;
};

// FitOptions::minimizer, or the defaults when it has none.
const MinimizerControls& minimizer_controls(const FitOptions& options);
// `options` with `controls` for its minimiser (the other options as they are).
FitOptions with_minimizer_controls(FitOptions options, MinimizerControls controls);

// Hessians for MinimizerControls::hessian_hints, shared by the fits of a hypotest or an upper-limit search; safe
// to share between threads (internally locked).
std::shared_ptr<HessianHints> make_hessian_hints();

// Fits of an asymptotic hypotest that do not depend on the tested POI value (the free fit to the data, the
// Asimov data and the free fit to it). Share one cache between hypotests of the same model, data and FitConfig
// (HypotestOptions::cache; an upper-limit search does) and those fits run once instead of at every POI value.
std::shared_ptr<AsymptoticFitCache> make_asymptotic_cache();

// The test statistic for K data sets at once: data [K, N + A]. Fits run batched (see batch_fit), with a
// per-toy NLopt fit where a batched fit does not converge. `stats` (optional) counts those fits.
struct BatchStats {
    std::int64_t batched = 0, fallback = 0, failed = 0;
};
std::vector<double> test_statistic_batch(TestStat stat, double mu, const Model& model, const Tensor& data_kn,
                                         const FitConfig& config = {}, const FitOptions& options = {},
                                         BatchStats* stats = nullptr);

// Minimises K problems (one data row each, same config) in lockstep: projected L-BFGS in scaled variables
// with per-problem convergence masks; only the problems still running are evaluated.
struct BatchFitResult {
    std::vector<double> bestfit;     // [K, P]
    std::vector<double> twice_nll;   // [K]
    std::vector<bool> converged;     // [K]
    std::int64_t iterations = 0;
};
BatchFitResult batch_fit(const Model& model, const Tensor& data_kn, const FitConfig& config = {},
                         const FitOptions& options = {});

}  // namespace hf::infer
