// --binning FILE: the bin edges (and an axis label) of each channel in its observable, so yields and plots are
// drawn against the observable rather than the bin index.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hfcore/json.hpp"
#include "hfcore/model.hpp"

namespace hf::cli {

struct ChannelBinning {
    std::vector<double> edges;  // nbins + 1, strictly increasing
    std::string label;          // the observable's axis label ("" when not given)
};

// Reads {"channel": {"edges": [...], "label": "..."}} or {"channel": [edges]}: every channel named must be one of
// the model's, with nbins + 1 finite, strictly increasing edges. InputError naming the file and the JSON path
// otherwise (an unreadable file, a channel the model lacks, a wrong count).
std::map<std::string, ChannelBinning> read_binning(const std::string& path, const Model& model);

// Adds "edges" and "label" to each channel object of a yields result (channels[].name).
void add_binning(json::Value& result, const std::map<std::string, ChannelBinning>& binning);

}  // namespace hf::cli
