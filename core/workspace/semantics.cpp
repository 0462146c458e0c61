// pyhf's semantic rules (the ones pyhf.Model enforces while it builds a model), checked up front so that
// every problem is reported with the file and JSON path of the offending element.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "checks.hpp"
#include "hfcore/errors.hpp"

namespace hf::detail {

namespace {

std::string n_items(std::size_t n, const char* what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

bool may_share(const std::string& a, const std::string& b) {
    // pyhf reduces the requirements of every modifier of a parameter; they agree only for the same type,
    // or for histosys and normsys (both one Gaussian-constrained scalar, init 0, bounds [-5, 5]).
    if (a == b) return true;
    auto hn = [](const std::string& t) { return t == "histosys" || t == "normsys"; };
    return hn(a) && hn(b);
}

struct ParamInfo {
    std::string type;
    std::size_t n = 1;
    const ModifierSpec* first = nullptr;
};

// Channels where each staterror appears, and its size (sum of those channels' bins).
std::map<std::string, std::pair<std::set<std::string>, std::size_t>> staterror_channels(
    const std::vector<ChannelSpec>& channels) {
    std::map<std::string, std::pair<std::set<std::string>, std::size_t>> out;
    for (const auto& c : channels)
        for (const auto& s : c.samples)
            for (const auto& m : s.modifiers)
                if (m.type == "staterror") {
                    auto& entry = out[m.name];
                    if (entry.first.insert(c.name).second) entry.second += c.samples[0].data.size();
                }
    return out;
}

std::map<std::string, ParamInfo> parameters_of(const std::vector<ChannelSpec>& channels) {
    std::map<std::string, ParamInfo> out;
    const auto stat = staterror_channels(channels);
    for (const auto& c : channels)
        for (const auto& s : c.samples)
            for (const auto& m : s.modifiers) {
                auto [it, inserted] = out.try_emplace(m.name);
                if (!inserted) continue;
                it->second.type = m.type;
                it->second.first = &m;
                if (m.type == "shapefactor" || m.type == "shapesys") it->second.n = s.data.size();
                else if (m.type == "staterror") it->second.n = stat.at(m.name).second;
            }
    return out;
}

}  // namespace

void check_channels(const std::vector<ChannelSpec>& channels, const std::string& source, ChannelRules rules) {
    const bool parameters = rules == ChannelRules::StructureAndParameters;
    auto fail = [&](const std::string& path, const std::string& what) { throw InputError(source, path, what); };
    std::map<std::string, const ChannelSpec*> channel_seen;
    std::map<std::string, ParamInfo> params;
    std::map<std::string, std::pair<const ChannelSpec*, const SampleSpec*>> shapesys_seen;
    // staterror name -> sample name -> channels carrying it (with the first modifier for messages)
    std::map<std::string, std::map<std::string, std::set<std::string>>> staterror_cover;
    std::map<std::string, const ModifierSpec*> staterror_first;

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
            std::map<std::pair<std::string, std::string>, const ModifierSpec*> mod_seen;
            for (const auto& m : s.modifiers) {
                if (auto [it, ok] = mod_seen.emplace(std::make_pair(m.name, m.type), &m); !ok)
                    fail(m.json_path, "Duplicate modifiers '" + m.name + "' of the same type (" + m.type +
                                          ") found in channel '" + c.name + "' and sample '" + s.name + "' (also at " +
                                          it->second->json_path + "). Rename one of them.");
                const std::string dp = json::path_key(m.json_path, "data");
                auto check_len = [&](const std::vector<double>& v, const std::string& path) {
                    if (v.size() != s.data.size())
                        fail(path, n_items(v.size(), "number") + ", but sample '" + s.name + "' has " +
                                       n_items(s.data.size(), "bin"));
                };
                if (m.type == "histosys") {
                    check_len(m.hi_data, json::path_key(dp, "hi_data"));
                    check_len(m.lo_data, json::path_key(dp, "lo_data"));
                } else if (m.type == "shapesys" || m.type == "staterror") {
                    check_len(m.vals, dp);
                }
                if (!parameters) continue;
                // normsys factors are powers (code1) or exponentials (code4) of hi and lo: a factor <= 0 makes the
                // likelihood NaN (pyhf: NaN, then a failed fit). Checked for a model only, so that pyhf's workspace
                // operations still accept such a file.
                if (m.type == "normsys")
                    for (const auto& [key, v] : {std::pair<const char*, double>{"hi", m.hi}, {"lo", m.lo}})
                        if (!(v > 0))
                            fail(json::path_key(dp, key), std::string("normsys factor ") + key + " = " + json::format_double(v) +
                                                              " of sample '" + s.name + "' in channel '" + c.name +
                                                              "' must be > 0 (the factor is " + key +
                                                              "^alpha; pyhf's likelihood is NaN here)");
                // One parameter name, several modifiers: only compatible requirements may meet.
                auto [pit, fresh] = params.try_emplace(m.name, ParamInfo{m.type, s.data.size(), &m});
                if (!fresh) {
                    const ParamInfo& prev = pit->second;
                    if (!may_share(prev.type, m.type))
                        fail(m.json_path, "parameter '" + m.name + "' is used by a " + m.type + " modifier here and by a " +
                                              prev.type + " modifier at " + prev.first->json_path +
                                              "; only histosys and normsys modifiers can share a parameter "
                                              "(pyhf: InvalidNameReuse). Use unique modifier names.");
                    if (m.type == "shapefactor" && prev.n != s.data.size())
                        fail(m.json_path, "shapefactor '" + m.name + "' covers " + n_items(s.data.size(), "bin") +
                                              " here but " + n_items(prev.n, "bin") + " at " + prev.first->json_path +
                                              " (pyhf: InvalidNameReuse)");
                }
                if (m.type == "shapesys") {
                    if (auto [it, ok] = shapesys_seen.emplace(m.name, std::make_pair(&c, &s)); !ok)
                        fail(m.json_path, "shapesys '" + m.name + "' is already used by sample '" + it->second.second->name +
                                              "' in channel '" + it->second.first->name + "' (" +
                                              it->second.second->json_path +
                                              "); a shapesys parameter cannot be shared between samples");
                }
                if (m.type == "staterror") {
                    staterror_cover[m.name][s.name].insert(c.name);
                    staterror_first.try_emplace(m.name, &m);
                }
            }
        }
    }
    // pyhf derives one staterror mask per parameter from the samples carrying it; they must agree.
    for (const auto& [name, per_sample] : staterror_cover) {
        const auto& [first_sample, first_channels] = *per_sample.begin();
        for (const auto& [sample, chans] : per_sample)
            if (chans != first_channels) {
                auto list = [](const std::set<std::string>& s) {
                    std::string out;
                    for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
                    return "{" + out + "}";
                };
                fail(staterror_first.at(name)->json_path,
                     "staterror '" + name + "' is carried by sample '" + first_sample + "' in channels " +
                         list(first_channels) + " but by sample '" + sample + "' in channels " + list(chans) +
                         "; every sample with this staterror must carry it in the same channels");
            }
    }
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
    for (std::size_t i = 0; i < o.data.size(); ++i)
        if (!(o.data[i] >= 0) || !std::isfinite(o.data[i]))
            throw InputError(source, json::path_index(json::path_key(o.json_path, "data"), i),
                             "observed count " + json::format_double(o.data[i]) + " of channel '" + o.name +
                                 "' is not a Poisson count (must be finite and >= 0; pyhf's likelihood is -inf or "
                                 "NaN for a negative integer and silently defined for a negative fraction)");
}

