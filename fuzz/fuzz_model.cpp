// libFuzzer target for model construction: workspace -> ModelSpec (a measurement, patches, interpolation codes)
// -> the host half of Model's constructor (core/model/host_model.hpp: layout, parameter sets, POI, the packer's
// PackedLikelihood, the multimodal parameters). What follows in Model's constructor is the backend's compile of
// that PackedLikelihood, which every plugin receives after check_packed_likelihood: the conformance suites
// cover it, on every plugin. First byte: bits 0-1 the mode (0 a workspace, each of its measurements; 1 a JSON
// patch of the model, applied to the small workspace of fuzz_common.hpp; 2 a measurement object replacing that
// workspace's; 3 a model spec {"channels", "parameters"} as hfcore.Model(spec) takes it), bits 2-4 the
// interpolation codes. Beyond "only hf::Error": a model that compiles has a packed
// likelihood check_packed_likelihood accepts, with the model's sizes, its POI and multimodal parameters inside
// the parameter vector, and contiguous parameter sets.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "hfcore/json.hpp"
#include "hfcore/patch.hpp"
#include "hfcore/plugin/likelihood.hpp"
#include "hfcore/workspace.hpp"
#include "model/host_model.hpp"

namespace {

[[noreturn]] void bug(const std::string& what) { hf::fuzz::bug("fuzz_model", what); }

void compile(const hf::ModelSpec& spec) {
    const hf::detail::HostModel m = hf::detail::compile_host_model(spec);
    try {
        hf::check_packed_likelihood(m.packed);
    } catch (const hf::Error& e) {
        bug(std::string("the packer made a PackedLikelihood its check refuses: ") + e.what());
    }
    if (m.packed.n_pars != m.n_pars) bug("packed n_pars differs from the parameter sets'");
    if (m.packed.n_main != m.layout.n_main) bug("packed n_main differs from the layout's");
    std::int64_t offset = 0, n_aux = 0;
    for (const auto& s : m.sets) {
        if (s.offset != offset || s.n < 1) bug("parameter set '" + s.name + "' is not contiguous");
        offset += s.n;
        if (s.constrained) n_aux += static_cast<std::int64_t>(s.auxdata.size());
        if (static_cast<std::int64_t>(s.inits.size()) != s.n || static_cast<std::int64_t>(s.bounds.size()) != s.n)
            bug("parameter set '" + s.name + "' has inits or bounds of the wrong length");
    }
    if (m.packed.n_aux != n_aux) bug("packed n_aux differs from the constrained sets' aux data");
    if (m.par_order.size() != m.sets.size()) bug("par_order and the parameter sets differ in length");
    if (spec.measurement.poi.empty() ? m.poi_index != -1 : (m.poi_index < 0 || m.poi_index >= m.n_pars))
        bug("the POI index is outside the parameters");
    for (std::int64_t p : m.multimodal)
        if (p < 0 || p >= m.n_pars) bug("a multimodal parameter outside the parameters");
}

hf::ModifierSettings settings(std::uint8_t bits) {
    hf::ModifierSettings s;
    s.normsys_interpcode = (bits & 1) ? hf::InterpCode::code1 : hf::InterpCode::code4;
    constexpr hf::InterpCode histosys[] = {hf::InterpCode::code4p, hf::InterpCode::code0, hf::InterpCode::code2,
                                           hf::InterpCode::code4p};
    s.histosys_interpcode = histosys[(bits >> 1) & 3];
    return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const int mode = data[0] & 3;
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    hf::ModelRequest request;
    request.settings = settings(static_cast<std::uint8_t>(data[0] >> 2));
    try {
        switch (mode) {
            case 0: {
                const auto ws = hf::Workspace::load_string(text, "fuzz.json");
                for (std::size_t i = 0; i < ws.spec().measurements.size() && i < 4; ++i) {
                    request.measurement_index = i;
                    hf::fuzz::expect_hf_error_only([&] { compile(ws.model_spec(request)); });
                }
                break;
            }
            case 1:
                request.patches = {hf::JsonPatch::load_string(text, "fuzz.json")};
                compile(hf::fuzz::base_workspace().model_spec(request));
                break;
            case 2: {
                // The input as the small workspace's only measurement.
                const std::string patch = R"([{"op": "replace", "path": "/measurements/0", "value": )" +
                                          std::string(text) + "}]";
                const auto ws = hf::fuzz::base_workspace().patched(hf::JsonPatch::load_string(patch, "fuzz.json"));
                compile(ws.model_spec(request));
                break;
            }
            default:  // a model spec in pyhf.Model's format, as hfcore.Model(spec) takes it, POI "mu"
                compile(hf::model_spec_from_json(hf::json::parse(text, "fuzz.json"), "fuzz.json", "mu",
                                                 request.settings));
                break;
        }
    } catch (const hf::Error&) {
    }
    return 0;
}
