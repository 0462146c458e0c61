// pyhf JSON <-> HS3 (hfcore/hs3.hpp). Values are copied as JSON values, never through doubles, so numbers keep
// their exact form (1 stays 1, 0.1 stays 0.1) and a round trip gives the same digest.
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

// Reading: typed access with the JSON path in every error.
struct Reader {
    const std::string& source;

    [[noreturn]] void fail(const std::string& path, const std::string& what) const {
        throw InputError(source, path, what);
    }
    const Value& get(const Value& v, const std::string& key, const std::string& path) const {
        const Value* x = v.is_object() ? v.find(key) : nullptr;
        if (!x) fail(path, "missing '" + key + "'");
        return *x;
    }
    const Array& array(const Value& v, const std::string& path) const {
        if (!v.is_array()) fail(path, std::string("expected an array, found ") + v.type_name());
        return v.as_array();
    }
    const std::string& string(const Value& v, const std::string& path) const {
        if (!v.is_string()) fail(path, std::string("expected a string, found ") + v.type_name());
        return v.as_string();
    }
    const Value& numbers(const Value& v, const std::string& path) const {
        for (std::size_t i = 0; i < array(v, path).size(); ++i)
            if (!v.as_array()[i].is_number()) fail(path + "[" + std::to_string(i) + "]", "expected a number");
        return v;
    }
};

// Whether a per-bin modifier's "parameters" are pyhf's names of one parameter's bins ("x[0]", "x[1]", ...), as
// hfcore writes them; another writer's names (ROOT's "gamma_stat_<channel>_bin_<i>") are not.
bool pyhf_bin_names(const Reader& rd, const Value& ps, const std::string& path) {
    const auto& names = rd.array(ps, path);
    if (names.empty()) return false;
    const std::string& first = rd.string(names[0], path + "[0]");
    const auto bracket = first.rfind('[');
    if (bracket == std::string::npos || bracket == 0) return false;
    const std::string base = first.substr(0, bracket);
    for (std::size_t i = 0; i < names.size(); ++i)
        if (rd.string(names[i], path + "[" + std::to_string(i) + "]") != base + "[" + std::to_string(i) + "]")
            return false;
    return true;
}

Value modifier_from_hs3(const Reader& rd, const Value& m, const Value& sample, const std::string& channel,
                        const std::string& path) {
    const std::string& type = rd.string(rd.get(m, "type", path), path + ".type");
    Object out;
    std::string name;
    if (const auto* p = m.find("parameter"))
        name = rd.string(*p, path + ".parameter");
    else if (const auto* ps = m.find("parameters"); ps && pyhf_bin_names(rd, *ps, path + ".parameters"))
        name = ps->as_array()[0].as_string().substr(0, ps->as_array()[0].as_string().rfind('['));
    else if (type == "staterror")
        name = "staterror_" + channel;  // ROOT names every channel's staterror alike; pyhf keeps them apart
    else
        name = rd.string(rd.get(m, "name", path), path + ".name");
    out.set("name", Value(name));
    out.set("type", Value(type));
    if (type == "normfactor" || type == "shapefactor" || type == "lumi") {
        out.set("data", Value());
    } else if (type == "normsys") {
        const auto& d = rd.get(m, "data", path);
        Object x;
        for (const char* k : {"hi", "lo"}) {
            const auto& v = rd.get(d, k, path + ".data");
            if (!v.is_number()) rd.fail(path + ".data." + k, "expected a number");
            x.set(k, v);
        }
        out.set("data", Value(std::move(x)));
    } else if (type == "histosys") {
        const auto& d = rd.get(m, "data", path);
        Object x;
        x.set("hi_data", rd.numbers(rd.get(rd.get(d, "hi", path + ".data"), "contents", path + ".data.hi"),
                                    path + ".data.hi.contents"));
        x.set("lo_data", rd.numbers(rd.get(rd.get(d, "lo", path + ".data"), "contents", path + ".data.lo"),
                                    path + ".data.lo.contents"));
        out.set("data", Value(std::move(x)));
    } else if (type == "shapesys") {
        out.set("data", rd.numbers(rd.get(rd.get(m, "data", path), "vals", path + ".data"), path + ".data.vals"));
    } else if (type == "staterror") {
        if (const auto* d = m.find("data")) {  // "uncertainties" as the standard names them, "vals" as hfcore wrote
            const char* key = d->find("uncertainties") ? "uncertainties" : "vals";
            out.set("data", rd.numbers(rd.get(*d, key, path + ".data"), path + ".data." + key));
        }
        else
            out.set("data", rd.numbers(rd.get(rd.get(sample, "data", path), "errors", path + " (sample data)"),
                                       path + " (sample data.errors)"));
    } else {
        rd.fail(path + ".type", "modifier type '" + type +
                                    "' cannot be represented by hfcore (normfactor, normsys, histosys, shapesys, "
                                    "staterror, shapefactor, lumi)");
    }
    return out;
}

