// Variants of the lockstep L-BFGS engine (batch_fit.cpp) for the toys: one start for all problems, a start of its
// own per problem, a known minimum per problem, and the batch basin search (batch_basin_search.cpp). Each takes
// `start` (all parameters; empty = FitConfig::init, which stays the centre of the scaled variables either way):
// where the problems start, and where the batch's fixed curvature is taken.
#pragma once

#include <vector>

#include "hfcore/infer_advanced.hpp"

namespace hf::infer::detail {

// Per problem, the lower converged minimum of two batched fits of the same problems (np parameters each).
void keep_lower(BatchFitResult& into, const BatchFitResult& other, std::int64_t np);

// batch_fit from `start` (clamped into the bounds) for every problem.
BatchFitResult batch_fit(const Model& model, const Tensor& data_kn, const FitConfig& config, const FitOptions& options,
                         const std::vector<double>& start);

// batch_fit with a start of its own for every problem: starts [K, P] (each clamped into the bounds; the fixed
// parameters keep the config's values). The fixed curvature is taken at `start`.
BatchFitResult batch_fit_from(const Model& model, const Tensor& data_kn, const FitConfig& config,
                              const FitOptions& options, const std::vector<double>& start,
                              const std::vector<double>& starts);

// batch_fit of problems that already have a minimum each (`known`, from another start): a descent that settles
// next to its problem's known minimum (see batch_fit.cpp, reached_known) ends there and returns it.
BatchFitResult batch_fit_known(const Model& model, const Tensor& data_kn, const FitConfig& config,
                               const FitOptions& options, const std::vector<double>& start,
                               const BatchFitResult& known);

// A basin search's descents (search_toy_basins): each from a start that moved one multimodal parameter of its
// problem's known minimum (moved: its free index, or -1 for a given start); a descent back in that minimum's basin
// (basin_search.hpp, back_in_basin) ends there and returns it, as a single fit's search does.
struct BasinReturn {
    const std::vector<std::size_t>* multimodal = nullptr;  // free indices
    std::vector<int> moved;                                // per problem
};

// A start of its own and a known minimum for every problem, and the basin search's return rule.
BatchFitResult batch_fit_known_from(const Model& model, const Tensor& data_kn, const FitConfig& config,
                                    const FitOptions& options, const std::vector<double>& start,
                                    const std::vector<double>& starts, const BatchFitResult& known,
                                    const BasinReturn& back);

// The basin search of fit() (basin_search.cpp) for a batch of toy fits: at each toy's minimum, the multimodal
// parameters its data can turn over get descents from the shifted and mirrored starts, all toys' starts in one
// batched fit, and a lower converged end point replaces the toy's minimum; the search repeats from there, for up
// to a few rounds. `fits` are the batch's minima, replaced where lower ones are found.
void search_toy_basins(const Model& model, const Tensor& data_kn, const FitConfig& config, const FitOptions& options,
                       const std::vector<double>& start, BatchFitResult& fits);

}  // namespace hf::infer::detail
