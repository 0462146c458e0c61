// The host half of compiling a Model: all that Model's constructor builds before it needs a backend (layout,
// parameter sets, the POI, the packed likelihood every backend receives, the multimodal parameters). The model
// fuzz target (fuzz/fuzz_model.cpp) runs the same function on fuzzed workspaces, measurements and patches.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hfcore/plugin/likelihood.hpp"
#include "param_sets.hpp"

namespace hf::detail {

struct HostModel {
    Layout layout;
    std::vector<ParameterSet> sets;           // pyhf's par_order
    std::map<std::string, std::size_t> index;  // name -> position in sets
    std::vector<std::string> par_order;
    std::int64_t n_pars = 0;
    std::int64_t poi_index = -1;              // -1 without a POI
    PackedLikelihood packed;
    std::vector<std::int32_t> elem_sample;    // sample index of every packed element
    std::vector<std::int64_t> multimodal;     // multimodal_parameters(model) (multimodal.hpp)
};

// Throws InputError naming spec.source and the JSON path for a spec no model can be made of. The layout keeps
// pointers into `spec`'s samples: they are for the packer and die with spec.
HostModel compile_host_model(const ModelSpec& spec);

}  // namespace hf::detail
