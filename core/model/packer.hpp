// Compiles a ModelSpec into the flat PackedLikelihood that every FusedLikelihood evaluates.
#pragma once

#include "hfcore/plugin/likelihood.hpp"
#include "param_sets.hpp"

namespace hf::detail {

// `elem_sample` (optional) receives the sample index (in layout.samples) of every element.
PackedLikelihood pack_likelihood(const ModelSpec& spec, const Layout& layout, const ParamSetsResult& params,
                                 std::vector<std::int32_t>* elem_sample = nullptr);

}  // namespace hf::detail
