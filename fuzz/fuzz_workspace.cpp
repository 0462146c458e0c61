// libFuzzer target for the workspace layer: JSON parsing and writing, workspace validation and operations,
// JSON Patch and PatchSet. The first input byte picks the mode, the rest is the document. Only hf::Error may
// escape hfcore's functions for bad input; anything else (another exception, a sanitizer report, a broken
// round trip) is a bug.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/json.hpp"
#include "hfcore/patch.hpp"
#include "hfcore/workspace.hpp"

namespace {

using hf::fuzz::expect_hf_error_only;

const hf::Workspace& base() { return hf::fuzz::base_workspace(); }

[[noreturn]] void bug(const std::string& what) { hf::fuzz::bug("fuzz_workspace", what); }

void exercise(const hf::Workspace& ws) {
    (void)ws.digest();
    (void)ws.digest("md5");
    const auto sorted = ws.sorted();
    if (sorted.digest() != sorted.sorted().digest()) bug("sorted is not idempotent");
    // Writing and reading back gives the same document.
    const std::string pretty = hf::json::dump_pretty(ws.json());
    if (hf::json::dump_pretty(hf::json::parse(pretty)) != pretty) bug("pretty output does not round-trip");
    expect_hf_error_only([&] {
        const auto spec = ws.model_spec();
        (void)ws.observed_main_data(spec);
    });
    expect_hf_error_only([&] { (void)hf::Workspace::combine(ws, ws, hf::Join::Outer, true); });
    expect_hf_error_only([&] { (void)hf::Workspace::combine(ws, base(), hf::Join::LeftOuter, true); });
    const auto& chans = ws.spec().channels;
    if (chans.size() > 1) expect_hf_error_only([&] { (void)ws.prune({{}, {}, {}, {chans[0].name}, {}}); });
    expect_hf_error_only([&] { (void)ws.prune({{}, {"normsys"}, {}, {}, {}}); });
    expect_hf_error_only([&] {
        hf::RenameOptions r;
        r.channels = {{chans[0].name, chans[0].name + "_x"}};
        r.samples = {{chans[0].samples[0].name, "renamed"}};
        (void)ws.rename(r);
    });
}

void json_roundtrip(std::string_view text) {
    const auto v = hf::json::parse(text, "fuzz");
    const std::string compact = hf::json::dump(v);
    const auto v2 = hf::json::parse(compact, "compact");
    if (!(v == v2)) bug("compact output parses to a different value");
    if (hf::json::dump(v2) != compact) bug("compact output is not stable");
    const std::string canonical = hf::json::dump_canonical(v);
    if (hf::json::dump_canonical(hf::json::parse(canonical, "canonical")) != canonical) bug("canonical not stable");
    (void)hf::digest(v);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const int mode = data[0] % 4;
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    try {
        switch (mode) {
            case 0: exercise(hf::Workspace::load_string(text, "fuzz.json")); break;
            case 1: {
                const auto ps = hf::PatchSet::load_string(text, "fuzz.json");
                expect_hf_error_only([&] { ps.verify(base()); });
                for (const auto& p : ps.patches()) {
                    (void)ps[p.name];
                    (void)ps[p.values];
                    expect_hf_error_only([&] { exercise(base().patched(p.patch)); });
                }
                break;
            }
            case 2: {
                const auto patch = hf::JsonPatch::load_string(text, "fuzz.json");
                expect_hf_error_only([&] { exercise(base().patched(patch)); });
                expect_hf_error_only([&] {
                    hf::ModelRequest r;
                    r.patches = {patch};
                    (void)base().model_spec(r);
                });
                break;
            }
            case 3: json_roundtrip(text); break;
        }
    } catch (const hf::Error&) {
    }
    return 0;
}
