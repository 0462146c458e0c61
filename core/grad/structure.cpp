// The flat input layout of a ModelSpec and the model's structure traced back to it (structure.hpp).
#include "grad/structure.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <type_traits>

#include "hfcore/errors.hpp"

namespace hf::grad {

namespace {

// Calls block(json_path, field, values) for every input block in the layout's order.
template <class Spec, class Fn>
void walk_inputs(Spec& spec, Fn&& block) {
    for (auto& c : spec.channels)
        for (auto& s : c.samples) {
            block(s.json_path, "data", s.data);
            for (auto& m : s.modifiers) switch (m.type) {
                    case ModifierType::histosys:
                        block(m.json_path, "hi_data", m.hi_data);
                        block(m.json_path, "lo_data", m.lo_data);
                        break;
                    case ModifierType::normsys:
                        block(m.json_path, "hi", m.hi);
                        block(m.json_path, "lo", m.lo);
                        break;
                    case ModifierType::shapesys:
                    case ModifierType::staterror: block(m.json_path, "vals", m.vals); break;
                    default: break;
                }
        }
}

std::int64_t size_of(const std::vector<double>& v) { return static_cast<std::int64_t>(v.size()); }
std::int64_t size_of(double) { return 1; }

}  // namespace

std::vector<InputBlock> input_layout(const ModelSpec& spec) {
    std::vector<InputBlock> out;
    std::int64_t offset = 0;
    walk_inputs(spec, [&](const std::string& path, const char* field, const auto& values) {
        out.push_back({path, field, offset, size_of(values)});
        offset += size_of(values);
    });
    return out;
}

std::vector<double> flatten_inputs(const ModelSpec& spec) {
    std::vector<double> out;
    auto add = [&](const std::string&, const char*, const auto& values) {
        if constexpr (std::is_same_v<std::decay_t<decltype(values)>, double>) out.push_back(values);
        else out.insert(out.end(), values.begin(), values.end());
    };
    walk_inputs(spec, add);
    return out;
}

ModelSpec with_inputs(const ModelSpec& spec, const std::vector<double>& inputs) {
    ModelSpec out = spec;
    std::int64_t n = 0;
    walk_inputs(spec, [&](const std::string&, const char*, const auto& v) { n += size_of(v); });
    if (n != static_cast<std::int64_t>(inputs.size()))
        throw InputError(spec.source, "inputs",
                         "the model has " + std::to_string(n) + " inputs, " + std::to_string(inputs.size()) + " given");
    std::size_t i = 0;
    walk_inputs(out, [&](const std::string&, const char*, auto& values) {
        if constexpr (std::is_same_v<std::decay_t<decltype(values)>, double>) values = inputs[i++];
        else
            for (double& x : values) x = inputs[i++];
    });
    return out;
}

}  // namespace hf::grad