// A measurement config from an analysis written by another program: the POI, and for every parameter named in the
// parameter points or the domain its init, fixed flag and bounds (names "x[i]" regrouped into "x").
Value config_from_analysis(const Reader& rd, const Value& doc, const Value& analysis, const std::string& path,
                           const std::vector<std::string>& model_parameters) {
    // Parameter points and domains also hold global observables ("nom_alpha_x") and other names, not parameters
    // of the model: pyhf's measurement would refuse them.
    auto in_model = [&](const std::string& full) {
        return std::find(model_parameters.begin(), model_parameters.end(), full.substr(0, full.find('['))) !=
               model_parameters.end();
    };
    Object config;
    const auto& pois = rd.array(rd.get(analysis, "parameters_of_interest", path), path + ".parameters_of_interest");
    if (pois.empty()) rd.fail(path + ".parameters_of_interest", "no parameter of interest");
    config.set("poi", Value(rd.string(pois[0], path + ".parameters_of_interest[0]")));
    Array params;
    auto entry = [&](const std::string& full) -> Object& {
        const auto bracket = full.find('[');
        const std::string name = full.substr(0, bracket);
        for (auto& p : params)
            if (p.as_object().at("name").as_string() == name) return p.as_object();
        Object o;
        o.set("name", Value(name));
        params.emplace_back(std::move(o));
        return params.back().as_object();
    };
    auto named_list = [&](const char* key, const std::string& wanted) -> const Value* {
        const auto* list = doc.find(key);
        if (!list || !list->is_array()) return nullptr;
        for (const auto& x : list->as_array())
            if (x.find("name") && x["name"].is_string() && x["name"].as_string() == wanted) return &x;
        return nullptr;
    };
    if (const auto* d = analysis.find("domains"))
        for (const auto& dn : rd.array(*d, path + ".domains")) {
            const auto* dom = named_list("domains", rd.string(dn, path + ".domains"));
            if (!dom || !dom->find("axes")) continue;
            for (const auto& a : (*dom)["axes"].as_array()) {
                if (!a.find("name") || !a.find("min") || !a.find("max") || !in_model(a["name"].as_string())) continue;
                auto& e = entry(a["name"].as_string());
                if (!e.find("bounds")) e.set("bounds", Value(Array{}));
                e.at("bounds").as_array().push_back(Value(Array{a["min"], a["max"]}));
            }
        }
    if (const auto* init = analysis.find("init"))
        if (const auto* pts = named_list("parameter_points", rd.string(*init, path + ".init")); pts && pts->find("parameters"))
            for (const auto& p : (*pts)["parameters"].as_array()) {
                if (!p.find("name") || !p.find("value") || !in_model(p["name"].as_string())) continue;
                auto& e = entry(p["name"].as_string());
                if (!e.find("inits")) e.set("inits", Value(Array{}));
                e.at("inits").as_array().push_back(p["value"]);
                if (p.find("const") && p["const"].is_bool() && p["const"].as_bool()) e.set("fixed", Value(true));
            }
    config.set("parameters", Value(std::move(params)));
    return config;
}

