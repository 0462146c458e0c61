// Which parameters can give the likelihood more than one minimum: a heuristic of the fits (their basin search),
// computed once when a model is compiled, kept with the model and read here, not through the public Model.
#pragma once

#include <cstdint>
#include <vector>

#include "hfcore/plugin/likelihood.hpp"

namespace hf {

class Model;

// Parameters whose profile likelihood can have a second minimum (a basin and its mirror): histosys and normsys
// parameters whose even response ((up + down) / 2 - nominal, summed over the samples that share them) is large
// against the statistical precision of the bins they touch. Fits look for the other basins of these parameters
// only. Index order; detail::multimodal_parameters of the model's packed likelihood, computed once at compile.
const std::vector<std::int64_t>& multimodal_parameters(const Model& model);

}  // namespace hf

namespace hf::detail {

// How far each parameter's even response can bend its profile likelihood, in units of its constraint's
// curvature per standard deviation of discrepancy between data and expectation (see multimodal.cpp). [P]
std::vector<double> even_response_strength(const PackedLikelihood& packed);

// Each bin's nominal expectation (every factor at 1). [N]
std::vector<double> nominal_bins(const PackedLikelihood& packed);

// The even part of each bin's nominal expectation in each of `pars`, (lambda_b(+1) + lambda_b(-1)) / 2 -
// lambda_b(0) summed over the bin's samples with their signs. [pars.size(), N]
std::vector<double> nominal_even_response(const PackedLikelihood& packed, const std::vector<std::int64_t>& pars);

// The parameters whose strength reaches kMultimodalStrength, in index order.
std::vector<std::int64_t> multimodal_parameters(const PackedLikelihood& packed);

}  // namespace hf::detail
