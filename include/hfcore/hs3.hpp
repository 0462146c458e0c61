// HistFactory models in HS3, the HEP Statistics Serialization Standard (the JSON that ROOT 6.30+'s
// RooJSONFactoryWSTool writes): one "histfactory_dist" per channel with its samples and modifiers, "data",
// "likelihoods", "analyses" (one per measurement), "parameter_points" and "domains". Workspace accepts either
// format (an HS3 document is recognised by its "distributions"); these convert between them.
#pragma once

#include <string>

#include "hfcore/json.hpp"

namespace hf {

// Whether `doc` is an HS3 document (an object with "distributions" and no pyhf "channels").
bool is_hs3(const json::Value& doc);

// The pyhf workspace as HS3. Every channel becomes a histfactory_dist named after it, its observation binned
// data "<channel>_data", each measurement an analysis with its POI, initial values (parameter_points) and bounds
// (domains); the measurement's pyhf parameter configuration is kept with the analysis ("pyhf_config") so that
// hs3_to_pyhf gives back the same workspace (digest). The input must be a valid pyhf workspace.
json::Value pyhf_to_hs3(const json::Value& workspace);

// The HS3 document as a pyhf workspace. InputError naming `source` and the JSON path for what hfcore cannot
// represent: a likelihood's distribution of a type other than histfactory_dist, a modifier type outside
// normfactor, normsys, histosys, shapesys, staterror, shapefactor and lumi, missing or malformed entries.
json::Value hs3_to_pyhf(const json::Value& hs3, const std::string& source = "<hs3>");

}  // namespace hf
