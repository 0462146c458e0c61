// hf::Workspace: loading, validation, summaries, measurements, model specs and observations.
#include <algorithm>
#include <set>

#include "checks.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/hs3.hpp"
#include "hfcore/workspace.hpp"

namespace hf {

using json::Value;

// An HS3 document (hfcore/hs3.hpp) is read as the pyhf workspace it describes.
Workspace::Workspace(json::Value doc, std::string source)
    : doc_(is_hs3(doc) ? hs3_to_pyhf(doc, source) : std::move(doc)) {
    detail::check_workspace_schema(doc_, source);
    spec_ = detail::workspace_spec_from_json(doc_, source);
    detail::check_channels(spec_.channels, source, detail::ChannelRules::Structure);
    detail::check_observations(spec_);
}

Workspace Workspace::load_file(const std::string& path) {
    if (path == "-") return load_stdin();
    return Workspace(json::parse_file(path), path);
}

Workspace Workspace::load_string(std::string_view text, const std::string& source) {
    return Workspace(json::parse(text, source), source);
}

Workspace Workspace::load_stdin() { return Workspace(json::parse_stdin("<stdin>"), "<stdin>"); }

std::vector<std::string> Workspace::channel_names() const {
    std::set<std::string> s;
    for (const auto& c : spec_.channels) s.insert(c.name);
    return {s.begin(), s.end()};
}

std::vector<std::string> Workspace::sample_names() const {
    std::set<std::string> s;
    for (const auto& c : spec_.channels)
        for (const auto& x : c.samples) s.insert(x.name);
    return {s.begin(), s.end()};
}

std::vector<std::pair<std::string, std::string>> Workspace::modifiers() const {
    std::set<std::pair<std::string, std::string>> s;
    for (const auto& c : spec_.channels)
        for (const auto& x : c.samples)
            for (const auto& m : x.modifiers) s.emplace(m.name, modifier_type_name(m.type));
    return {s.begin(), s.end()};
}

std::vector<std::string> Workspace::measurement_names() const {
    std::vector<std::string> out;
    for (const auto& m : spec_.measurements) out.push_back(m.name);
    return out;
}

std::size_t Workspace::channel_nbins(const std::string& channel) const {
    for (const auto& c : spec_.channels)
        if (c.name == channel) return c.samples[0].data.size();
    throw InputError(source(), "channels", "no channel named '" + channel + "'");
}

const MeasurementSpec& Workspace::measurement(const std::optional<std::string>& name,
                                              const std::optional<std::size_t>& index) const {
    const auto& ms = spec_.measurements;
    if (name) {
        for (const auto& m : ms)
            if (m.name == *name) return m;
        std::string known;
        for (const auto& m : ms) known += (known.empty() ? "" : ", ") + m.name;
        throw InputError(source(), "measurements",
                         "no measurement by name '" + *name + "' was found in the workspace (measurements: " + known + ")");
    }
    const std::size_t i = index.value_or(0);
    if (i >= ms.size())
        throw InputError(source(), "measurements",
                         "The measurement index " + std::to_string(i) + " is out of bounds as only " +
                             std::to_string(ms.size()) + " measurement(s) have been defined.");
    return ms[i];
}

ModelSpec Workspace::model_spec(const ModelRequest& request) const {
    const MeasurementSpec& m = measurement(request.measurement_name, request.measurement_index);
    ModelSpec out;
    out.settings = request.settings;
    out.measurement = m;
    if (request.patches.empty()) {
        out.channels = spec_.channels;
        out.source = source();
        detail::check_channels(out.channels, out.source, detail::ChannelRules::StructureAndParameters);
    } else {
        // pyhf applies the patches to {"channels", "parameters"}, then validates it as a model.
        std::string src = source();
        for (const auto& p : request.patches) src += " + " + p.source();
        const auto index = static_cast<std::size_t>(&m - spec_.measurements.data());
        const Value& params = doc_["measurements"][index]["config"]["parameters"];
        Value model = json::Object{{"channels", doc_["channels"]}, {"parameters", params}};
        for (const auto& p : request.patches) p.apply_in_place(model);
        detail::check_model_schema(model, src);
        out.channels = detail::channels_from_json(model["channels"], src, "channels");
        detail::check_channels(out.channels, src, detail::ChannelRules::StructureAndParameters);
        const Value* patched = model.find("parameters");
        const Value empty = json::Array{};
        if (!patched || !(*patched == params))
            out.measurement.parameters = detail::parameters_from_json(patched ? *patched : empty, src, "parameters");
        out.source = src;
    }
    if (request.poi) out.measurement.poi = *request.poi;
    detail::check_model(out);
    return out;
}

ModelSpec Workspace::model_spec(const std::string& measurement_name, const std::vector<JsonPatch>& patches,
                                const ModifierSettings& settings, const std::optional<std::string>& poi) const {
    ModelRequest r;
    r.measurement_name = measurement_name;
    r.patches = patches;
    r.settings = settings;
    r.poi = poi;
    return model_spec(r);
}

const std::vector<double>& Workspace::observations(const std::string& channel) const {
    for (const auto& o : spec_.observations)
        if (o.name == channel) return o.data;
    throw InputError(source(), "observations", "no observation for channel '" + channel + "'");
}

std::vector<double> Workspace::observed_main_data(const ModelSpec& spec) const {
    std::set<std::string> names;
    for (const auto& c : spec.channels) names.insert(c.name);
    std::vector<double> out;
    for (const auto& n : names) {
        const auto& d = observations(n);
        for (const auto& o : spec_.observations)
            if (o.name == n) detail::check_observed_counts(o, source());
        out.insert(out.end(), d.begin(), d.end());
    }
    return out;
}

std::string Workspace::digest(const std::string& algorithm) const { return hf::digest(doc_, algorithm); }

Workspace Workspace::patched(const JsonPatch& patch) const {
    return Workspace(patch.apply(doc_), source() + " + " + patch.source());
}

ModelSpec model_spec_from_json(const json::Value& model, const std::string& source, const std::string& poi,
                               const ModifierSettings& settings) {
    detail::check_model_schema(model, source);
    ModelSpec out;
    out.source = source;
    out.settings = settings;
    out.channels = detail::channels_from_json(model["channels"], source, "channels");
    detail::check_channels(out.channels, source, detail::ChannelRules::StructureAndParameters);
    if (const Value* p = model.find("parameters"))
        out.measurement.parameters = detail::parameters_from_json(*p, source, "parameters");
    out.measurement.poi = poi;
    detail::check_model(out);
    return out;
}

}  // namespace hf
