// Checks of numeric option values, attached with ->check(): CLI11 then names the option in its message and the
// run exits with status 2 before any work starts (docs/workspace.md, "Command-line options").
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "hfcore/model.hpp"

namespace hf::cli {

extern const CLI::Validator kFiniteNumber;      // no nan / inf
extern const CLI::Validator kNonNegative;       // finite and >= 0
extern const CLI::Validator kOpenUnitInterval;  // 0 < x < 1 (a CLs level)
// A POI value from `option` (e.g. --test-poi) within the POI's bounds; InputError naming the option otherwise.
void check_poi_value(const Model& model, double value, const std::string& option);

}  // namespace hf::cli
