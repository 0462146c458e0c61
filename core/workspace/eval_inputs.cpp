// Reading user parameter points and data sets (hfcore/eval_inputs.hpp), with a JSON path in every error.
#include "hfcore/eval_inputs.hpp"

#include <cmath>
#include <map>
#include <set>

#include "hfcore/errors.hpp"
#include "hfcore/observed_data.hpp"

namespace hf {

namespace {

double finite_number(const json::Value& v, const std::string& source, const std::string& path) {
    if (!v.is_number()) throw InputError(source, path, std::string("expected a number, got ") + v.type_name());
    const double x = v.as_double();
    if (!std::isfinite(x)) throw InputError(source, path, "not a finite number");
    return x;
}

std::vector<double> numbers(const json::Value& v, const std::string& source, const std::string& path) {
    if (!v.is_array()) throw InputError(source, path, std::string("expected a list of numbers, got ") + v.type_name());
    std::vector<double> out;
    const auto& a = v.as_array();
    out.reserve(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) out.push_back(finite_number(a[i], source, json::path_index(path, i)));
    return out;
}

std::string count(std::size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

}  // namespace

std::vector<double> parameter_point_from_json(const json::Value& doc, const std::vector<ParameterSlot>& slots,
                                              std::vector<double> defaults, const std::string& source) {
    std::int64_t n_pars = 0;
    for (const auto& s : slots) n_pars = std::max(n_pars, s.offset + s.n);
    if (static_cast<std::int64_t>(defaults.size()) != n_pars)
        throw InputError(source, "", "internal: " + count(defaults.size(), "default") + " for " +
                                         std::to_string(n_pars) + " parameters");
    if (doc.is_array()) {
        auto v = numbers(doc, source, "");
        if (static_cast<std::int64_t>(v.size()) != n_pars)
            throw InputError(source, "", "has " + count(v.size(), "value") + " but the model has " +
                                             std::to_string(n_pars) + " parameters");
        return v;
    }
    if (!doc.is_object()) throw InputError(source, "", "expected a JSON list or object of parameter values");
    const json::Value* obj = &doc;
    std::string base;
    if (const auto* m = doc.find("mle_parameters")) {
        obj = m;
        base = "mle_parameters";
        if (!obj->is_object()) throw InputError(source, base, "expected an object {name: [values]}");
    }
    std::map<std::string, const ParameterSlot*> by_name;
    for (const auto& s : slots) by_name[s.name] = &s;
    for (const auto& [name, v] : obj->as_object()) {
        const std::string path = json::path_key(base, name);
        auto it = by_name.find(name);
        if (it == by_name.end()) {
            std::string known;
            for (const auto& s : slots) known += (known.empty() ? "" : ", ") + s.name;
            throw InputError(source, path, "the model has no parameter '" + name + "' (its parameters: " + known + ")");
        }
        const ParameterSlot& s = *it->second;
        const std::vector<double> vals = v.is_array() ? numbers(v, source, path)
                                                      : std::vector<double>{finite_number(v, source, path)};
        if (static_cast<std::int64_t>(vals.size()) != s.n)
            throw InputError(source, path, "has " + count(vals.size(), "value") + " but parameter '" + name +
                                               "' has " + std::to_string(s.n));
        for (std::int64_t i = 0; i < s.n; ++i) defaults[static_cast<std::size_t>(s.offset + i)] = vals[i];
    }
    return defaults;
}

std::vector<double> data_from_json(const json::Value& doc, const std::vector<ChannelSlot>& channels,
                                   const std::vector<double>& auxdata, const std::string& source) {
    std::int64_t n_main = 0;
    for (const auto& c : channels) n_main += c.nbins;
    const std::int64_t n_all = n_main + static_cast<std::int64_t>(auxdata.size());
    if (doc.is_array()) {
        auto v = numbers(doc, source, "");
        if (static_cast<std::int64_t>(v.size()) != n_all)
            throw InputError(source, "", "has " + count(v.size(), "value") + " but the model takes " +
                                             std::to_string(n_main) + " main bins + " +
                                             std::to_string(auxdata.size()) + " auxdata = " + std::to_string(n_all));
        // Checked as every entry point checks data (hfcore/observed_data.hpp). The kinds of the aux data's
        // constraints are the compiled model's: here they are only known to be finite.
        check_observed_data(ObservedDataLayout{channels, std::vector<bool>(auxdata.size(), false)}, v, source);
        return v;
    }
    if (!doc.is_object()) throw InputError(source, "", "expected a JSON list of numbers or an object {channel: [counts]}");
    // {channel: [counts]} or {"observations": [{"name": ..., "data": [...]}, ...]}
    std::map<std::string, std::pair<const json::Value*, std::string>> given;  // name -> (counts, path)
    if (const auto* obs = doc.find("observations")) {
        if (!obs->is_array()) throw InputError(source, "observations", "expected a list of {\"name\", \"data\"}");
        for (std::size_t i = 0; i < obs->as_array().size(); ++i) {
            const auto& o = obs->as_array()[i];
            const std::string path = json::path_index("observations", i);
            if (!o.is_object()) throw InputError(source, path, "expected an object {\"name\", \"data\"}");
            const auto* name = o.find("name");
            const auto* data = o.find("data");
            if (!name || !name->is_string()) throw InputError(source, json::path_key(path, "name"), "expected a string");
            if (!data) throw InputError(source, json::path_key(path, "data"), "missing");
            if (!given.emplace(name->as_string(), std::make_pair(data, json::path_key(path, "data"))).second)
                throw InputError(source, json::path_key(path, "name"),
                                 "channel '" + name->as_string() + "' appears twice");
        }
    } else {
        for (const auto& [name, v] : doc.as_object()) given[name] = {&v, json::path_key("", name)};
    }
    std::set<std::string> known;
    for (const auto& c : channels) known.insert(c.name);
    for (const auto& [name, entry] : given)
        if (!known.count(name)) throw InputError(source, entry.second, "the model has no channel '" + name + "'");
    std::vector<double> out;
    out.reserve(static_cast<std::size_t>(n_all));
    for (const auto& c : channels) {
        auto it = given.find(c.name);
        if (it == given.end()) throw InputError(source, "", "no counts for channel '" + c.name + "'");
        auto v = numbers(*it->second.first, source, it->second.second);
        if (static_cast<std::int64_t>(v.size()) != c.nbins)
            throw InputError(source, it->second.second, "has " + count(v.size(), "value") + " but channel '" +
                                                            c.name + "' has " + count(c.nbins, "bin"));
        check_channel_counts(v, c.name, source, it->second.second);
        out.insert(out.end(), v.begin(), v.end());
    }
    out.insert(out.end(), auxdata.begin(), auxdata.end());
    return out;
}

}  // namespace hf
