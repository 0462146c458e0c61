// Internal: pyhf's JSON schema 1.0.0 written as C++ checks, the typed-spec extraction, and pyhf's semantic
// rules. Every failure is an hf::InputError(source, json_path, what was expected).
#pragma once

#include <string>
#include <vector>

#include "hfcore/json.hpp"
#include "hfcore/spec.hpp"

namespace hf::detail {

// ---- schema (defs.json of pyhf 1.0.0) ----
void check_workspace_schema(const json::Value& doc, const std::string& source);
void check_model_schema(const json::Value& doc, const std::string& source);
void check_measurement_schema(const json::Value& m, const std::string& source, const std::string& path);
void check_patchset_schema(const json::Value& doc, const std::string& source);
void check_jsonpatch_schema(const json::Value& ops, const std::string& source, const std::string& path);

// ---- typed specs from schema-valid JSON (paths relative to `base`) ----
WorkspaceSpec workspace_spec_from_json(const json::Value& doc, const std::string& source);
std::vector<ChannelSpec> channels_from_json(const json::Value& channels, const std::string& source,
                                            const std::string& base);
std::vector<ParameterConfig> parameters_from_json(const json::Value& params, const std::string& source,
                                                  const std::string& base);

// ---- pyhf's semantic rules ----
// Rules on the channels alone. Structure (checked when a workspace is loaded): duplicate channels / samples /
// modifiers, bin counts of samples and modifier data. Parameters (checked for a model, like pyhf does when it
// builds one; combine, prune and patches can create or resolve them): parameter names shared by incompatible
// modifiers, a shapesys shared by samples, staterror coverage.
enum class ChannelRules { Structure, StructureAndParameters };
void check_channels(const std::vector<ChannelSpec>& channels, const std::string& source, ChannelRules rules);
// Every channel has one observation with its number of bins.
void check_observations(const WorkspaceSpec& ws);
// Observed main counts of an inference: finite and >= 0 (a Poisson count; fractions are allowed, as in pyhf).
void check_observed_counts(const ObservationSpec& o, const std::string& source);
// Rules that need one measurement: parameter configs (duplicates, attributes the modifier does not use,
// lengths, lumi configuration) and the POI.
void check_model(const ModelSpec& spec);

// Short description of a JSON value for messages: "a string (\"nan\")", "an array of 3 items".
std::string describe(const json::Value& v);

}  // namespace hf::detail
