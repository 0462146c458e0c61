// Compiles a ModelSpec into the flat PackedLikelihood that every FusedLikelihood evaluates.
#pragma once

#include "hfcore/likelihood.hpp"
#include "param_sets.hpp"

namespace hf::detail {

PackedLikelihood pack_likelihood(const ModelSpec& spec, const Layout& layout, const ParamSetsResult& params);

// pyhf's code4 polynomial coefficients (alpha0 = 1) for a normsys with factors lo and hi.
void code4_coefficients(double lo, double hi, double coef[6]);

}  // namespace hf::detail
