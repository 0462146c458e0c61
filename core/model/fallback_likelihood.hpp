// The Tier 1 fallback: the likelihood of a PackedLikelihood composed only of Backend primitives (gather,
// elementwise ops, reductions, matmul), for plugins without fused kernels, and as the independent
// reference the fused kernels are tested against.
#pragma once

#include <memory>

#include "hfcore/backend.hpp"
#include "hfcore/plugin/likelihood.hpp"

namespace hf::detail {

std::unique_ptr<FusedLikelihood> make_fallback_likelihood(Backend& backend, const PackedLikelihood& packed);

}  // namespace hf::detail
