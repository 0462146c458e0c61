// The shared workspaces (pyhf-validation cases, ATLAS 3L eRJR BkgOnly and its 66 patches): they load, their
// digests equal pyhf's for every algorithm, and patching gives what pyhf (jsonpatch) gives.
#include <gtest/gtest.h>

#include <filesystem>

#include "hfcore/patch.hpp"
#include "hfcore/workspace.hpp"
#include "workspace_test_util.hpp"

namespace {

const std::string kErjr = "data/atlas-3l-erjr/";

TEST(SharedWorkspaces, ValidationCasesLoadWithTheirMeasurement) {
    HF_REQUIRE_SHARED();
    int n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(hf::test::shared_dir() / "validation" / "pyhf-validation")) {
        if (!entry.is_directory()) continue;
        SCOPED_TRACE(entry.path().string());
        const auto ws = hf::Workspace::load_file((entry.path() / "workspace.json").string());
        const auto spec = ws.model_spec();
        EXPECT_FALSE(spec.measurement.poi.empty());
        EXPECT_EQ(ws.observed_main_data(spec).size(), [&] {
            std::size_t bins = 0;
            for (const auto& c : spec.channels) bins += c.samples[0].data.size();
            return bins;
        }());
        for (const auto& c : ws.spec().channels)
            for (const auto& s : c.samples) {
                EXPECT_FALSE(s.json_path.empty());
                for (const auto& m : s.modifiers) EXPECT_EQ(m.json_path.rfind(s.json_path + ".modifiers[", 0), 0u);
            }
        ++n;
    }
    EXPECT_EQ(n, 16);
}

TEST(SharedWorkspaces, DigestsEqualPyhfsForEveryAlgorithm) {
    HF_REQUIRE_SHARED();
    const auto& ref = hf::test::workspace_reference()["digests"];
    ASSERT_GE(ref.as_object().size(), 20u);
    for (const auto& [rel, entry] : ref.as_object()) {
        SCOPED_TRACE(rel);
        const std::string path = hf::test::shared_path(rel);
        ASSERT_EQ(hf::hash_hex("sha256", hf::test::read_text(path)), entry["file_sha256"].as_string())
            << "../shared changed since the reference was made";
        const auto ws = hf::Workspace::load_file(path);
        for (const auto& [alg, hex] : entry["digests"].as_object()) EXPECT_EQ(ws.digest(alg), hex.as_string()) << alg;
    }
}

TEST(SharedWorkspaces, ErjrBackgroundOnlyNeedsItsSignalPatchForThePoi) {
    HF_REQUIRE_SHARED();
    const auto ws = hf::Workspace::load_file(hf::test::shared_path(kErjr + "BkgOnly.json"));
    EXPECT_INPUT_ERROR(ws.model_spec(), "measurements[0].config.poi", "'mu_SIG' cannot be fit");
    hf::ModelRequest no_poi;
    no_poi.poi = "";
    EXPECT_NO_THROW(ws.model_spec(no_poi));
}

TEST(SharedWorkspaces, ErjrPatchesGiveWhatJsonpatchGives) {
    HF_REQUIRE_SHARED();
    const auto bkg = hf::Workspace::load_file(hf::test::shared_path(kErjr + "BkgOnly.json"));
    const auto& ref = hf::test::workspace_reference()["erjr_patches"].as_object();
    ASSERT_EQ(ref.size(), 66u);
    for (const auto& [name, entry] : ref) {
        SCOPED_TRACE(name);
        const auto patch = hf::JsonPatch::load_file(hf::test::shared_path(kErjr + name));
        // The whole workspace patched (as a PatchSet would) ...
        EXPECT_EQ(bkg.patched(patch).digest(), entry["patched_workspace_sha256"].as_string());
        // ... and pyhf.Workspace.model(patches=[patch]): the patch acts on {channels, parameters}.
        hf::json::Object model{{"channels", bkg.json()["channels"]},
                               {"parameters", bkg.json()["measurements"][0]["config"]["parameters"]}};
        EXPECT_EQ(hf::digest(patch.apply(hf::json::Value(model))), entry["model_spec_sha256"].as_string());
        const auto spec = bkg.model_spec(hf::ModelRequest{std::nullopt, std::nullopt, {patch}, {}, std::nullopt});
        EXPECT_EQ(spec.measurement.poi, entry["poi"].as_string());
        const auto& samples = entry["samples_per_channel"];
        ASSERT_EQ(spec.channels.size(), samples.as_object().size());
        for (const auto& c : spec.channels) {
            const auto& names = samples[c.name].as_array();
            ASSERT_EQ(c.samples.size(), names.size()) << c.name;
            for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(c.samples[i].name, names[i].as_string());
        }
        EXPECT_EQ(bkg.observed_main_data(spec).size(), 4u);
    }
}

}  // namespace
