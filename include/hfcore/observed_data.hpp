// The checks of an observed data set, one function for every entry point: the C++ inference API (fits,
// hypotests, limits, diagnostics), the CLI (workspace observations and `hfcore eval --data`) and the Python
// module all call check_observed_data before any fit, so a data set one of them rejects none of them accepts.
#pragma once

#include <string>
#include <vector>

#include "hfcore/eval_inputs.hpp"

namespace hf {

class Model;

// What a data set must fit: the main bins of every channel in the model's order, then the aux data. A Poisson
// constraint's aux datum is a count like the main bins; a normal one may be any finite number.
struct ObservedDataLayout {
    std::vector<ChannelSlot> channels;
    std::vector<bool> aux_is_count;  // one per aux datum
};

// A Poisson count is finite and >= 0 (fractions are allowed, as in pyhf; pyhf's likelihood is -inf or NaN for
// a negative integer and silently defined for a negative fraction, so a negative count is refused rather than
// fitted). Throws InputError(source, path[i], why) for the first count of `channel` that is not one: for counts
// given in a file (workspace observations, `hfcore eval --data`), where the file's JSON path names the element.
void check_channel_counts(const std::vector<double>& counts, const std::string& channel, const std::string& source,
                          const std::string& path);

// Throws InputError(source, "data[i]", why) for the first element that is wrong: the length (main bins + aux
// data), a main count or Poisson aux datum that is not finite and >= 0, a normal aux datum that is not finite.
void check_observed_data(const ObservedDataLayout& layout, const std::vector<double>& data,
                         const std::string& source);

// The model's layout, and the check against it.
ObservedDataLayout observed_data_layout(const Model& model);
void check_observed_data(const Model& model, const std::vector<double>& data, const std::string& source);

}  // namespace hf
