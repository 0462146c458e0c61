// The parameter points and data sets a user hands to hfcore as JSON (`hfcore eval --pars/--data`), read into
// the model's layout. Only the names and sizes of the model's parameter sets and channels are needed, so the
// readers work (and are fuzzed, fuzz/fuzz_eval_inputs.cpp) without a compiled model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hfcore/json.hpp"

namespace hf {

struct ParameterSlot {
    std::string name;          // parameter set name, e.g. "mu", "staterror_SR"
    std::int64_t offset = 0;   // first index in the parameter vector
    std::int64_t n = 1;        // components
};

struct ChannelSlot {
    std::string name;
    std::int64_t nbins = 0;
};

// A parameter point: a list of P numbers in par_order, or {name: value or [values]} (also inside
// "mle_parameters", as `hfcore fit` prints); parameters not named keep `defaults` (size P). Every value must be a
// finite number. Errors are InputError(source, JSON path, what).
std::vector<double> parameter_point_from_json(const json::Value& doc, const std::vector<ParameterSlot>& slots,
                                              std::vector<double> defaults, const std::string& source);

// A data set: a list of N + A numbers (main bins in the channels' order, then auxdata, as pyhf's
// model.logpdf takes), or {channel: [counts]} naming every channel (auxdata then come from `auxdata`), or a
// workspace-style {"observations": [{"name", "data"}]}. Main counts must be finite and >= 0, auxdata finite.
std::vector<double> data_from_json(const json::Value& doc, const std::vector<ChannelSlot>& channels,
                                   const std::vector<double>& auxdata, const std::string& source);

}  // namespace hf
