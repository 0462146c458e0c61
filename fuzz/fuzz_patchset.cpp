// libFuzzer target: pyhf PatchSet files. Checks beyond "only hf::Error": every patch is found again by its name
// and by its values, lookups of absent names fail with hf::Error, verify/apply against a workspace either work
// or fail with hf::Error, and an applied patch gives a valid workspace.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "hfcore/json.hpp"
#include "hfcore/patch.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using hf::fuzz::bug;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const auto ps = hf::PatchSet::load_string(text, "patchset.json");
        (void)ps.description();
        (void)ps.version();
        (void)ps.digests();
        const auto labels = ps.labels();
        for (const auto& p : ps.patches()) {
            if (ps[p.name].name != p.name) bug("fuzz_patchset", "lookup by name found another patch");
            if (p.values.size() != labels.size()) bug("fuzz_patchset", "a patch has not one value per label");
            if (ps[p.values].name != p.name) bug("fuzz_patchset", "lookup by values found another patch");
        }
        if (ps.find(std::string("\x01no such patch"))) bug("fuzz_patchset", "found an absent name");
        const auto& ws = hf::fuzz::base_workspace();
        hf::fuzz::expect_hf_error_only([&] { ps.verify(ws); });
        for (const auto& p : ps.patches()) {
            hf::fuzz::expect_hf_error_only([&] { (void)ps.apply(ws, p.name).digest(); });
            // Without the digest check: the patch itself on the workspace.
            hf::fuzz::expect_hf_error_only([&] { (void)ws.patched(p.patch).model_spec(); });
        }
    } catch (const hf::Error&) {
    }
    return 0;
}