void check_model(const ModelSpec& spec) {
    auto fail = [&](const std::string& path, const std::string& what) { throw InputError(spec.source, path, what); };
    const auto params = parameters_of(spec.channels);
    if (params.empty()) fail("channels", "No parameters specified for the Model: no sample has a modifier.");

    std::map<std::string, const ParameterConfig*> configs;
    for (const auto& p : spec.measurement.parameters) {
        if (auto [it, ok] = configs.emplace(p.name, &p); !ok)
            fail(json::path_key(p.json_path, "name"), "Multiple parameter configurations for '" + p.name +
                                                          "' were found (also at " + it->second->json_path + ").");
        auto info = params.find(p.name);
        if (info == params.end()) continue;  // pyhf ignores configs of parameters no modifier uses
        const std::string& type = info->second.type;
        const std::size_t n = info->second.n;
        auto allowed = [&](const std::string& attr) {
            if (attr == "inits" || attr == "bounds" || attr == "fixed") return true;
            if (attr == "auxdata") return type != "normfactor" && type != "shapefactor";
            if (attr == "sigmas") return type == "lumi" || type == "staterror";
            if (attr == "factors") return type == "shapesys";
            return false;
        };
        auto check = [&](const char* attr, std::size_t size) {
            const std::string path = json::path_key(p.json_path, attr);
            if (!allowed(attr))
                fail(path, "'" + p.name + "' is a " + type + " parameter, which does not use " + attr);
            if (size != n)
                fail(path, n_items(size, "value") + ", but parameter '" + p.name + "' (" + type + ") has " +
                               n_items(n, "component"));
        };
        if (p.inits) check("inits", p.inits->size());
        if (p.bounds) check("bounds", p.bounds->size());
        if (p.auxdata) check("auxdata", p.auxdata->size());
        if (p.sigmas) check("sigmas", p.sigmas->size());
        if (p.factors) check("factors", p.factors->size());
    }
    // pyhf's lumi modifier takes its constraint entirely from the measurement (it fails without it).
    if (auto lumi = params.find("lumi"); lumi != params.end() && lumi->second.type == "lumi") {
        auto cfg = configs.find("lumi");
        std::string missing;
        for (const char* attr : {"inits", "bounds", "auxdata", "sigmas"}) {
            const ParameterConfig* c = cfg == configs.end() ? nullptr : cfg->second;
            const bool has = c && ((std::string(attr) == "inits" && c->inits) ||
                                   (std::string(attr) == "bounds" && c->bounds) ||
                                   (std::string(attr) == "auxdata" && c->auxdata) ||
                                   (std::string(attr) == "sigmas" && c->sigmas));
            if (!has) missing += (missing.empty() ? "" : ", ") + std::string(attr);
        }
        if (!missing.empty()) {
            const std::string where =
                cfg != configs.end()            ? cfg->second->json_path
                : spec.measurement.json_path.empty() ? std::string("parameters")
                                                     : json::path_key(json::path_key(spec.measurement.json_path, "config"),
                                                                      "parameters");
            fail(where, "the lumi parameter (used at " + lumi->second.first->json_path +
                            ") needs a parameter config with inits, bounds, auxdata and sigmas; missing: " + missing);
        }
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
            fail(path, "The parameter '" + poi + "' contains multiple components (" + it->second.type + ", " +
                           n_items(it->second.n, "bin") +
                           ") and is not currently supported as parameter of interest.");
    }
}

}  // namespace hf::detail
