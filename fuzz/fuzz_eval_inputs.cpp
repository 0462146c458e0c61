// libFuzzer target: the parameter-point and data JSON that `hfcore eval --pars/--data` reads
// (hfcore/eval_inputs.hpp), against the layout of a small model (4 parameter sets, 2 channels, 3 auxdata).
// The first byte picks the reader. Checks beyond "only hf::Error": a point read has P finite values and keeps
// the defaults of parameters it does not name; data read have N + A finite values with counts >= 0.
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fuzz_common.hpp"
#include "hfcore/eval_inputs.hpp"
#include "hfcore/json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using hf::fuzz::bug;
    if (size < 1) return 0;
    static const std::vector<hf::ParameterSlot> slots = {
        {"bkg_norm", 0, 1}, {"lumi", 1, 1}, {"mu", 2, 1}, {"staterror_SR", 3, 2}};
    static const std::vector<double> defaults = {0.0, 1.0, 1.0, 1.0, 1.0};
    static const std::vector<hf::ChannelSlot> channels = {{"CR", 1}, {"SR", 2}};
    static const std::vector<double> aux = {0.0, 1.0, 1.0};
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    try {
        const auto doc = hf::json::parse(text, "input.json");
        if (data[0] & 1) {
            const auto d = hf::data_from_json(doc, channels, aux, "data.json");
            if (d.size() != 3 + aux.size()) bug("fuzz_eval_inputs", "data of the wrong length");
            for (std::size_t i = 0; i < d.size(); ++i)
                if (!std::isfinite(d[i]) || (i < 3 && d[i] < 0)) bug("fuzz_eval_inputs", "a bad value was accepted");
        } else {
            const auto p = hf::parameter_point_from_json(doc, slots, defaults, "pars.json");
            if (p.size() != defaults.size()) bug("fuzz_eval_inputs", "a point of the wrong length");
            for (double x : p)
                if (!std::isfinite(x)) bug("fuzz_eval_inputs", "a non-finite value was accepted");
        }
    } catch (const hf::Error&) {
    }
    return 0;
}
