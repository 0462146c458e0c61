// Which parameters can give the likelihood more than one minimum (Model::multimodal_parameters).
#pragma once

#include <cstdint>
#include <vector>

#include "hfcore/plugin/likelihood.hpp"

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
