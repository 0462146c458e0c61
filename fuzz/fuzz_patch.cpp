// libFuzzer target: RFC 6902 JSON Patch as Python's jsonpatch applies it. The input is a patch, or (first byte
// odd) a document and a patch separated by a NUL byte. Checks beyond "only hf::Error": applying is a pure
// function (twice gives the same result, the input is untouched), apply_in_place agrees with apply, and a
// patched workspace either validates or fails with hf::Error.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "hfcore/json.hpp"
#include "hfcore/patch.hpp"

namespace {

using hf::fuzz::bug;

void check_apply(const hf::JsonPatch& patch, const hf::json::Value& doc) {
    const hf::json::Value before = doc;
    hf::json::Value out;
    try {
        out = patch.apply(doc);
    } catch (const hf::Error&) {
        if (!(doc == before)) bug("fuzz_patch", "a failed apply changed its input");
        hf::json::Value copy = doc;
        try {
            patch.apply_in_place(copy);
        } catch (const hf::Error&) {
            return;
        }
        bug("fuzz_patch", "apply failed but apply_in_place succeeded");
    }
    if (!(doc == before)) bug("fuzz_patch", "apply changed its input");
    if (!(patch.apply(doc) == out)) bug("fuzz_patch", "apply is not deterministic");
    hf::json::Value copy = doc;
    patch.apply_in_place(copy);
    if (!(copy == out)) bug("fuzz_patch", "apply_in_place differs from apply");
    // The result writes and reads back to the same value.
    if (!(hf::json::parse(hf::json::dump(out), "out") == out)) bug("fuzz_patch", "patched document does not round-trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const bool with_doc = data[0] & 1;
    std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    try {
        if (with_doc) {
            const auto nul = text.find('\0');
            if (nul == std::string_view::npos) return 0;
            const auto doc = hf::json::parse(text.substr(0, nul), "doc.json");
            const auto patch = hf::JsonPatch::load_string(text.substr(nul + 1), "patch.json");
            check_apply(patch, doc);
        } else {
            const auto patch = hf::JsonPatch::load_string(text, "patch.json");
            const auto& ws = hf::fuzz::base_workspace();
            check_apply(patch, ws.json());
            hf::fuzz::expect_hf_error_only([&] { (void)ws.patched(patch).digest(); });
            hf::fuzz::expect_hf_error_only([&] {
                hf::ModelRequest r;
                r.patches = {patch};
                (void)ws.model_spec(r);
            });
        }
    } catch (const hf::Error&) {
    }
    return 0;
}
