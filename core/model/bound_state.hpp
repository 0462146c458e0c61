// What a BoundLikelihood holds (shared by its copies): the model's likelihood, and the data bound to it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "hfcore/bound_likelihood.hpp"
#include "hfcore/loader.hpp"
#include "hfcore/plugin/likelihood.hpp"

namespace hf {

struct BoundLikelihood::State {
    BackendPtr backend;
    FusedLikelihood* likelihood = nullptr;  // owned by the Model, which outlives its bound likelihoods
    std::shared_ptr<const BoundData> data;  // the data tensor and the likelihood's data-only constants
    std::int64_t n_pars = 0;
    std::string source;                     // the model's, for errors
};

}  // namespace hf
