// Parameter sets in pyhf's order with pyhf's defaults, merged with the measurement configuration.
//
// Order (pyhf's _nominal_and_modifiers_from_spec): modifier types in the order histosys, lumi, normfactor,
// normsys, shapefactor, shapesys, staterror; within a type, first use while walking sorted channels, sorted
// samples and each sample's modifiers sorted by (name, type) - except staterror, whose sets are created when
// its builder finalises, in sorted name order. A name used by several types (a normsys and a histosys sharing
// one nuisance parameter) is one set, placed by its first type; its requirements must agree.
#include "param_sets.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

namespace hf::detail {

namespace {

const std::vector<std::string> kTypeOrder = {"histosys",    "lumi",     "normfactor", "normsys",
                                             "shapefactor", "shapesys", "staterror"};

// One modifier's requirement for its parameter set (pyhf's required_parset). Absent optionals are
// "undefined" in pyhf's sense: the type does not support configuring that property.
struct Requirement {
    std::string type;        // modifier type that asked
    std::string paramset_type;  // constrained_by_normal, constrained_by_poisson, unconstrained
    std::int64_t n = 1;
    bool is_scalar = true;
    std::optional<std::vector<double>> inits;
    std::optional<std::vector<std::pair<double, double>>> bounds;
    std::vector<bool> fixed;
    bool defines_auxdata = false, defines_sigmas = false, defines_factors = false;
    std::optional<std::vector<double>> auxdata, sigmas, factors;
    std::string json_path;
};

std::string fmt(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

Requirement requirement_for(const ModifierSpec& m, const SampleSpec& s) {
    Requirement r;
    r.type = m.type;
    r.json_path = m.json_path;
    const auto nb = static_cast<std::int64_t>(s.data.size());
    if (m.type == "normsys" || m.type == "histosys") {
        r.paramset_type = "constrained_by_normal";
        r.inits = std::vector<double>{0.0};
        r.bounds = std::vector<std::pair<double, double>>{{-5.0, 5.0}};
        r.fixed = {false};
        r.defines_auxdata = true;
        r.auxdata = std::vector<double>{0.0};
    } else if (m.type == "lumi") {
        r.paramset_type = "constrained_by_normal";
        r.fixed = {false};
        r.defines_auxdata = r.defines_sigmas = true;  // no defaults: the measurement must give them
    } else if (m.type == "normfactor") {
        r.paramset_type = "unconstrained";
        r.inits = std::vector<double>{1.0};
        r.bounds = std::vector<std::pair<double, double>>{{0.0, 10.0}};
        r.fixed = {false};
    } else if (m.type == "shapefactor") {
        r.paramset_type = "unconstrained";
        r.n = nb;
        r.is_scalar = false;
        r.inits = std::vector<double>(nb, 1.0);
        r.bounds = std::vector<std::pair<double, double>>(nb, {0.0, 10.0});
        r.fixed = std::vector<bool>(nb, false);
    } else if (m.type == "shapesys") {
        r.paramset_type = "constrained_by_poisson";
        r.n = nb;
        r.is_scalar = false;
        r.inits = std::vector<double>(nb, 1.0);
        r.bounds = std::vector<std::pair<double, double>>(nb, {1e-10, 10.0});
        std::vector<double> factors(nb);
        r.fixed.resize(nb);
        for (std::int64_t b = 0; b < nb; ++b) {
            double nom = s.data[b], unc = m.vals[b];
            bool valid = nom > 0 && unc > 0;
            factors[b] = valid ? nom * nom / (unc * unc) : 1.0;
            r.fixed[b] = !valid;
        }
        r.defines_auxdata = r.defines_factors = true;
        r.auxdata = factors;
        r.factors = factors;
    }
    return r;
}

bool same(const Requirement& a, const Requirement& b) {
    return a.paramset_type == b.paramset_type && a.n == b.n && a.is_scalar == b.is_scalar && a.inits == b.inits &&
           a.bounds == b.bounds && a.fixed == b.fixed && a.auxdata == b.auxdata && a.sigmas == b.sigmas &&
           a.factors == b.factors && a.defines_auxdata == b.defines_auxdata && a.defines_sigmas == b.defines_sigmas &&
           a.defines_factors == b.defines_factors;
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
    // Requirements per type, in the order pyhf's builders register them.
    std::map<std::string, std::vector<std::pair<std::string, Requirement>>> by_type;
    std::map<std::string, std::map<std::string, std::size_t>> seen;  // type -> name -> position
    std::set<std::string> staterror_names;
    ParamSetsResult out;

    for (std::size_t ci = 0; ci < L.channels.size(); ++ci) {
        for (std::size_t si = 0; si < L.samples.size(); ++si) {
            const SampleSpec* s = L.sample_in_channel[ci][si];
            if (!s) continue;
            std::vector<const ModifierSpec*> mods;
            for (const auto& m : s->modifiers) mods.push_back(&m);
            std::stable_sort(mods.begin(), mods.end(), [](auto* a, auto* b) {
                return std::tie(a->name, a->type) < std::tie(b->name, b->type);
            });
            for (const ModifierSpec* m : mods) {
                if (std::find(kTypeOrder.begin(), kTypeOrder.end(), m->type) == kTypeOrder.end())
                    throw InputError(src, m->json_path + ".type", "unknown modifier type '" + m->type + "'");
                if (m->type == "staterror") {
                    staterror_names.insert(m->name);
                    continue;
                }
                if (m->type == "lumi" && m->name != "lumi")
                    throw InputError(src, m->json_path + ".name",
                                     "a lumi modifier must be named 'lumi', not '" + m->name + "'");
                Requirement r = requirement_for(*m, *s);
                auto& list = by_type[m->type];
                auto it = seen[m->type].find(m->name);
                if (it == seen[m->type].end()) {
                    seen[m->type][m->name] = list.size();
                    list.emplace_back(m->name, r);
                } else if (m->type == "shapesys") {
                    throw InputError(src, m->json_path,
                                     "shapesys '" + m->name + "' is already used by another sample (at " +
                                         list[it->second].second.json_path + "); shapesys names cannot be shared");
                } else if (!same(list[it->second].second, r)) {
                    throw InputError(src, m->json_path,
                                     "modifier '" + m->name + "' (" + m->type + ") conflicts with its use at " +
                                         list[it->second].second.json_path + " (different number of bins)");
                }
            }
        }
    }

    // Staterror: per global bin, sigma = sqrt(sum over carrying samples of delta^2) / sum of their nominals.
    for (const auto& name : staterror_names) {
        std::vector<double> nomsum(L.n_main, 0.0), relsq(L.n_main, 0.0);
        std::vector<char> mask(L.n_main, 0);
        std::string first_path;
        std::vector<std::pair<const SampleSpec*, const ModifierSpec*>> carriers;  // per (channel, sample)
        std::vector<std::int64_t> carrier_offset;
        for (std::size_t ci = 0; ci < L.channels.size(); ++ci)
            for (std::size_t si = 0; si < L.samples.size(); ++si) {
                const SampleSpec* s = L.sample_in_channel[ci][si];
                if (!s) continue;
                for (const auto& m : s->modifiers)
                    if (m.type == "staterror" && m.name == name) {
                        carriers.emplace_back(s, &m);
                        carrier_offset.push_back(L.channel_offset[ci]);
                        if (first_path.empty()) first_path = m.json_path;
                    }
            }
        for (std::size_t k = 0; k < carriers.size(); ++k) {
            const auto* s = carriers[k].first;
            for (std::size_t b = 0; b < s->data.size(); ++b) {
                nomsum[carrier_offset[k] + b] += s->data[b];
                mask[carrier_offset[k] + b] = 1;
            }
        }
        for (std::size_t k = 0; k < carriers.size(); ++k) {
            const auto* m = carriers[k].second;
            for (std::size_t b = 0; b < m->vals.size(); ++b) {
                std::int64_t g = carrier_offset[k] + static_cast<std::int64_t>(b);
                if (nomsum[g] > 0) relsq[g] += (m->vals[b] / nomsum[g]) * (m->vals[b] / nomsum[g]);
            }
        }
        StaterrorInfo info;
        for (std::int64_t g = 0; g < L.n_main; ++g) {
            if (!mask[g]) continue;
            double sigma = std::sqrt(relsq[g]);
            bool fixed = sigma == 0.0;
            info.sigmas.push_back(fixed ? 1.0 : sigma);
            info.fixed.push_back(fixed);
            info.bins.push_back(g);
        }
        Requirement r;
        r.type = "staterror";
        r.paramset_type = "constrained_by_normal";
        r.n = static_cast<std::int64_t>(info.sigmas.size());
        r.is_scalar = false;
        r.inits = std::vector<double>(r.n, 1.0);
        r.bounds = std::vector<std::pair<double, double>>(r.n, {1e-10, 10.0});
        r.fixed = info.fixed;
        r.defines_auxdata = r.defines_sigmas = true;
        r.auxdata = std::vector<double>(r.n, 1.0);
        r.sigmas = info.sigmas;
        r.json_path = first_path;
        by_type["staterror"].emplace_back(name, r);
        out.staterror[name] = std::move(info);
    }

    // Merge across types by name, in pyhf's type order.
    std::vector<std::pair<std::string, Requirement>> merged;
    std::map<std::string, std::size_t> pos;
    for (const auto& type : kTypeOrder) {
        for (auto& [name, r] : by_type[type]) {
            auto it = pos.find(name);
            if (it == pos.end()) {
                pos[name] = merged.size();
                merged.emplace_back(name, r);
            } else if (!same(merged[it->second].second, r)) {
                throw InputError(src, r.json_path,
                                 "parameter '" + name + "' is used by a " + merged[it->second].second.type +
                                     " modifier (at " + merged[it->second].second.json_path + ") and a " + r.type +
                                     " modifier with different settings; use distinct modifier names");
            }
        }
    }

    // Measurement configuration overrides.
    std::map<std::string, const ParameterConfig*> user;
    for (const auto& pc : spec.measurement.parameters) {
        if (user.count(pc.name))
            throw InputError(src, pc.json_path, "multiple parameter configurations for '" + pc.name + "'");
        user[pc.name] = &pc;
    }

    std::int64_t offset = 0;
    for (auto& [name, r] : merged) {
        ParameterSet ps;
        ps.name = name;
        ps.modifier_type = r.type;
        ps.offset = offset;
        ps.n = r.n;
        ps.constrained = r.paramset_type != "unconstrained";
        ps.constraint = r.paramset_type == "constrained_by_normal"    ? "normal"
                        : r.paramset_type == "constrained_by_poisson" ? "poisson"
                                                                      : "";
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
                             "parameter '" + name + "' (" + r.type + ") does not use the '" + key + "' attribute");
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
            if (!r.defines_auxdata) unused("auxdata");
            check_len(pc->auxdata->size(), "auxdata");
            ps.auxdata = *pc->auxdata;
        } else if (r.auxdata) {
            ps.auxdata = *r.auxdata;
        }
        if (pc && pc->sigmas) {
            if (!r.defines_sigmas) unused("sigmas");
            check_len(pc->sigmas->size(), "sigmas");
            ps.sigmas = *pc->sigmas;
        } else if (r.sigmas) {
            ps.sigmas = *r.sigmas;
        }
        if (pc && pc->factors) {
            if (!r.defines_factors) unused("factors");
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
                             "parameter '" + name + "' (" + r.type +
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