bool written_by_hfcore(const Value& doc) {
    const auto* meta = doc.find("metadata");
    const auto* packages = meta ? meta->find("packages") : nullptr;
    if (!packages || !packages->is_array()) return false;
    return std::any_of(packages->as_array().begin(), packages->as_array().end(), [](const Value& p) {
        const auto* n = p.is_object() ? p.find("name") : nullptr;
        return n && n->is_string() && n->as_string() == "hfcore";
    });
}

}  // namespace

bool is_hs3(const json::Value& doc) {
    return doc.is_object() && doc.find("distributions") && !doc.find("channels");
}

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

json::Value hs3_to_pyhf(const json::Value& doc, const std::string& source) {
    const Reader rd{source};
    if (!doc.is_object()) rd.fail("", std::string("expected an HS3 object, found ") + doc.type_name());
    const auto& dists = rd.array(rd.get(doc, "distributions", ""), "distributions");
    const auto& likelihoods = rd.array(rd.get(doc, "likelihoods", ""), "likelihoods");
    if (likelihoods.empty()) rd.fail("likelihoods", "no likelihood");
    // The likelihood of the first analysis (or the first likelihood).
    std::size_t li = 0;
    if (const auto* an = doc.find("analyses"); an && an->is_array() && !an->as_array().empty())
        if (const auto* ln = an->as_array()[0].find("likelihood"); ln && ln->is_string())
            for (std::size_t i = 0; i < likelihoods.size(); ++i)
                if (likelihoods[i].find("name") && likelihoods[i]["name"] == *ln) li = i;
    const std::string lp = "likelihoods[" + std::to_string(li) + "]";
    const auto& lk = likelihoods[li];
    const auto& lk_dists = rd.array(rd.get(lk, "distributions", lp), lp + ".distributions");
    const auto& lk_data = rd.array(rd.get(lk, "data", lp), lp + ".data");
    if (lk_data.size() != lk_dists.size())
        rd.fail(lp + ".data", std::to_string(lk_data.size()) + " data for " + std::to_string(lk_dists.size()) +
                                  " distributions");
    const Array empty;
    const auto* data_list = doc.find("data");
    const auto& data = data_list ? rd.array(*data_list, "data") : empty;

    Array channels, observations;
    std::vector<std::pair<std::size_t, Value>> obs_by_position;  // (index in "data", observation)
    for (std::size_t i = 0; i < lk_dists.size(); ++i) {
        const std::string& dname = rd.string(lk_dists[i], lp + ".distributions[" + std::to_string(i) + "]");
        std::size_t k = 0;
        while (k < dists.size() && !(dists[k].find("name") && dists[k]["name"].is_string() &&
                                     dists[k]["name"].as_string() == dname))
            ++k;
        if (k == dists.size())
            rd.fail(lp + ".distributions[" + std::to_string(i) + "]", "no distribution named '" + dname + "'");
        const std::string dp = "distributions[" + std::to_string(k) + "]";
        const auto& dist = dists[k];
        const std::string& type = rd.string(rd.get(dist, "type", dp), dp + ".type");
        if (type != "histfactory_dist")
            rd.fail(dp + ".type", "distribution type '" + type + "' of '" + dname +
                                      "' cannot be represented by hfcore (HistFactory models: histfactory_dist)");
        Array samples;
        const auto& hs = rd.array(rd.get(dist, "samples", dp), dp + ".samples");
        for (std::size_t j = 0; j < hs.size(); ++j) {
            const std::string sp = dp + ".samples[" + std::to_string(j) + "]";
            Array mods;
            if (const auto* ms = hs[j].find("modifiers"))
                for (std::size_t m = 0; m < rd.array(*ms, sp + ".modifiers").size(); ++m)
                    mods.push_back(modifier_from_hs3(rd, ms->as_array()[m], hs[j], dname,
                                                     sp + ".modifiers[" + std::to_string(m) + "]"));
            Object s;
            s.set("name", Value(rd.string(rd.get(hs[j], "name", sp), sp + ".name")));
            s.set("data", rd.numbers(rd.get(rd.get(hs[j], "data", sp), "contents", sp + ".data"), sp + ".data.contents"));
            s.set("modifiers", Value(std::move(mods)));
            samples.emplace_back(std::move(s));
        }
        Object ch;
        ch.set("name", Value(dname));
        ch.set("samples", Value(std::move(samples)));
        channels.emplace_back(std::move(ch));
        // The observation: a name of "data" (kept in that list's order) or the counts themselves.
        const std::string dap = lp + ".data[" + std::to_string(i) + "]";
        Object obs;
        obs.set("name", Value(dname));
        std::size_t position = data.size() + i;
        if (lk_data[i].is_string()) {
            const std::string& ref = lk_data[i].as_string();
            std::size_t d = 0;
            while (d < data.size() && !(data[d].find("name") && data[d]["name"].is_string() &&
                                        data[d]["name"].as_string() == ref))
                ++d;
            if (d == data.size()) rd.fail(dap, "no data named '" + ref + "'");
            obs.set("data", rd.numbers(rd.get(data[d], "contents", "data[" + std::to_string(d) + "]"),
                                       "data[" + std::to_string(d) + "].contents"));
            position = d;
        } else {
            obs.set("data", rd.numbers(lk_data[i], dap));
        }
        obs_by_position.emplace_back(position, Value(std::move(obs)));
    }
    // pyhf keeps observations of channels outside the model; hfcore writes them as "<name>_data" entries that no
    // likelihood uses. Read back from hfcore's documents only: another writer's spare data (an Asimov set) are not
    // observations.
    if (written_by_hfcore(doc))
        for (std::size_t d = 0; d < data.size(); ++d) {
            const auto* name = data[d].find("name");
            if (!name || !name->is_string() || name->as_string().size() <= 5 ||
                name->as_string().compare(name->as_string().size() - 5, 5, "_data") != 0)
                continue;
            const bool used = std::any_of(lk_data.begin(), lk_data.end(), [&](const Value& x) { return x == *name; });
            if (used) continue;
            Object obs;
            obs.set("name", Value(name->as_string().substr(0, name->as_string().size() - 5)));
            obs.set("data", rd.numbers(rd.get(data[d], "contents", "data[" + std::to_string(d) + "]"),
                                       "data[" + std::to_string(d) + "].contents"));
            obs_by_position.emplace_back(d, Value(std::move(obs)));
        }
    std::stable_sort(obs_by_position.begin(), obs_by_position.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [pos, obs] : obs_by_position) observations.push_back(std::move(obs));

    std::vector<std::string> model_parameters;
    for (const auto& ch : channels)
        for (const auto& smp : ch["samples"].as_array())
            for (const auto& mod : smp["modifiers"].as_array()) model_parameters.push_back(mod["name"].as_string());
    Array measurements;
    if (const auto* an = doc.find("analyses"))
        for (std::size_t a = 0; a < rd.array(*an, "analyses").size(); ++a) {
            const std::string ap = "analyses[" + std::to_string(a) + "]";
            const auto& analysis = an->as_array()[a];
            Object m;
            m.set("name", Value(rd.string(rd.get(analysis, "name", ap), ap + ".name")));
            const auto* kept = analysis.find("pyhf_config");
            m.set("config", kept ? *kept : config_from_analysis(rd, doc, analysis, ap, model_parameters));
            measurements.emplace_back(std::move(m));
        }
    if (measurements.empty()) rd.fail("analyses", "no analysis: hfcore needs one for the measurement and its POI");

    Object out;
    out.set("channels", Value(std::move(channels)));
    out.set("measurements", Value(std::move(measurements)));
    out.set("observations", Value(std::move(observations)));
    const json::Value* version = nullptr;
    if (const auto* meta = doc.find("metadata")) version = meta->find("pyhf_workspace_version");
    out.set("version", version ? *version : Value("1.0.0"));  // pyhf's schema version, which the result follows
    return out;
}

}  // namespace hf
