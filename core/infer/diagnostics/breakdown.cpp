// The POI's uncertainty split into groups of parameters (hfcore/breakdown.hpp): one free fit, then as one set of
// held fits (the batched machinery of ranking) one with every parameter but the POI held and one per group with the
// group held at the free fit's values.
#include "hfcore/breakdown.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "hfcore/errors.hpp"
#include "hfcore/observed_data.hpp"
#include "infer/diagnostics/held_fits.hpp"
#include "infer/diagnostics/parameter_lookup.hpp"
#include "infer/diagnostics/text_tables.hpp"

namespace hf::infer {

namespace {

// Parameter sets a group may hold: all but the POI, with a component the configuration leaves free.
bool holdable(const ParameterSet& set, const std::string& poi, const std::vector<bool>& fixed) {
    if (set.name == poi) return false;
    for (std::int64_t i = 0; i < set.n; ++i)
        if (!fixed[static_cast<std::size_t>(set.offset + i)]) return true;
    return false;
}

std::vector<ParameterGroup> match_patterns(const Model& model, const std::vector<GroupPatterns>& groups,
                                           const std::string& source, const std::vector<std::string>& paths) {
    const auto fixed = model.suggested_fixed();
    std::vector<ParameterGroup> out;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        ParameterGroup group{groups[g].name, {}};
        for (const auto& set : model.parameter_sets()) {
            if (!holdable(set, model.poi_name(), fixed)) continue;
            for (const auto& pattern : groups[g].patterns)
                if (fnmatch(pattern.c_str(), set.name.c_str(), 0) == 0) {
                    group.parameter_sets.push_back(set.name);
                    break;
                }
        }
        if (group.parameter_sets.empty()) {
            std::string list;
            for (const auto& p : groups[g].patterns) list += (list.empty() ? "'" : ", '") + p + "'";
            throw InputError(source, paths[g],
                             "group '" + groups[g].name + "': " + list +
                                 " matches no parameter set of the model that can be held (not the POI, not fixed)");
        }
        out.push_back(std::move(group));
    }
    return out;
}

double poi_uncertainty(const Model& model, const std::vector<double>& data, const FitResult& fit,
                       const FitConfig& config, UncertaintyConvention convention, std::size_t poi) {
    return detail::reported_uncertainties(model, data, fit, config, convention).uncertainties.at(poi);
}

const char* convention_name(UncertaintyConvention c) {
    return c == UncertaintyConvention::minuit ? "minuit" : "hessian";
}

}  // namespace

std::vector<ParameterGroup> groups_by_modifier_type(const Model& model) {
    const auto fixed = model.suggested_fixed();
    std::vector<ParameterGroup> out;
    for (const auto& type : modifier_type_names()) {
        ParameterGroup group{type, {}};
        for (const auto& set : model.parameter_sets())
            if (modifier_type_name(set.modifier_type) == type && holdable(set, model.poi_name(), fixed))
                group.parameter_sets.push_back(set.name);
        if (!group.parameter_sets.empty()) out.push_back(std::move(group));
    }
    return out;
}

std::vector<ParameterGroup> groups_by_pattern(const Model& model, const std::vector<GroupPatterns>& patterns,
                                              const std::string& source) {
    std::vector<std::string> paths;
    for (const auto& g : patterns) paths.push_back(g.name);
    return match_patterns(model, patterns, source, paths);
}

