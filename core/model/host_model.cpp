// The host half of compiling a Model (host_model.hpp): the steps of pyhf's model config, then the packing.
#include "host_model.hpp"

#include "hfcore/errors.hpp"
#include "modifiers/registry.hpp"
#include "multimodal.hpp"
#include "packer.hpp"

namespace hf::detail {

HostModel compile_host_model(const ModelSpec& spec) {
    check_modifier_settings(spec.settings, spec.source);
    HostModel m;
    m.layout = make_layout(spec);
    if (m.layout.channels.empty()) throw InputError(spec.source, "channels", "the model has no channels");
    ParamSetsResult ps = build_parameter_sets(spec, m.layout);
    m.sets = std::move(ps.sets);
    m.index = std::move(ps.index);
    for (const auto& s : m.sets) m.par_order.push_back(s.name);
    m.n_pars = m.sets.empty() ? 0 : m.sets.back().offset + m.sets.back().n;
    const std::string& poi_name = spec.measurement.poi;
    if (!poi_name.empty()) {
        auto it = m.index.find(poi_name);
        if (it == m.index.end())
            throw InputError(spec.source,
                             spec.measurement.json_path.empty() ? "measurements"
                                                                : spec.measurement.json_path + ".config.poi",
                             "the parameter of interest '" + poi_name + "' is not a parameter of the model");
        const ParameterSet& poi = m.sets[it->second];
        if (poi.n != 1)
            throw InputError(spec.source, spec.measurement.json_path + ".config.poi",
                             "the parameter of interest '" + poi_name + "' has " + std::to_string(poi.n) +
                                 " components; it must be a scalar");
        m.poi_index = poi.offset;
    }
    ParamSetsResult for_pack;
    for_pack.sets = m.sets;
    for_pack.index = m.index;
    for_pack.component_bins = std::move(ps.component_bins);
    m.packed = pack_likelihood(spec, m.layout, for_pack, &m.elem_sample);
    m.multimodal = multimodal_parameters(m.packed);
    return m;
}

}  // namespace hf::detail
