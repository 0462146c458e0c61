// The POI's uncertainty split into groups of nuisance parameters (`hfcore breakdown`), the convention of ATLAS and
// CMS breakdowns: with sigma the POI's uncertainty of the free fit (total) and sigma_G that of the fit with the
// parameters of group G held at their best-fit values (the others, the POI among them, refitted),
//   impact(G) = sqrt(sigma^2 - sigma_G^2),
// statistical = sigma with every parameter but the POI held, systematic = sqrt(sigma^2 - statistical^2).
// Groups may share parameters; their impacts then do not add up in quadrature to the systematic part, nor do
// they when the groups' parameters are correlated after the fit (the table says so).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hfcore/diagnostics.hpp"
#include "hfcore/json.hpp"
#include "hfcore/yield_tables.hpp"

namespace hf::infer {

// A named group of parameter sets (names as in Model::par_order: "lumi", "staterror_SR", ...).
struct ParameterGroup {
    std::string name;
    std::vector<std::string> parameter_sets;
};

// One group per modifier type that has a parameter set besides the POI with a component not fixed by the model's
// suggestion: normsys, histosys, staterror, shapesys, lumi, normfactor, shapefactor (pyhf's type order).
std::vector<ParameterGroup> groups_by_modifier_type(const Model& model);

// Groups of the parameter sets whose names match any of their shell patterns ("JES_*", "staterror_SR?"; fnmatch
// rules). The POI never belongs to a group. InputError naming `source` for a group that matches nothing.
struct GroupPatterns {
    std::string name;
    std::vector<std::string> patterns;
};
std::vector<ParameterGroup> groups_by_pattern(const Model& model, const std::vector<GroupPatterns>& patterns,
                                              const std::string& source = "--group");

// Groups from a JSON document {"groups": [{"name": "jets", "parameters": ["JES_*", "JER"]}, ...]} (patterns as
// above). InputError naming `source` and the JSON path of what is missing, of the wrong type or matches nothing.
std::vector<ParameterGroup> groups_from_json(const Model& model, const json::Value& doc, const std::string& source);

struct BreakdownOptions : DiagnosticOptions {
    std::string poi;  // "" = the model's POI
};

struct BreakdownGroup {
    std::string name;
    std::vector<std::string> parameter_sets;
    double held_uncertainty = 0.0;  // sigma_G: the POI's uncertainty with the group held
    double impact = 0.0;            // sqrt(max(sigma^2 - sigma_G^2, 0))
    double twice_nll = 0.0;         // of the held fit (equal to the free fit's: the group is held at its minimum)
    bool converged = true;
    std::string reason;             // when not converged, or when sigma_G exceeded sigma (impact then 0)
};

struct BreakdownResult {
    std::string poi;
    std::int64_t poi_index = -1;
    double poi_hat = 0.0;
    UncertaintyConvention convention = UncertaintyConvention::minuit;
    double total = 0.0;         // sigma of the free fit
    double statistical = 0.0;   // sigma with every parameter but the POI held
    double systematic = 0.0;    // sqrt(max(total^2 - statistical^2, 0))
    FitResult fit;              // the free fit
    std::vector<BreakdownGroup> groups;
    bool converged = true;      // the free fit, the statistical fit and every group's fit converged
    std::string reason;         // the first thing that went wrong, when not
};

// InputError: no POI (or an unknown poi name), a group naming an unknown parameter set or the POI, no group.
BreakdownResult breakdown(const Model& model, const std::vector<double>& data, const std::vector<ParameterGroup>& groups,
                          const BreakdownOptions& options = {});

json::Value to_json(const BreakdownResult& r);

struct BreakdownTableOptions {
    TableFormat format = TableFormat::text;
    int digits = 4;
    bool hide_poi_value = false;     // blinded runs: the POI's best-fit value is not printed
    std::vector<std::string> notes;  // lines above the table (which data)
};
// One table: the total, statistical and systematic rows, then a row per group (largest impact first) with its
// impact, the impact relative to the total and how many parameter sets it holds; each group's sets listed below.
// csv: every number at full precision, the sets in the last column.
std::string format_breakdown_table(const BreakdownResult& r, const BreakdownTableOptions& options = {});

}  // namespace hf::infer
