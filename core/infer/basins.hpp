// The global part of every fit: after the local minimum, descents from starts in the other basins of the model's
// multimodal parameters (Model::multimodal_parameters) and from given points (the minima of the other fits of a
// hypotest), keeping the lowest minimum.
#pragma once

#include <vector>

#include "infer/local_fit.hpp"

namespace hf::infer::detail {

// True when a free parameter of this configuration is one of the model's multimodal parameters: only then do the
// fits of a hypotest also start from each other's minima.
bool can_be_multimodal(const Model& model, const std::vector<bool>& fixed);

struct BasinSearch {
    int candidates = 0;  // starting points descended from
    bool moved = false;  // the minimum was replaced by a lower one from another basin
    int skipped = 0;     // starts left out when the search reached its budget (kBudget times the local fit's cost)
};

// y, f and newton describe the local minimum found from the fit's start; they are replaced when a lower converged
// minimum is found. `starts` are full parameter vectors (fixed parameters are ignored; values are clamped to the
// bounds); starts where the likelihood is not finite are skipped.
BasinSearch search_basins(const Model& model, Problem& p, std::vector<double>& y, double& f, NewtonOutcome& newton,
                          double tol, const std::vector<std::vector<double>>& starts);

}  // namespace hf::infer::detail
