// `hfcore breakdown`: the POI's uncertainty split into groups of nuisance parameters (hfcore/breakdown.hpp), as
// JSON or as a table (--table).
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_options.hpp"
#include "hfcore/breakdown.hpp"
#include "hfcore/errors.hpp"

namespace cmd_breakdown {
namespace {

struct Options {
    hf::cli::ModelOptions model;
    hf::cli::HeldFitOptions fits;
    bool hessian = false;
    std::vector<std::string> group;  // --group NAME=PATTERN[,PATTERN...]
    std::string groups_file;         // --groups FILE
    std::string poi;
    std::string table;               // empty: JSON
    int digits = 4;
};

// NAME=PATTERN[,PATTERN...]: one group of --group.
hf::infer::GroupPatterns parse_group(const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw hf::InputError("--group", text, "expected NAME=PATTERN[,PATTERN...] (e.g. jets='JES_*,JER')");
    hf::infer::GroupPatterns g{text.substr(0, eq), {}};
    std::string rest = text.substr(eq + 1);
    for (std::size_t start = 0;;) {
        const auto comma = rest.find(',', start);
        const std::string p = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (p.empty()) throw hf::InputError("--group", text, "an empty pattern");
        g.patterns.push_back(p);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return g;
}

std::vector<hf::infer::ParameterGroup> groups(const Options& o, const hf::Model& model) {
    if (!o.groups_file.empty())
        return hf::infer::groups_from_json(model, hf::json::parse_file(o.groups_file), o.groups_file);
    if (!o.group.empty()) {
        std::vector<hf::infer::GroupPatterns> patterns;
        for (const auto& g : o.group) patterns.push_back(parse_group(g));
        return hf::infer::groups_by_pattern(model, patterns, "--group");
    }
    auto by_type = hf::infer::groups_by_modifier_type(model);
    if (by_type.empty()) throw hf::InputError("breakdown", "", "the model has no nuisance parameter to hold");
    return by_type;
}

const hf::cli::Register reg(
    "breakdown",
    "The POI's uncertainty split into groups of parameters: statistical (all held), systematic, and each group's "
    "impact sqrt(total^2 - sigma^2 with the group held at its best fit).",
    [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        o->model.add_data_options(sub);
        o->fits.add_to(sub);
        hf::cli::add_convention_flag(sub, o->hessian);
        sub.add_option("--group", o->group,
                       "A group NAME=PATTERN[,PATTERN...] of parameter sets by shell pattern (repeatable); default: "
                       "one group per modifier type");
        auto* file = sub.add_option("--groups", o->groups_file,
                                    "JSON file of groups: {\"groups\": [{\"name\": \"jets\", \"parameters\": "
                                    "[\"JES_*\", \"JER\"]}]}")
                         ->check(CLI::ExistingFile);
        file->excludes(sub.get_option("--group"));
        sub.add_option("--poi", o->poi, "The parameter whose uncertainty is split (default: the model's POI)");
        sub.add_option("--table", o->table, "Write a table instead of JSON (csv: every number at full precision)")
            ->check(CLI::IsMember({"text", "markdown", "latex", "csv"}));
        sub.add_option("--digits", o->digits, "Decimals in text, markdown and latex tables")
            ->capture_default_str()
            ->check(CLI::Range(0, 12));
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            const auto g = groups(*o, *lm.model);  // bad groups fail before any fit, with exit status 2
            hf::infer::BreakdownOptions d;
            static_cast<hf::infer::DiagnosticOptions&>(d) = o->fits.diagnostic_options();
            d.uncertainties = hf::cli::convention(o->hessian);
            d.poi = o->poi;
            const auto r = hf::infer::breakdown(*lm.model, lm.data, g, d);
            if (!r.converged) hf::cli::warn("breakdown not trustworthy: " + r.reason);
            if (o->table.empty()) {
                hf::cli::emit(hf::cli::presented(hf::infer::to_json(r), o->model, lm), o->model);
            } else {
                hf::infer::BreakdownTableOptions t;
                t.format = hf::infer::parse_table_format(o->table);
                t.digits = o->digits;
                t.hide_poi_value = !lm.blinded.empty();
                if (o->model.data.kind == "asimov") t.notes.push_back(hf::cli::asimov_description(*lm.model, o->model.data));
                hf::cli::emit_text(hf::infer::format_breakdown_table(r, t), o->model);
            }
            return r.converged ? 0 : 1;
        };
    });

}  // namespace
}  // namespace cmd_breakdown