std::vector<ParameterGroup> groups_from_json(const Model& model, const json::Value& doc, const std::string& source) {
    auto expect = [&](const json::Value* v, json::Type type, const std::string& path) -> const json::Value& {
        if (!v) throw InputError(source, path, "missing");
        if (v->type() != type)
            throw InputError(source, path, std::string("expected ") + json::type_name(type) + ", found " + v->type_name());
        return *v;
    };
    if (!doc.is_object()) throw InputError(source, "", std::string("expected an object, found ") + doc.type_name());
    const auto& list = expect(doc.find("groups"), json::Type::Array, "groups").as_array();
    if (list.empty()) throw InputError(source, "groups", "no group");
    std::vector<GroupPatterns> groups;
    std::vector<std::string> paths;
    for (std::size_t g = 0; g < list.size(); ++g) {
        const std::string path = "groups[" + std::to_string(g) + "]";
        expect(&list[g], json::Type::Object, path);
        GroupPatterns gp;
        gp.name = expect(list[g].find("name"), json::Type::String, path + ".name").as_string();
        const auto& pars = expect(list[g].find("parameters"), json::Type::Array, path + ".parameters").as_array();
        if (pars.empty()) throw InputError(source, path + ".parameters", "no parameter pattern");
        for (std::size_t k = 0; k < pars.size(); ++k)
            gp.patterns.push_back(
                expect(&pars[k], json::Type::String, path + ".parameters[" + std::to_string(k) + "]").as_string());
        groups.push_back(std::move(gp));
        paths.push_back(path + ".parameters");
    }
    return match_patterns(model, groups, source, paths);
}

