// Every file of ../shared/validation/pyhf-examples, accepted or rejected as pyhf does (index.json), rejected
// ones with an error that names the JSON path; digests as pyhf's.
#include <gtest/gtest.h>

#include "hfcore/patch.hpp"
#include "hfcore/workspace.hpp"
#include "workspace_test_util.hpp"

namespace {

const std::string kExamples = "validation/pyhf-examples/";

void load_as(const std::string& kind, const std::string& path) {
    if (kind == "workspace") {
        const auto ws = hf::Workspace::load_file(path);
        (void)ws.model_spec();  // pyhf's check: Workspace(spec).model()
    } else if (kind == "patchset") {
        (void)hf::PatchSet::load_file(path);
    } else if (kind == "model") {
        (void)hf::model_spec_from_json(hf::json::parse_file(path), path, "mu");
    } else {
        FAIL() << "unknown kind " << kind;
    }
}

TEST(PyhfExamples, AcceptedAndRejectedLikePyhf) {
    HF_REQUIRE_SHARED();
    const auto index = hf::json::parse_file(hf::test::shared_path(kExamples + "index.json"));
    int accepted = 0, rejected = 0;
    for (const auto& [rel, entry] : index["files"].as_object()) {
        SCOPED_TRACE(rel);
        const std::string path = hf::test::shared_path(kExamples + rel);
        const std::string& kind = entry["kind"].as_string();
        if (entry["accepted"].as_bool()) {
            EXPECT_NO_THROW(load_as(kind, path));
            ++accepted;
        } else {
            try {
                load_as(kind, path);
                ADD_FAILURE() << "accepted a file pyhf rejects";
            } catch (const hf::InputError& e) {
                EXPECT_EQ(e.file(), path);
                EXPECT_FALSE(e.json_path().empty()) << e.what();
            }
            ++rejected;
        }
    }
    EXPECT_EQ(accepted, 9);
    EXPECT_EQ(rejected, 19);
}

TEST(PyhfExamples, RejectionsPointAtTheSameElementAsPyhf) {
    HF_REQUIRE_SHARED();
    // {file, JSON path, message}: the message is pyhf's (jsonschema or PatchSet) reason in hfcore's words.
    struct Rejection {
        const char* file;
        const char* path;
        const char* message;
    };
    const Rejection expected[] = {
        {"tests/test_patchset/patchset_bad_duplicate_patch_name.json", "patches[1].metadata.name",
         "Multiple patches were defined by name 'Gtt_2100_5000_800' (also at patches[0])"},
        {"tests/test_patchset/patchset_bad_duplicate_patch_values.json", "patches[1].metadata.values",
         "Multiple patches were defined by values (2100, 800) (also at patches[0])"},
        {"tests/test_patchset/patchset_bad_empty_patches.json", "patches",
         "expected at least 1 item, got an empty array"},
        {"tests/test_patchset/patchset_bad_no_version.json", "version",
         "required property is missing"},
        {"tests/test_patchset/patchset_bad_wrong_values_multiplicity.json", "patches[1].metadata.values",
         "Incompatible number of values (3) in patchset. Expected 2, one per label."},
        {"tests/test_patchset/patchset_bad_wrong_valuetype.json", "patches[0].metadata.values[1]",
         "expected a number or a string, got an object"},
        {"tests/test_schema/patchset_bad_hepdata_reference.json", "metadata.references.hepdata",
         "\"wrongid12374\" does not match '^ins[0-9]{7}$'"},
        {"tests/test_schema/patchset_bad_invalid_digests.json", "metadata.digests.nonexistent",
         "unexpected property (allowed here: md5, sha256)"},
        {"tests/test_schema/patchset_bad_label_pattern.json", "metadata.labels[0]",
         "\"mass_stop-\" does not match '^[a-zA-Z0-9_]+$'"},
        {"tests/test_schema/patchset_bad_no_description.json", "metadata.description",
         "required property is missing"},
        {"tests/test_schema/patchset_bad_no_digests.json", "metadata.digests",
         "required property is missing"},
        {"tests/test_schema/patchset_bad_no_labels.json", "metadata.labels",
         "required property is missing"},
        {"tests/test_schema/patchset_bad_no_patch_name.json", "patches[0].metadata.name",
         "required property is missing"},
        {"tests/test_schema/patchset_bad_no_patch_values.json", "patches[0].metadata.values",
         "required property is missing"},
    };
    for (const auto& [rel, path, message] : expected) {
        SCOPED_TRACE(rel);
        EXPECT_INPUT_ERROR(hf::PatchSet::load_file(hf::test::shared_path(kExamples + rel)), path, message);
    }
    auto model = [](const char* rel) {
        const std::string p = hf::test::shared_path(kExamples + rel);
        return hf::model_spec_from_json(hf::json::parse_file(p), p, "mu");
    };
    EXPECT_INPUT_ERROR(model("tests/test_schema/model_duplicate_channels.json"), "channels[1].name",
                       "Duplicate channels 'singlechannel'");
    EXPECT_INPUT_ERROR(model("tests/test_schema/model_duplicate_samples.json"), "channels[0].samples[1].name",
                       "Duplicate samples 'signal'");
    EXPECT_INPUT_ERROR(model("tests/test_schema/model_duplicate_modifiers.json"), "channels[0].samples[0].modifiers[1]",
                       "Duplicate modifiers 'mu'");
}

TEST(PyhfExamples, DigestsEqualPyhfs) {
    HF_REQUIRE_SHARED();
    const auto index = hf::json::parse_file(hf::test::shared_path(kExamples + "index.json"));
    int n = 0;
    for (const auto& [rel, entry] : index["files"].as_object()) {
        if (!entry.find("digest_sha256")) continue;
        SCOPED_TRACE(rel);
        EXPECT_EQ(hf::Workspace::load_file(hf::test::shared_path(kExamples + rel)).digest(),
                  entry["digest_sha256"].as_string());
        ++n;
    }
    EXPECT_EQ(n, 3);
}

TEST(PyhfExamples, PatchsetAppliedToBackgroundOnly) {
    HF_REQUIRE_SHARED();
    const auto index = hf::json::parse_file(hf::test::shared_path(kExamples + "index.json"));
    const auto ws = hf::Workspace::load_file(hf::test::shared_path(kExamples + "tests/test_scripts/example_bkgonly.json"));
    const auto ps = hf::PatchSet::load_file(hf::test::shared_path(kExamples + "tests/test_scripts/example_patchset.json"));
    const auto& applied = index["files"]["tests/test_scripts/example_patchset.json"]["applied_to_example_bkgonly"];
    EXPECT_EQ(ws.digest(), applied["bkgonly_digest_sha256"].as_string());
    EXPECT_NO_THROW(ps.verify(ws));
    for (const auto& [name, p] : applied["patches"].as_object()) {
        SCOPED_TRACE(name);
        EXPECT_EQ(ps.apply(ws, name).digest(), p["patched_workspace_digest_sha256"].as_string());
        EXPECT_EQ(ps[p["values"].as_array()].name, name);
        const auto spec = ps.apply(ws, name).model_spec();
        EXPECT_EQ(spec.measurement.poi, p["result"]["poi"].as_string());
    }
}

}  // namespace
