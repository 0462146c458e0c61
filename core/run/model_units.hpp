// Units computed on each worker's own model through the executor, with every rank receiving all results: the
// toy blocks of a hypotest and the blocks of held fits, whose callers continue in lockstep on every rank.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "hfcore/distributed.hpp"

namespace hf::run::detail {

using ModelUnitFn = std::function<json::Value(const Model& model, std::size_t unit)>;

// A unit's vector of numbers as JSON and back (exact: numbers are written with 17 digits).
json::Value to_json_array(const std::vector<double>& v);
std::vector<double> doubles_of(const json::Value& array);

// Runs the units `keys` (journal keys) on the models made by `models`, one per worker thread. Throws
// Interrupted ("<what> interrupted") when a signal stopped the run, and Error naming the unit's key when a unit
// failed; returns the results in unit order.
std::vector<json::Value> run_model_units(const std::vector<std::string>& keys, const infer::ModelFactory& models,
                                         ExecutorOptions options, const std::string& what, const ModelUnitFn& fn);

// Toy blocks as such units (a toy-based hypotest's, a toy study's): journal keys "<tag>/s<stream>/<first>+<count>",
// and options.progress called with (toys done, all toys) instead of units.
using ToyBlockUnitFn = std::function<json::Value(const Model& model, const infer::ToyBlock& block)>;
std::vector<json::Value> run_toy_blocks(const std::vector<infer::ToyBlock>& blocks, const std::string& tag,
                                        const infer::ModelFactory& models, ExecutorOptions options,
                                        const std::string& what, const ToyBlockUnitFn& fn);

}  // namespace hf::run::detail
