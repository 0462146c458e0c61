// The global part of every fit: after the local minimum, descents from starts in the other basins of the model's
// multimodal parameters (multimodal_parameters, core/model/multimodal.hpp) and from given points (the minima of
// the other fits of a hypotest), keeping the lowest minimum.
#pragma once

#include <vector>

#include "infer/minimize/descent.hpp"

namespace hf::infer::detail {

// True when a free parameter of this configuration is one of the model's multimodal parameters: only then do the
// fits of a hypotest also start from each other's minima.
bool can_be_multimodal(const Model& model, const std::vector<bool>& fixed);

// The free indices (into Problem::free) of the model's multimodal parameters.
std::vector<std::size_t> multimodal_free(const Model& model, const Problem& p);

// Of each point's candidates (free indices of multimodal parameters), those whose profile the point's data can
// turn over there: xs [points, P] full parameter vectors, data rows of `data_stride` values (main bins first).
std::vector<std::vector<std::size_t>> turning_parameters(const Model& model, const Problem& p, const double* xs,
                                                         const double* data, std::size_t data_stride,
                                                         const std::vector<std::vector<std::size_t>>& candidates);

// A descent from a start that moved one multimodal parameter of the minimum `known` (scaled; `moved`, a free
// index) is back in that minimum's basin: the moved parameter is back near its value and no other crossed to the
// other side of zero (random_workspace.py seed 35 at mu = 1: the moved parameter returns while another one crosses
// its hump into the lower basin). Parameters that drift on their own side do not keep a descent going (100 of
// them in the synthetic model).
bool back_in_basin(const std::vector<double>& y, const std::vector<double>& known,
                   const std::vector<std::size_t>& multimodal, std::size_t moved);

// A descent from another given start (another fit's minimum, the toys' truth, the init) has settled at the minimum
// `known` (scaled) that the problem already has: its projected gradient pg_max is below 1 and every component is
// close to the minimum's, so it is a few steps from that minimum's bottom and no other minimum lies that close
// (see basin_search.cpp for how close). The caller makes sure the descent is not already below the known minimum.
bool settled_at(const Problem& p, const std::vector<double>& y, double pg_max, const std::vector<double>& known,
                const std::vector<std::size_t>& multimodal);

// Starts in the other basins of free parameter a from the minimum y (scaled): y with y_a shifted down and up and
// mirrored, within the bounds.
std::vector<std::vector<double>> basin_starts(const Problem& p, const std::vector<double>& y, std::size_t a);

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
