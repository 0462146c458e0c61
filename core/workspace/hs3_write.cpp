// pyhf JSON -> HS3 (hfcore/hs3.hpp): the writing half. Values are copied as JSON values, never through
// doubles, so numbers keep their exact form (1 stays 1, 0.1 stays 0.1) and a round trip (hs3_read.cpp) gives
// the same digest.
#include "hfcore/hs3.hpp"

#include <algorithm>

#include "hfcore/errors.hpp"

namespace hf {

namespace {

using json::Array;
using json::Object;
using json::Value;

const char* const kLikelihood = "likelihood";

std::string data_name(const std::string& channel) { return channel + "_data"; }

Value axes_of(const std::string& channel, std::size_t nbins) {
    Object axis;
    axis.set("name", Value("obs_x_" + channel));
    axis.set("min", Value(0.0));
    axis.set("max", Value(static_cast<double>(nbins)));
    axis.set("nbins", Value(static_cast<std::int64_t>(nbins)));
    return Array{Value(std::move(axis))};
}

// The names of a per-bin modifier's parameters, as pyhf names them in a measurement ("name[i]"; "name" alone for
// one bin) and as parameter_points names their values.
Value bin_parameters(const std::string& name, std::size_t nbins) {
    if (nbins == 1) return Array{Value(name)};
    Array out;
    for (std::size_t i = 0; i < nbins; ++i) out.emplace_back(name + "[" + std::to_string(i) + "]");
    return out;
}

// The modifier as ROOT's RooJSONFactoryWSTool and the standard write it: one-parameter modifiers name their
// "parameter" and, where constrained, the constraint by "constraint_name" (the Gaussian constraint term's name,
// which ROOT writes) and by "constraint" (its type, which the standard's histfactory_dist defines); per-bin
// modifiers (shapesys, staterror, shapefactor) name one parameter per bin in "parameters".
Value modifier_to_hs3(const Value& m, std::size_t nbins, Object& sample_data, bool& have_errors) {
    const std::string& type = m["type"].as_string();
    const std::string& name = m["name"].as_string();
    Object h;
    h.set("name", m["name"]);
    h.set("type", m["type"]);
    if (type == "shapesys" || type == "staterror" || type == "shapefactor")
        h.set("parameters", bin_parameters(name, nbins));
    else
        h.set("parameter", m["name"]);
    if (type == "normsys" || type == "histosys" || type == "lumi") {
        h.set("constraint_name", Value(name + "Constraint"));
        if (type != "lumi") h.set("constraint", Value("Gauss"));
    }
    // pyhf's interpolation codes, named: the standard's defaults, but another reader may default to ROOT's.
    if (type == "normsys") h.set("interpolation", Value("code4"));
    if (type == "histosys") h.set("interpolation", Value("code4p"));
    if (type == "normsys") {
        h.set("data", m["data"]);
    } else if (type == "histosys") {
        Object hi, lo, d;
        hi.set("contents", m["data"]["hi_data"]);
        lo.set("contents", m["data"]["lo_data"]);
        d.set("hi", Value(std::move(hi)));
        d.set("lo", Value(std::move(lo)));
        h.set("data", Value(std::move(d)));
    } else if (type == "shapesys") {
        // pyhf's absolute per-bin uncertainties; the Poisson constraint's tau is (nominal / value)^2.
        Object d;
        d.set("vals", m["data"]);
        h.set("constraint", Value("Poisson"));
        h.set("constraint_type", Value("Poisson"));
        h.set("data", Value(std::move(d)));
    } else if (type == "staterror") {
        h.set("constraint", Value("Gauss"));
        h.set("constraint_type", Value("Gauss"));
        if (!have_errors) {  // HS3 keeps a staterror's uncertainties as the sample's errors
            sample_data.set("errors", m["data"]);
            have_errors = true;
        } else {
            Object d;
            d.set("uncertainties", m["data"]);
            h.set("data", Value(std::move(d)));
        }
    }
    return h;
}

// The constraint terms of one-parameter modifiers as ROOT writes them, each named by its modifiers'
// "constraint_name": a gaussian_dist of the parameter around its global observable "nom_<parameter>" (the
// auxiliary datum, 0 for normsys and histosys; for lumi the measurement's auxdata with its sigma).
struct Constraints {
    Array distributions;
    std::vector<std::pair<std::string, Value>> globals;  // (global observable, value)
    std::vector<std::string> seen;

