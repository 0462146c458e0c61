// pyhf's parameter bookkeeping: which parameter sets a model needs, in pyhf's order, with their defaults
// merged with the measurement's parameter configuration.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hfcore/model.hpp"

namespace hf::detail {

// The sorted channel/sample layout of a model (pyhf's config.channels / config.samples).
struct Layout {
    std::vector<std::string> channels;         // sorted
    std::vector<std::string> samples;          // sorted
    std::vector<std::int64_t> channel_nbins;   // in channels order
    std::vector<std::int64_t> channel_offset;  // first global bin of each channel
    std::int64_t n_main = 0;
    // (channel index, sample index) -> the sample's spec, or nullptr when the channel lacks that sample
    std::vector<std::vector<const SampleSpec*>> sample_in_channel;
    std::vector<std::string> channel_paths;    // JSON path of each channel, for messages
};

Layout make_layout(const ModelSpec& spec);

struct ParamSetsResult {
    std::vector<ParameterSet> sets;                 // pyhf's par_order
    std::map<std::string, std::size_t> index;       // name -> position in sets
    // Per-bin sets spanning channels (staterror): the global bin of each component, by name.
    std::map<std::string, std::vector<std::int64_t>> component_bins;
};

ParamSetsResult build_parameter_sets(const ModelSpec& spec, const Layout& layout);

}  // namespace hf::detail