namespace hf::grad_detail {

namespace {

const ParameterConfig* config_of(const ModelSpec& spec, const std::string& name) {
    for (const auto& p : spec.measurement.parameters)
        if (p.name == name) return &p;
    return nullptr;
}

// Input indices of one sample's blocks.
struct SampleInputs {
    std::int32_t nominal = 0;                      // first bin
    std::vector<std::int32_t> first, second;       // per modifier: hi/vals block, lo block (-1: none)
};

}  // namespace

Structure trace_structure(const ModelSpec& spec, const Model& model) {
    Structure s;
    s.n_pars = model.n_pars();
    s.n_main = model.n_main();
    s.n_aux = model.n_aux();

    // Channel offsets in the model's (sorted) channel order.
    std::map<std::string, std::int64_t> channel_offset;
    std::int64_t off = 0;
    for (std::size_t i = 0; i < model.channels().size(); ++i) {
        channel_offset[model.channels()[i]] = off;
        off += model.channel_nbins()[i];
    }
    if (off != s.n_main) throw InputError(spec.source, "channels", "the model was not compiled from this spec");

    // Input indices in the layout's order.
    std::vector<std::vector<SampleInputs>> idx(spec.channels.size());
    std::int32_t at = 0;
    for (std::size_t ci = 0; ci < spec.channels.size(); ++ci)
        for (const auto& smp : spec.channels[ci].samples) {
            SampleInputs si;
            si.nominal = at;
            at += static_cast<std::int32_t>(smp.data.size());
            for (const auto& m : smp.modifiers) {
                std::int32_t a = -1, b = -1;
                switch (m.type) {
                    case ModifierType::histosys:
                        a = at, b = at + static_cast<std::int32_t>(smp.data.size());
                        at += 2 * static_cast<std::int32_t>(smp.data.size());
                        break;
                    case ModifierType::normsys: a = at, b = at + 1, at += 2; break;
                    case ModifierType::shapesys:
                    case ModifierType::staterror: a = at, at += static_cast<std::int32_t>(smp.data.size()); break;
                    default: break;
                }
                si.first.push_back(a);
                si.second.push_back(b);
            }
            idx[ci].push_back(std::move(si));
        }
    s.n_inputs = at;

    // staterror: covered global bins (sorted) per name, and per (name, global bin) its carriers' inputs.
    std::map<std::string, std::set<std::int64_t>> stat_bins;
    std::map<std::pair<std::string, std::int64_t>, std::pair<std::vector<std::int32_t>, std::vector<std::int32_t>>>
        stat_carriers;  // -> (vals, nominals)
    // shapesys: per name, its sample's (nominal, vals) first inputs.
    std::map<std::string, std::pair<std::int32_t, std::int32_t>> shapesys_inputs;

    // Calls fn(channel offset, sample, its inputs) for every sample in the layout's order.
    auto for_each_sample = [&](auto&& fn) {
        for (std::size_t ci = 0; ci < spec.channels.size(); ++ci)
            for (std::size_t sj = 0; sj < spec.channels[ci].samples.size(); ++sj)
                fn(channel_offset.at(spec.channels[ci].name), spec.channels[ci].samples[sj], idx[ci][sj]);
    };
    for_each_sample([&](std::int64_t coff, const SampleSpec& smp, const SampleInputs& si) {
        for (std::size_t mk = 0; mk < smp.modifiers.size(); ++mk) {
            const auto& m = smp.modifiers[mk];
            if (m.type == ModifierType::staterror)
                for (std::size_t b = 0; b < smp.data.size(); ++b) {
                    const std::int64_t g = coff + static_cast<std::int64_t>(b);
                    stat_bins[m.name].insert(g);
                    auto& c = stat_carriers[{m.name, g}];
                    c.first.push_back(si.first[mk] + static_cast<std::int32_t>(b));
                    c.second.push_back(si.nominal + static_cast<std::int32_t>(b));
                }
            if (m.type == ModifierType::shapesys) shapesys_inputs[m.name] = {si.nominal, si.first[mk]};
        }
    });

    // Elements.
    const ModifierSettings& settings = model.modifier_settings();
    for_each_sample([&](std::int64_t coff, const SampleSpec& smp, const SampleInputs& si) {
        for (std::size_t b = 0; b < smp.data.size(); ++b) {
            const auto bi = static_cast<std::int32_t>(b);
            Element e;
            e.bin = static_cast<std::int32_t>(coff + bi);
            e.nominal = si.nominal + bi;
            for (std::size_t mk = 0; mk < smp.modifiers.size(); ++mk) {
                const auto& m = smp.modifiers[mk];
                const auto p0 = static_cast<std::int32_t>(model.parameter_set(m.name).offset);
                switch (m.type) {
                    case ModifierType::normfactor:
                    case ModifierType::lumi: e.factors.push_back({p0}); break;
                    case ModifierType::shapefactor:
                    case ModifierType::shapesys: e.factors.push_back({p0 + bi}); break;
                    case ModifierType::staterror: {
                        const auto& bins = stat_bins.at(m.name);
                        const auto pos = std::distance(bins.begin(), bins.find(e.bin));
                        e.factors.push_back({p0 + static_cast<std::int32_t>(pos)});
                        break;
                    }
                    case ModifierType::normsys:
                        e.factors.push_back({p0,
                                             settings.normsys_interpcode == InterpCode::code1
                                                 ? FactorForm::normsys_code1
                                                 : FactorForm::normsys_code4,
                                             si.second[mk], si.first[mk]});
                        break;
                    case ModifierType::histosys: {
                        const InterpCode code = settings.histosys_interpcode;
                        const DeltaForm form = code == InterpCode::code0   ? DeltaForm::code0
                                               : code == InterpCode::code2 ? DeltaForm::code2
                                                                           : DeltaForm::code4p;
                        e.deltas.push_back({p0, form, si.second[mk] + bi, si.first[mk] + bi});
                        break;
                    }
                }
            }
            s.elements.push_back(std::move(e));
        }
    });

    // Constraints, in the packer's aux order (parameter sets in order, constrained ones' components).
    const std::vector<double> inputs = grad::flatten_inputs(spec);
    std::int32_t aux = 0;
    for (const ParameterSet& ps : model.parameter_sets()) {
        if (!ps.constrained) continue;
        const ParameterConfig* cfg = config_of(spec, ps.name);
        for (std::int64_t i = 0; i < ps.n; ++i, ++aux) {
            const auto par = static_cast<std::int32_t>(ps.offset + i);
            const auto ui = static_cast<std::size_t>(i);
            if (ps.constraint == "normal") {
                Gauss g;
                g.par = par, g.aux = aux, g.sigma = ps.sigmas[ui];
                if (ps.modifier_type == ModifierType::staterror && !(cfg && cfg->sigmas)) {
                    const std::int64_t gbin = *std::next(stat_bins.at(ps.name).begin(), i);
                    const auto& [vals, noms] = stat_carriers.at({ps.name, gbin});
                    double nomsum = 0, sumsq = 0;
                    for (auto k : noms) nomsum += inputs[static_cast<std::size_t>(k)];
                    for (auto k : vals) sumsq += inputs[static_cast<std::size_t>(k)] * inputs[static_cast<std::size_t>(k)];
                    // A bin without uncertainty keeps the model's constant sigma (its parameter is fixed).
                    if (nomsum > 0 && sumsq > 0) g.stat_vals = vals, g.stat_noms = noms;
                }
                s.gauss.push_back(std::move(g));
                s.gauss_aux_value.push_back(ps.auxdata[ui]);
            } else {
                Poisson q;
                q.par = par, q.aux = aux, q.tau = ps.factors[ui], q.aux_value = ps.auxdata[ui];
                if (ps.modifier_type == ModifierType::shapesys && !(cfg && (cfg->factors || cfg->auxdata))) {
                    const auto [nom0, unc0] = shapesys_inputs.at(ps.name);
                    const double nom = inputs[static_cast<std::size_t>(nom0 + i)];
                    const double unc = inputs[static_cast<std::size_t>(unc0 + i)];
                    if (nom > 0 && unc > 0) {
                        q.nominal = nom0 + static_cast<std::int32_t>(i);
                        q.unc = unc0 + static_cast<std::int32_t>(i);
                        q.aux_is_tau = true;
                    }
                }
                s.pois.push_back(q);
            }
        }
    }
    s.n_aux = aux;
    if (aux != model.n_aux()) throw InputError(spec.source, "parameters", "the model was not compiled from this spec");
    return s;
}

}  // namespace hf::grad_detail