BreakdownResult breakdown(const Model& model, const std::vector<double>& data, const std::vector<ParameterGroup>& groups,
                          const BreakdownOptions& options) {
    check_observed_data(model, data, "breakdown");
    BreakdownResult r;
    r.poi = options.poi.empty() ? model.poi_name() : options.poi;
    if (r.poi.empty()) throw InputError("breakdown", "poi", "the model has no POI: name one");
    r.poi_index = detail::parameter_index(model, r.poi, "breakdown");
    if (groups.empty()) throw InputError("breakdown", "groups", "no group of parameters to hold");
    const auto poi = static_cast<std::size_t>(r.poi_index);
    r.convention = options.uncertainties;
    const FitConfig base = options.config.resolved(model);
    if (base.fixed[poi]) throw InputError("breakdown", "poi", "the POI '" + r.poi + "' is fixed: it has no uncertainty");

    FitOptions fo = options.fit;
    fo.uncertainties = true;
    r.fit = fit(model, data, base, fo);
    r.poi_hat = r.fit.bestfit[poi];
    r.total = poi_uncertainty(model, data, r.fit, base, r.convention, poi);
    auto fail = [&](const std::string& why) {
        if (r.converged) r.reason = why;
        r.converged = false;
    };
    if (!r.fit.converged) fail("the free fit did not converge: " + r.fit.reason);

    // Holding parameters at the free minimum cannot lower the minimum; a held fit that does found a lower one.
    const double below = 1e-6 * std::max(1.0, std::abs(r.fit.twice_nll));
    auto check_held = [&](const FitResult& f, const std::string& what) -> std::string {
        if (!f.converged) return "the fit with " + what + " held did not converge: " + f.reason;
        if (f.twice_nll < r.fit.twice_nll - below)
            return "the fit with " + what + " held went " + full(r.fit.twice_nll - f.twice_nll) +
                   " below the free fit in twice_nll: the free fit is not at the minimum";
        return "";
    };

    // What each fit holds: every parameter but the POI (the statistical part), then each group. Checked before
    // any held fit runs.
    std::vector<std::vector<bool>> held_sets(1, std::vector<bool>(static_cast<std::size_t>(model.n_pars()), true));
    held_sets[0][poi] = false;
    for (const auto& g : groups) {
        std::vector<bool> held(static_cast<std::size_t>(model.n_pars()), false);
        for (const auto& name : g.parameter_sets) {
            if (name == r.poi)
                throw InputError("breakdown", "groups", "group '" + g.name + "' holds the POI '" + r.poi + "'");
            const auto [begin, end] = model.par_slice(name);  // InputError for an unknown set
            for (auto i = begin; i < end; ++i) held[static_cast<std::size_t>(i)] = true;
        }
        held_sets.push_back(std::move(held));
    }
    // The held fits of ranking and profile scans (diagnostics/held_fits.hpp: batched unless options.batched is
    // false, each finished as a single fit is), started at the free minimum; then each one's Hessian at its
    // minimum, as fit() reports uncertainties, for the POI's uncertainty with that group held.
    detail::HeldFits held_fits(model, data, options, &r.fit);
    std::vector<detail::HeldFitProblem> problems;
    for (const auto& held : held_sets) {
        detail::HeldFitProblem pr;
        for (std::size_t i = 0; i < held.size(); ++i)
            if (held[i] && !base.fixed[i]) pr.held.emplace_back(static_cast<std::int64_t>(i), r.fit.bestfit[i]);
        pr.start = r.fit.bestfit;
        problems.push_back(std::move(pr));
    }
    const auto outcomes = held_fits.run(problems);
    const BoundLikelihood bound = model.bind(data);
    auto held_fit = [&](std::size_t k) {
        FitConfig c = base;
        for (const auto& [i, v] : problems[k].held) {
            c.fixed[static_cast<std::size_t>(i)] = true;
            c.init[static_cast<std::size_t>(i)] = v;
        }
        FitResult f;
        f.bestfit = outcomes[k].bestfit;
        f.twice_nll = outcomes[k].twice_nll;
        f.converged = outcomes[k].converged;
        f.reason = outcomes[k].reason;
        double sigma = 0.0;
        if (f.converged) {
            detail::Problem p = detail::make_problem(model, bound, c);
            detail::add_uncertainties(p, p.to_y(f.bestfit), f);
            sigma = poi_uncertainty(model, data, f, c, r.convention, poi);
        }
        return std::make_pair(f, sigma);
    };

    const auto stat = held_fit(0);
    r.statistical = stat.second;
    if (auto why = check_held(stat.first, "every parameter but the POI"); !why.empty()) fail(why);
    r.systematic = std::sqrt(std::max(r.total * r.total - r.statistical * r.statistical, 0.0));

    for (std::size_t g = 0; g < groups.size(); ++g) {
        BreakdownGroup e;
        e.name = groups[g].name;
        e.parameter_sets = groups[g].parameter_sets;
        const auto [f, sigma] = held_fit(g + 1);
        e.held_uncertainty = sigma;
        e.twice_nll = f.twice_nll;
        e.impact = std::sqrt(std::max(r.total * r.total - sigma * sigma, 0.0));
        if (auto why = check_held(f, "group '" + e.name + "'"); !why.empty()) {
            e.converged = false;
            e.reason = why;
            fail(why);
        } else if (sigma > r.total * (1.0 + 1e-9)) {
            e.reason = "held, the POI's uncertainty (" + full(sigma) + ") exceeds the total (" + full(r.total) +
                       "): impact set to 0";
        }
        r.groups.push_back(std::move(e));
    }
    std::stable_sort(r.groups.begin(), r.groups.end(),
                     [](const BreakdownGroup& a, const BreakdownGroup& b) { return a.impact > b.impact; });
    return r;
}

json::Value to_json(const BreakdownResult& r) {
    json::Object out;
    out.set("poi", json::Value(r.poi));
    out.set("poi_hat", r.poi_hat);
    out.set("convention", json::Value(convention_name(r.convention)));
    out.set("definition", json::Value("impact of a group = sqrt(total^2 - sigma^2), sigma the POI's uncertainty "
                                      "with the group's parameters held at their best-fit values; statistical = "
                                      "sigma with every parameter but the POI held; systematic = sqrt(total^2 - "
                                      "statistical^2)"));
    out.set("total", r.total);
    out.set("statistical", r.statistical);
    out.set("systematic", r.systematic);
    json::Array groups;
    for (const auto& g : r.groups) {
        json::Object j;
        j.set("name", json::Value(g.name));
        json::Array sets;
        for (const auto& s : g.parameter_sets) sets.emplace_back(s);
        j.set("parameters", json::Value(std::move(sets)));
        j.set("impact", g.impact);
        j.set("held_uncertainty", g.held_uncertainty);
        j.set("twice_nll", g.twice_nll);
        j.set("converged", g.converged);
        if (!g.reason.empty()) j.set("reason", json::Value(g.reason));
        groups.emplace_back(std::move(j));
    }
    out.set("groups", json::Value(std::move(groups)));
    out.set("twice_nll", r.fit.twice_nll);
    out.set("converged", r.converged);
    if (!r.reason.empty()) out.set("reason", json::Value(r.reason));
    return out;
}

