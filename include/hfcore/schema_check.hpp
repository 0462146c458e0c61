// pyhf's JSON schema checks by schema name, for callers that validate a document without building anything
// from it (hfcore.schema.validate in Python).
#pragma once

#include <string>
#include <string_view>

#include "hfcore/json.hpp"

namespace hf {

// Checks `doc` against pyhf's schema `schema_name` (1.0.0: "workspace.json", "model.json", "measurement.json",
// "patchset.json", "jsonpatch.json"). Throws SchemaError (file `source`, JSON path, what the schema expects)
// where the document breaks it, InputError for a schema name hfcore does not know.
void check_schema(std::string_view schema_name, const json::Value& doc, const std::string& source);

}  // namespace hf
