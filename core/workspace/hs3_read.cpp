// HS3 -> pyhf JSON (hfcore/hs3.hpp): the reading half, of documents hfcore wrote (hs3_write.cpp: the pyhf
// configuration kept with each analysis) and of other writers' (ROOT's RooJSONFactoryWSTool). Values are copied
// as JSON values, never through doubles, so numbers keep their exact form.
#include "hfcore/hs3.hpp"

#include <algorithm>

#include "hfcore/errors.hpp"

namespace hf {

namespace {

using json::Array;
using json::Object;
using json::Value;

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
