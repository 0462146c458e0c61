// pyhf's semantic rules (the ones pyhf.Model enforces while it builds a model), checked up front so that
// every problem is reported with the file and JSON path of the offending element.
#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "checks.hpp"
#include "common/names.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/observed_data.hpp"
#include "modifiers/registry.hpp"

namespace hf::detail {

namespace {

// The types that may share a parameter with a type other than their own, for messages ("histosys and normsys").
std::string sharing_types() {
    std::vector<std::string> names;
    for (const auto* k : modifier_kinds())
        for (const auto* other : modifier_kinds())
            if (other != k && k->shares_parameter_with(other->type())) {
                names.emplace_back(k->name());
                break;
            }
    return join_and(names);
}

struct ParamInfo {
    ModifierType type{};
    std::size_t n = 1;
    const ModifierSpec* first = nullptr;
};

// Every parameter name with the type and size of its first use.
std::map<std::string, ParamInfo> parameters_of(const std::vector<ChannelSpec>& channels) {
    std::map<std::string, ParamInfo> out;
    for (const auto& c : channels)
        for (const auto& s : c.samples)
            for (const auto& m : s.modifiers)
                if (auto [it, fresh] = out.try_emplace(m.name); fresh)
                    it->second = ParamInfo{m.type, modifier_kind(m.type).components(m, s, channels), &m};
    return out;
}

}  // namespace

void check_channels(const std::vector<ChannelSpec>& channels, const std::string& source, ChannelRules rules) {
    const bool parameters = rules == ChannelRules::StructureAndParameters;
    const Fail fail{source};
    std::map<std::string, const ChannelSpec*> channel_seen;
    std::map<std::string, ParamInfo> params;
    std::map<ModifierType, std::unique_ptr<UseCheck>> use_checks;
    if (parameters)
        for (const auto* k : modifier_kinds())
            if (auto check = k->use_check(fail)) use_checks[k->type()] = std::move(check);

    for (const auto& c : channels) {
        if (auto [it, ok] = channel_seen.emplace(c.name, &c); !ok)
            fail(json::path_key(c.json_path, "name"), "Duplicate channels '" + c.name + "' found in the model (also at " +
                                                          it->second->json_path + "). Rename one of them.");
        const std::size_t nbins = c.samples[0].data.size();
        std::map<std::string, const SampleSpec*> sample_seen;
        for (const auto& s : c.samples) {
            if (auto [it, ok] = sample_seen.emplace(s.name, &s); !ok)
                fail(json::path_key(s.json_path, "name"), "Duplicate samples '" + s.name + "' found in the channel '" +
                                                              c.name + "' (also at " + it->second->json_path +
                                                              "). Rename one of them.");
            if (s.data.size() != nbins)
                fail(json::path_key(s.json_path, "data"),
                     n_items(s.data.size(), "number") + ", but channel '" + c.name + "' has " + n_items(nbins, "bin") +
                         " (the length of samples[0].data)");
            std::map<std::pair<std::string, ModifierType>, const ModifierSpec*> mod_seen;
            for (const auto& m : s.modifiers) {
                const ModifierKind& kind = modifier_kind(m.type);
                if (auto [it, ok] = mod_seen.emplace(std::make_pair(m.name, m.type), &m); !ok)
                    fail(m.json_path, "Duplicate modifiers '" + m.name + "' of the same type (" + kind.name() +
                                          ") found in channel '" + c.name + "' and sample '" + s.name + "' (also at " +
                                          it->second->json_path + "). Rename one of them.");
                kind.check_data(m, s, fail);
                if (!parameters) continue;
                // normsys factors are powers (code1) or exponentials (code4) of hi and lo: a factor <= 0 makes the
                // likelihood NaN (pyhf: NaN, then a failed fit). Checked for a model only, so that pyhf's workspace
                // operations still accept such a file.
                if (const std::string dp = json::path_key(m.json_path, "data"); m.type == ModifierType::normsys)
                    for (const auto& [key, v] : {std::pair<const char*, double>{"hi", m.hi}, {"lo", m.lo}})
                        if (!(v > 0))
                            fail(json::path_key(dp, key), std::string("normsys factor ") + key + " = " + json::format_double(v) +
                                                              " of sample '" + s.name + "' in channel '" + c.name +
                                                              "' must be > 0 (the factor is " + key +
                                                              "^alpha; pyhf's likelihood is NaN here)");
                // One parameter name, several modifiers: only compatible requirements may meet.
                auto [pit, fresh] = params.try_emplace(m.name, ParamInfo{m.type, s.data.size(), &m});
                if (!fresh && !kind.shares_parameter_with(pit->second.type))
                    fail(m.json_path, "parameter '" + m.name + "' is used by a " + kind.name() + " modifier here and by a " +
                                          modifier_type_name(pit->second.type) + " modifier at " +
                                          pit->second.first->json_path + "; only " + sharing_types() +
                                          " modifiers can share a parameter (pyhf: InvalidNameReuse). Use unique "
                                          "modifier names.");
                if (auto check = use_checks.find(m.type); check != use_checks.end()) check->second->use(m, s, c);
            }
        }
    }
    for (auto& [type, check] : use_checks) check->finish();
}

void check_observations(const WorkspaceSpec& ws) {
    auto fail = [&](const std::string& path, const std::string& what) { throw InputError(ws.source, path, what); };
    std::map<std::string, const ObservationSpec*> obs;
    for (const auto& o : ws.observations)
        if (auto [it, ok] = obs.emplace(o.name, &o); !ok)
            fail(json::path_key(o.json_path, "name"),
                 "duplicate observation '" + o.name + "' (also at " + it->second->json_path + ")");
    for (const auto& c : ws.channels) {
        auto it = obs.find(c.name);
        if (it == obs.end()) fail("observations", "no observation for channel '" + c.name + "' (" + c.json_path + ")");
        const std::size_t nbins = c.samples[0].data.size();
        if (it->second->data.size() != nbins)
            fail(json::path_key(it->second->json_path, "data"),
                 n_items(it->second->data.size(), "number") + ", but channel '" + c.name + "' has " +
                     n_items(nbins, "bin"));
    }
}

void check_observed_counts(const ObservationSpec& o, const std::string& source) {
    check_channel_counts(o.data, o.name, source, json::path_key(o.json_path, "data"));
}

void check_model(const ModelSpec& spec) {
    auto fail = [&](const std::string& path, const std::string& what) { throw InputError(spec.source, path, what); };
    const auto params = parameters_of(spec.channels);
    if (params.empty()) fail("channels", "No parameters specified for the Model: no sample has a modifier.");

    auto given = [](const ParameterConfig& c, const std::string& attr) {
        return (attr == "inits" && c.inits) || (attr == "bounds" && c.bounds) || (attr == "auxdata" && c.auxdata) ||
               (attr == "sigmas" && c.sigmas) || (attr == "factors" && c.factors) || (attr == "fixed" && c.fixed);
    };
    std::map<std::string, const ParameterConfig*> configs;
    for (const auto& p : spec.measurement.parameters) {
        if (auto [it, ok] = configs.emplace(p.name, &p); !ok)
            fail(json::path_key(p.json_path, "name"), "Multiple parameter configurations for '" + p.name +
                                                          "' were found (also at " + it->second->json_path + ").");
        auto info = params.find(p.name);
        if (info == params.end()) continue;  // pyhf ignores configs of parameters no modifier uses
        const ModifierKind& kind = modifier_kind(info->second.type);
        const ConfigAttrs takes = kind.configurable();
        const std::size_t n = info->second.n;
        auto allowed = [&](const std::string& attr) {
            if (attr == "inits" || attr == "bounds" || attr == "fixed") return true;
            return (attr == "auxdata" && takes.auxdata) || (attr == "sigmas" && takes.sigmas) ||
                   (attr == "factors" && takes.factors);
        };
        auto check = [&](const char* attr, std::size_t size) {
            const std::string path = json::path_key(p.json_path, attr);
            if (!allowed(attr))
                fail(path, "'" + p.name + "' is a " + kind.name() + " parameter, which does not use " + attr);
            if (size != n)
                fail(path, n_items(size, "value") + ", but parameter '" + p.name + "' (" + kind.name() + ") has " +
                               n_items(n, "component"));
        };
        if (p.inits) check("inits", p.inits->size());
        if (p.bounds) check("bounds", p.bounds->size());
        if (p.auxdata) check("auxdata", p.auxdata->size());
        if (p.sigmas) check("sigmas", p.sigmas->size());
        if (p.factors) check("factors", p.factors->size());
    }
    // Types that take their constraint entirely from the measurement (pyhf's lumi fails without it).
    for (const auto& [name, info] : params) {
        const ModifierKind& kind = modifier_kind(info.type);
        const auto required = kind.required_config();
        if (required.empty()) continue;
        auto cfg = configs.find(name);
        std::string missing;
        for (const auto& attr : required)
            if (cfg == configs.end() || !given(*cfg->second, attr)) missing += (missing.empty() ? "" : ", ") + attr;
        if (missing.empty()) continue;
        const std::string where =
            cfg != configs.end()                 ? cfg->second->json_path
            : spec.measurement.json_path.empty() ? std::string("parameters")
                                                 : json::path_key(json::path_key(spec.measurement.json_path, "config"),
                                                                  "parameters");
        fail(where, std::string("the ") + kind.name() + " parameter (used at " + info.first->json_path +
                        ") needs a parameter config with " + join_and(required) + "; missing: " + missing);
    }
    const std::string& poi = spec.measurement.poi;
    if (!poi.empty()) {
        const std::string path = spec.measurement.json_path.empty()
                                     ? std::string()
                                     : json::path_key(json::path_key(spec.measurement.json_path, "config"), "poi");
        auto it = params.find(poi);
        if (it == params.end())
            fail(path, "The parameter of interest '" + poi +
                           "' cannot be fit as it is not declared in the model specification.");
        if (it->second.n > 1)
            // pyhf's sentence first (callers match it), then which modifier and how many bins.
            fail(path, "The parameter '" + poi +
                           "' contains multiple components and is not currently supported as parameter of "
                           "interest (" + modifier_type_name(it->second.type) + ", " + n_items(it->second.n, "bin") +
                           ").");
    }
}

}  // namespace hf::detail
