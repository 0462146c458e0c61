// Which parameters can give the likelihood more than one minimum (Model::multimodal_parameters).
#pragma once

#include <cstdint>
#include <vector>

#include "hfcore/plugin/likelihood.hpp"

namespace hf::detail {

// How far each parameter's even response can bend its profile likelihood, in units of its constraint's
// curvature per standard deviation of discrepancy between data and expectation (see multimodal.cpp). [P]
std::vector<double> even_response_strength(const PackedLikelihood& packed);

// The parameters whose strength reaches kMultimodalStrength, in index order.
std::vector<std::int64_t> multimodal_parameters(const PackedLikelihood& packed);

}  // namespace hf::detail
