// Asimov data sets of a model: its expected data, main bins and auxiliary data, taken as the observation (the
// layout of Model::data_from_observations). With the nuisance parameters fitted to data first (the POI held), see
// hf::infer::asimov_data (hfcore/infer.hpp), which is pyhf's infer.calculators.generate_asimov_data.
#pragma once

#include <vector>

#include "hfcore/model.hpp"

namespace hf {

// The expected data at `pars` (pyhf: model.expected_data(pars)). InputError when pars has the wrong size.
std::vector<double> asimov_data(const Model& model, const std::vector<double>& pars);
// At the nominal point: every parameter at its suggested init, the POI at `poi_value`. InputError when the model
// has no POI or the value lies outside the POI's bounds.
std::vector<double> asimov_data(const Model& model, double poi_value);

}  // namespace hf