    void add(const std::string& parameter, const Value& nominal, const Value& sigma) {
        if (std::find(seen.begin(), seen.end(), parameter) != seen.end()) return;
        seen.push_back(parameter);
        Object g;
        g.set("name", Value(parameter + "Constraint"));
        g.set("type", Value("gaussian_dist"));
        g.set("x", Value(parameter));
        g.set("mean", Value("nom_" + parameter));
        g.set("sigma", sigma);
        distributions.emplace_back(std::move(g));
        globals.emplace_back("nom_" + parameter, nominal);
    }
};

// The lumi parameter's auxdata and sigma from the first measurement that configures it (pyhf requires one).
std::pair<Value, Value> lumi_constraint(const Value& ws, const std::string& name) {
    for (const auto& m : ws["measurements"].as_array())
        if (const auto* params = m["config"].find("parameters"))
            for (const auto& p : params->as_array())
                if (p["name"].as_string() == name && p.find("auxdata") && p.find("sigmas"))
                    return {p["auxdata"][0], p["sigmas"][0]};
    return {Value(1.0), Value(0.0)};
}

// One parameter_points entry per value of each measurement parameter with inits ("name" or "name[i]").
Value parameter_points(const Value& config, const std::string& name,
                       const std::vector<std::pair<std::string, Value>>& globals) {
    Array pars;
    if (const auto* params = config.find("parameters"))
        for (const auto& p : params->as_array()) {
            const auto* inits = p.find("inits");
            if (!inits) continue;
            const bool fixed = p.find("fixed") && p["fixed"].as_bool();
            const auto& v = inits->as_array();
            for (std::size_t i = 0; i < v.size(); ++i) {
                Object e;
                e.set("name", Value(v.size() == 1 ? p["name"].as_string()
                                                  : p["name"].as_string() + "[" + std::to_string(i) + "]"));
                e.set("value", v[i]);
                if (fixed) e.set("const", Value(true));
                pars.emplace_back(std::move(e));
            }
        }
    for (const auto& [global, value] : globals) {
        Object e;
        e.set("name", Value(global));
        e.set("value", value);
        e.set("const", Value(true));
        pars.emplace_back(std::move(e));
    }
    Object out;
    out.set("name", Value(name));
    out.set("parameters", Value(std::move(pars)));
    return out;
}

Value domain(const Value& config, const std::string& name) {
    Array axes;
    if (const auto* params = config.find("parameters"))
        for (const auto& p : params->as_array()) {
            const auto* bounds = p.find("bounds");
            if (!bounds) continue;
            const auto& b = bounds->as_array();
            for (std::size_t i = 0; i < b.size(); ++i) {
                Object a;
                a.set("name", Value(b.size() == 1 ? p["name"].as_string()
                                                  : p["name"].as_string() + "[" + std::to_string(i) + "]"));
                a.set("min", b[i][0]);
                a.set("max", b[i][1]);
                axes.emplace_back(std::move(a));
            }
        }
    Object out;
    out.set("name", Value(name));
    out.set("type", Value("product_domain"));
    out.set("axes", Value(std::move(axes)));
    return out;
}

}  // namespace

json::Value pyhf_to_hs3(const json::Value& ws) {
    Array distributions, data, dist_names, data_names;
    Constraints constraints;
    for (const auto& ch : ws["channels"].as_array()) {
        const std::string& name = ch["name"].as_string();
        const auto& samples = ch["samples"].as_array();
        const std::size_t nbins = samples.empty() ? 0 : samples[0]["data"].as_array().size();
        Array hs;
        for (const auto& s : samples) {
            Object d;
            d.set("contents", s["data"]);
            bool have_errors = false;
            Array mods;
            for (const auto& m : s["modifiers"].as_array()) {
                mods.push_back(modifier_to_hs3(m, nbins, d, have_errors));
                const std::string& type = m["type"].as_string();
                if (type == "normsys" || type == "histosys") {
                    constraints.add(m["name"].as_string(), Value(0.0), Value(1.0));
                } else if (type == "lumi") {
                    const auto [aux, sigma] = lumi_constraint(ws, m["name"].as_string());
                    constraints.add(m["name"].as_string(), aux, sigma);
                }
            }
            Object hsample;
            hsample.set("name", s["name"]);
            hsample.set("data", Value(std::move(d)));
            hsample.set("modifiers", Value(std::move(mods)));
            hs.emplace_back(std::move(hsample));
        }
        Object dist;
        dist.set("name", Value(name));
        dist.set("type", Value("histfactory_dist"));
        dist.set("axes", axes_of(name, nbins));
        dist.set("samples", Value(std::move(hs)));
        distributions.emplace_back(std::move(dist));
        dist_names.emplace_back(name);
        data_names.emplace_back(data_name(name));
    }
    for (auto& c : constraints.distributions) distributions.push_back(std::move(c));
    for (const auto& obs : ws["observations"].as_array()) {
        Object d;
        d.set("name", Value(data_name(obs["name"].as_string())));
        d.set("type", Value("binned"));
        d.set("contents", obs["data"]);
        d.set("axes", axes_of(obs["name"].as_string(), obs["data"].as_array().size()));
        data.emplace_back(std::move(d));
    }
    Object likelihood;
    likelihood.set("name", Value(kLikelihood));
    likelihood.set("distributions", Value(std::move(dist_names)));
    likelihood.set("data", Value(std::move(data_names)));
    Array analyses, points, domains;
    for (const auto& m : ws["measurements"].as_array()) {
        const std::string& name = m["name"].as_string();
        Object a;
        a.set("name", Value(name));
        a.set("likelihood", Value(kLikelihood));
        a.set("parameters_of_interest", Value(Array{m["config"]["poi"]}));
        a.set("domains", Value(Array{Value("domain_" + name)}));
        a.set("init", Value("init_" + name));
        a.set("pyhf_config", m["config"]);  // the measurement as pyhf wrote it, for an exact way back
        analyses.emplace_back(std::move(a));
        points.push_back(parameter_points(m["config"], "init_" + name, constraints.globals));
        domains.push_back(domain(m["config"], "domain_" + name));
    }
    Object meta;
    meta.set("hs3_version", Value("0.2"));
    meta.set("packages", Value(Array{Value(Object{{"name", Value("hfcore")}, {"version", Value(HFCORE_VERSION)}})}));
    if (const auto* v = ws.find("version")) meta.set("pyhf_workspace_version", *v);
    Object out;
    out.set("metadata", Value(std::move(meta)));
    out.set("distributions", Value(std::move(distributions)));
    out.set("data", Value(std::move(data)));
    out.set("likelihoods", Value(Array{Value(std::move(likelihood))}));
    out.set("analyses", Value(std::move(analyses)));
    out.set("parameter_points", Value(std::move(points)));
    out.set("domains", Value(std::move(domains)));
    return out;
}

}  // namespace hf
