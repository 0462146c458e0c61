// Parameter sets in pyhf's order with pyhf's defaults, merged with the measurement configuration.
//
// Order (pyhf's _nominal_and_modifiers_from_spec): modifier types in the registry's order (core/modifiers/);
// within a type, first use while walking sorted channels, sorted samples and each sample's modifiers sorted by
// (name, type) - except types that defer their sets to the end of the walk (staterror, in sorted name order).
// A name used by several types (a normsys and a histosys sharing one nuisance parameter) is one set, placed by
// its first type; its requirements must agree. What each type asks for is in its own file in core/modifiers/.
#include "param_sets.hpp"

#include "modifiers/registry.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

namespace hf::detail {

namespace {

std::string fmt(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

}  // namespace

Layout make_layout(const ModelSpec& spec) {
    Layout L;
    std::map<std::string, std::int64_t> nbins;
    std::map<std::string, std::string> paths;
    std::set<std::string> samples;
    for (const auto& c : spec.channels) {
        nbins[c.name] = c.samples.empty() ? 0 : static_cast<std::int64_t>(c.samples.front().data.size());
        paths[c.name] = c.json_path;
        for (const auto& s : c.samples) samples.insert(s.name);
    }
    for (auto& [name, n] : nbins) {
        L.channels.push_back(name);
        L.channel_nbins.push_back(n);
        L.channel_offset.push_back(L.n_main);
        L.channel_paths.push_back(paths[name]);
        L.n_main += n;
    }
    L.samples.assign(samples.begin(), samples.end());
    L.sample_in_channel.assign(L.channels.size(), std::vector<const SampleSpec*>(L.samples.size(), nullptr));
    for (const auto& c : spec.channels) {
        auto ci = std::lower_bound(L.channels.begin(), L.channels.end(), c.name) - L.channels.begin();
        for (const auto& s : c.samples) {
            auto si = std::lower_bound(L.samples.begin(), L.samples.end(), s.name) - L.samples.begin();
            L.sample_in_channel[ci][si] = &s;
        }
    }
    return L;
}

ParamSetsResult build_parameter_sets(const ModelSpec& spec, const Layout& L) {
    const std::string& src = spec.source;
    ParamCollector collector(src);
    for (std::size_t ci = 0; ci < L.channels.size(); ++ci) {
        for (std::size_t si = 0; si < L.samples.size(); ++si) {
            const SampleSpec* s = L.sample_in_channel[ci][si];
            if (!s) continue;
            std::vector<const ModifierSpec*> mods;
            for (const auto& m : s->modifiers) mods.push_back(&m);
            std::stable_sort(mods.begin(), mods.end(), [](auto* a, auto* b) {
                return std::tie(a->name, a->type) < std::tie(b->name, b->type);
            });
            for (const ModifierSpec* m : mods) modifier_kind(m->type).collect(*m, *s, L.channel_offset[ci], collector);
        }
    }
    for (const auto* kind : modifier_kinds()) kind->finish(collector, L.n_main);
    std::vector<std::pair<std::string, Requirement>> merged = collector.merged();
    ParamSetsResult out;
    out.component_bins = std::move(collector.component_bins);

    // Measurement configuration overrides.
    std::map<std::string, const ParameterConfig*> user;
    for (const auto& pc : spec.measurement.parameters) {
        if (user.count(pc.name))
            throw InputError(src, pc.json_path, "multiple parameter configurations for '" + pc.name + "'");
        user[pc.name] = &pc;
    }

    std::int64_t offset = 0;
    for (auto& entry : merged) {
        // Named references, not a structured binding: the lambdas below capture them (clang before 16 cannot
        // capture a binding, and the fuzz targets build with clang).
        const auto& name = entry.first;
        auto& r = entry.second;
        ParameterSet ps;
        ps.name = name;
        ps.modifier_type = r.type;
        ps.offset = offset;
        ps.n = r.n;
        ps.constrained = r.constraint != Constraint::none;
        ps.constraint = constraint_name(r.constraint);
        const ParameterConfig* pc = user.count(name) ? user[name] : nullptr;
        const std::string cfg_path = pc ? pc->json_path : std::string();
        auto check_len = [&](std::size_t got, const char* key) {
            if (static_cast<std::int64_t>(got) != r.n)
                throw InputError(src, cfg_path + "." + key,
                                 std::to_string(got) + " values for '" + name + "', which has " +
                                     std::to_string(r.n) + " component(s)");
        };
        auto unused = [&](const char* key) {
            throw InputError(src, cfg_path + "." + key,
                             "parameter '" + name + "' (" + modifier_type_name(r.type) + ") does not use the '" + key +
                                 "' attribute");
        };
        // inits / bounds
        if (pc && pc->inits) {
            check_len(pc->inits->size(), "inits");
            ps.inits = *pc->inits;
        } else if (r.inits) {
            ps.inits = *r.inits;
        }
        if (pc && pc->bounds) {
            check_len(pc->bounds->size(), "bounds");
            ps.bounds = *pc->bounds;
        } else if (r.bounds) {
            ps.bounds = *r.bounds;
        }
        ps.fixed = r.fixed.size() == static_cast<std::size_t>(r.n) ? r.fixed : std::vector<bool>(r.n, false);
        if (pc && pc->fixed) ps.fixed.assign(r.n, *pc->fixed);
        // constraint data
        if (pc && pc->auxdata) {
            if (!r.defines.auxdata) unused("auxdata");
            check_len(pc->auxdata->size(), "auxdata");
            ps.auxdata = *pc->auxdata;
        } else if (r.auxdata) {
            ps.auxdata = *r.auxdata;
        }
        if (pc && pc->sigmas) {
            if (!r.defines.sigmas) unused("sigmas");
            check_len(pc->sigmas->size(), "sigmas");
            ps.sigmas = *pc->sigmas;
        } else if (r.sigmas) {
            ps.sigmas = *r.sigmas;
        }
        if (pc && pc->factors) {
            if (!r.defines.factors) unused("factors");
            check_len(pc->factors->size(), "factors");
            ps.factors = *pc->factors;
        } else if (r.factors) {
            ps.factors = *r.factors;
        }
        if (ps.constraint == "normal" && ps.sigmas.empty()) ps.sigmas.assign(r.n, 1.0);
        const std::string where = pc ? cfg_path : r.json_path;
        if (ps.inits.size() != static_cast<std::size_t>(r.n) || ps.bounds.size() != static_cast<std::size_t>(r.n) ||
            (ps.constrained && ps.auxdata.size() != static_cast<std::size_t>(r.n)))
            throw InputError(src, where,
                             "parameter '" + name + "' (" + modifier_type_name(r.type) +
                                 ") needs inits, bounds" + (ps.constrained ? ", auxdata" : "") +
                                 (ps.constraint == "normal" ? " and sigmas" : "") +
                                 " in the measurement's parameter configuration");
        for (std::int64_t i = 0; i < r.n; ++i) {
            auto [lo, hi] = ps.bounds[i];
            if (!(lo <= hi))
                throw InputError(src, where, "parameter '" + name + "': lower bound " + fmt(lo) +
                                                 " above upper bound " + fmt(hi));
            if (ps.constraint == "normal" && !(ps.sigmas[i] > 0))
                throw InputError(src, where, "parameter '" + name + "': sigma must be positive, got " +
                                                 fmt(ps.sigmas[i]));
        }
        offset += r.n;
        out.index[name] = out.sets.size();
        out.sets.push_back(std::move(ps));
    }
    return out;
}

}  // namespace hf::detail