std::string format_breakdown_table(const BreakdownResult& r, const BreakdownTableOptions& o) {
    std::ostringstream os;
    if (o.format == TableFormat::csv) {
        os << "row,impact,relative,parameters\n";
        auto line = [&](const std::string& name, double v, const std::string& pars) {
            os << name << "," << full(v) << "," << full(r.total > 0 ? v / r.total : 0.0) << ",\"" << pars << "\"\n";
        };
        line("total", r.total, "");
        line("statistical", r.statistical, "");
        line("systematic", r.systematic, "");
        for (const auto& g : r.groups) {
            std::string sets;
            for (const auto& s : g.parameter_sets) sets += (sets.empty() ? "" : " ") + s;
            line(g.name, g.impact, sets);
        }
        return os.str();
    }
    const bool latex = o.format == TableFormat::latex;
    auto text = [&](const std::string& s) { return latex ? latex_escape(s) : s; };
    auto percent = [&](double v) { return fixed(r.total > 0 ? 100.0 * v / r.total : 0.0, 1) + (latex ? "\\%" : "%"); };
    std::vector<std::string> lines = o.notes;
    lines.push_back(std::string("uncertainty of ") + r.poi +
                    (o.hide_poi_value ? " (best-fit value blinded)" : " = " + fixed(r.poi_hat, o.digits)) +
                    "; impact of a group: sqrt(total^2 - sigma^2) with the group held at its best-fit values (" +
                    convention_name(r.convention) + " uncertainties); groups sharing or correlated with others do "
                    "not add up in quadrature");
    if (!r.converged) lines.push_back("NOT CONVERGED: " + r.reason);
    for (const auto& l : lines) {
        if (latex) os << "% " << latex_escape(l) << "\n";
        else if (o.format == TableFormat::markdown) os << "*" << l << "*\n\n";
        else os << l << "\n";
    }
    if (o.format == TableFormat::text) os << "\n";
    YieldTable t;
    t.title = "uncertainty breakdown of " + text(r.poi);
    t.rows.push_back({"", "impact", "of total", "parameter sets"});
    t.rows.push_back({"total", fixed(r.total, o.digits), percent(r.total), ""});
    t.rows.push_back({"statistical", fixed(r.statistical, o.digits), percent(r.statistical), ""});
    t.rows.push_back({"systematic", fixed(r.systematic, o.digits), percent(r.systematic), ""});
    for (const auto& g : r.groups)
        t.rows.push_back({text(g.name) + (g.converged ? "" : " (not converged)"), fixed(g.impact, o.digits),
                          percent(g.impact), std::to_string(g.parameter_sets.size())});
    write_table(os, t, o.format);
    // The groups' members below the table: names of parameter sets are too long for a column.
    os << (latex ? "%" : "") << "\n";
    for (const auto& g : r.groups) {
        std::string sets;
        for (const auto& s : g.parameter_sets) sets += (sets.empty() ? "" : ", ") + s;
        const std::string line = g.name + ": " + sets;
        if (latex) os << "% " << latex_escape(line) << "\n";
        else if (o.format == TableFormat::markdown) os << "- " << line << "\n";
        else os << line << "\n";
    }
    return os.str();
}

}  // namespace hf::infer
