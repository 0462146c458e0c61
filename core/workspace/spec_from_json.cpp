// Typed specs (spec.hpp) from schema-valid JSON, each element remembering its JSON path.
#include "checks.hpp"
#include "modifiers/registry.hpp"

namespace hf::detail {

using json::Value;

namespace {

ModifierSpec modifier_from_json(const Value& v, const std::string& path) {
    ModifierSpec m;
    m.name = v["name"].as_string();
    m.type = *find_modifier_type(v["type"].as_string());  // the schema check knows every type
    m.json_path = path;
    modifier_kind(m.type).read_data(v["data"], m);
    return m;
}

MeasurementSpec measurement_from_json(const Value& v, const std::string& source, const std::string& path) {
    MeasurementSpec m;
    m.name = v["name"].as_string();
    m.poi = v["config"]["poi"].as_string();
    m.json_path = path;
    m.parameters = parameters_from_json(v["config"]["parameters"], source,
                                        json::path_key(json::path_key(path, "config"), "parameters"));
    return m;
}

}  // namespace

std::vector<ChannelSpec> channels_from_json(const Value& channels, const std::string&, const std::string& base) {
    std::vector<ChannelSpec> out;
    const auto& cs = channels.as_array();
    out.reserve(cs.size());
    for (std::size_t i = 0; i < cs.size(); ++i) {
        ChannelSpec c;
        c.json_path = json::path_index(base, i);
        c.name = cs[i]["name"].as_string();
        const auto& ss = cs[i]["samples"].as_array();
        for (std::size_t j = 0; j < ss.size(); ++j) {
            SampleSpec s;
            s.json_path = json::path_index(json::path_key(c.json_path, "samples"), j);
            s.name = ss[j]["name"].as_string();
            s.data = numbers_of(ss[j]["data"]);
            const auto& ms = ss[j]["modifiers"].as_array();
            for (std::size_t k = 0; k < ms.size(); ++k)
                s.modifiers.push_back(
                    modifier_from_json(ms[k], json::path_index(json::path_key(s.json_path, "modifiers"), k)));
            c.samples.push_back(std::move(s));
        }
        out.push_back(std::move(c));
    }
    return out;
}

std::vector<ParameterConfig> parameters_from_json(const Value& params, const std::string&, const std::string& base) {
    std::vector<ParameterConfig> out;
    const auto& ps = params.as_array();
    for (std::size_t i = 0; i < ps.size(); ++i) {
        const Value& p = ps[i];
        ParameterConfig c;
        c.name = p["name"].as_string();
        c.json_path = json::path_index(base, i);
        if (const Value* x = p.find("inits")) c.inits = numbers_of(*x);
        if (const Value* x = p.find("auxdata")) c.auxdata = numbers_of(*x);
        if (const Value* x = p.find("sigmas")) c.sigmas = numbers_of(*x);
        if (const Value* x = p.find("factors")) c.factors = numbers_of(*x);
        if (const Value* x = p.find("fixed")) c.fixed = x->as_bool();
        if (const Value* x = p.find("bounds")) {
            std::vector<std::pair<double, double>> b;
            for (const auto& pair : x->as_array()) b.emplace_back(pair[0].as_double(), pair[1].as_double());
            c.bounds = std::move(b);
        }
        out.push_back(std::move(c));
    }
    return out;
}

WorkspaceSpec workspace_spec_from_json(const Value& doc, const std::string& source) {
    WorkspaceSpec ws;
    ws.source = source;
    ws.version = doc["version"].as_string();
    ws.channels = channels_from_json(doc["channels"], source, "channels");
    const auto& ms = doc["measurements"].as_array();
    for (std::size_t i = 0; i < ms.size(); ++i)
        ws.measurements.push_back(measurement_from_json(ms[i], source, json::path_index("measurements", i)));
    const auto& obs = doc["observations"].as_array();
    for (std::size_t i = 0; i < obs.size(); ++i) {
        ObservationSpec o;
        o.name = obs[i]["name"].as_string();
        o.data = numbers_of(obs[i]["data"]);
        o.json_path = json::path_index("observations", i);
        ws.observations.push_back(std::move(o));
    }
    return ws;
}

}  // namespace hf::detail
