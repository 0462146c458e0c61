// Hand-made malformed workspaces (tests/workspace/malformed/) are rejected cleanly, each with a message that
// names the file and the JSON path (or the line and column of a syntax error).
#include <gtest/gtest.h>

#include "hfcore/workspace.hpp"
#include "workspace_test_util.hpp"

namespace {

struct Case {
    const char* file;
    const char* path;     // expected JSON path; "" for syntax errors
    const char* message;  // expected substring of the message
    bool at_model = false;  // a parameter rule: the file loads, building its model spec fails (like pyhf)
};

const Case kCases[] = {
    {"01_truncated.json", "", "truncated"},
    {"02_data_is_string.json", "channels[0].samples[0].data", "expected an array, got a string (\"5.0 10.0\")"},
    {"03_nan_string.json", "channels[0].samples[0].data[0]", "expected a number, got a string (\"nan\")"},
    {"04_nan_literal.json", "", "line 9, column 13"},
    {"05_huge_number.json", "", "1e999 is out of the range of a double"},
    {"06_empty_array.json", "channels[0].samples[0].data", "at least 1 item"},
    {"07_histosys_length.json", "channels[0].samples[1].modifiers[1].data.hi_data", "3 numbers, but sample 'bkg' has 2 bins"},
    {"08_sample_length.json", "channels[0].samples[1].data", "channel 'SR' has 2 bins"},
    {"09_observation_length.json", "observations[0].data", "1 number, but channel 'SR' has 2 bins"},
    {"10_missing_observation.json", "observations", "no observation for channel 'SR'"},
    {"11_unknown_modifier_type.json", "channels[0].samples[1].modifiers[0].type", "expected one of histosys"},
    {"12_lumi_name.json", "channels[0].samples[0].modifiers[1].name", "must be named lumi"},
    {"13_shared_shapesys.json", "channels[0].samples[1].modifiers[2]", "cannot be shared between samples", true},
    {"14_name_reuse.json", "channels[0].samples[1].modifiers[0]", "InvalidNameReuse", true},
    {"15_bad_bounds.json", "measurements[0].config.parameters[0].bounds[0]", "expected [lower, upper]"},
    {"16_wrong_version.json", "version", "expected \"1.0.0\""},
    {"17_extra_property.json", "channels[0].title", "unexpected property"},
    {"18_fixed_string.json", "measurements[0].config.parameters[0].fixed", "expected true or false, got a string"},
    {"19_staterror_length.json", "channels[0].samples[1].modifiers[3].data", "1 number, but sample 'bkg' has 2 bins"},
    {"20_trailing_garbage.json", "", "after the end of the JSON document"},
    {"21_duplicate_observation.json", "observations[1].name", "duplicate observation 'SR'"},
    {"22_root_is_array.json", "", "expected an object, got an array"},
    {"23_negative_bin_count_in_modifier.json", "channels[0].samples[1].modifiers[2].data", "expected an array, got the number -1"},
    {"24_missing_modifiers.json", "channels[0].samples[0].modifiers", "required property is missing"},
    {"25_bool_as_number.json", "channels[0].samples[0].data[0]", "expected a number, got true"},
    {"26_invalid_utf8.json", "", "invalid UTF-8"},
};

TEST(Malformed, ValidBaseLoads) {
    const auto ws = hf::Workspace::load_file((hf::test::malformed_dir() / "00_valid.json").string());
    EXPECT_EQ(ws.model_spec().measurement.poi, "mu");
}

TEST(Malformed, EachFileIsRejectedWithItsPath) {
    for (const auto& c : kCases) {
        SCOPED_TRACE(c.file);
        const std::string path = (hf::test::malformed_dir() / c.file).string();
        try {
            const auto ws = hf::Workspace::load_file(path);
            if (!c.at_model) ADD_FAILURE() << "loaded";
            (void)ws.model_spec();
            ADD_FAILURE() << "accepted";
        } catch (const hf::InputError& e) {
            EXPECT_EQ(e.file(), path);
            EXPECT_EQ(e.json_path(), c.path) << e.what();
            EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
        } catch (const std::exception& e) {
            ADD_FAILURE() << "not an InputError: " << e.what();
        }
    }
}

// A huge array is reported by its size, not echoed.
TEST(Malformed, HugeArrayOfTheWrongLength) {
    const std::string base = hf::test::read_text(hf::test::malformed_dir() / "00_valid.json");
    std::string big = "[";
    for (int i = 0; i < 200000; ++i) big += (i ? ", " : "") + std::to_string(i) + ".5";
    big += "]";
    auto doc = hf::json::parse(base);
    doc.as_object().at("observations").as_array()[0].as_object().set("data", hf::json::parse(big));
    try {
        hf::Workspace(doc, "big.json");
        FAIL();
    } catch (const hf::InputError& e) {
        EXPECT_EQ(e.json_path(), "observations[0].data");
        EXPECT_NE(std::string(e.what()).find("200000 numbers"), std::string::npos);
        EXPECT_LT(std::string(e.what()).size(), 200u);
    }
}

// Rules that need a measurement are checked by model_spec, with the path of the offending config.
TEST(Malformed, MeasurementRules) {
    const std::string base = hf::test::read_text(hf::test::malformed_dir() / "00_valid.json");
    auto with_params = [&](const char* params_json, const char* poi = "mu") {
        auto doc = hf::json::parse(base);
        auto& config = doc.as_object().at("measurements").as_array()[0].as_object().at("config").as_object();
        config.set("parameters", hf::json::parse(params_json));
        config.set("poi", hf::json::Value(poi));
        return hf::Workspace(doc, "m.json");
    };
    EXPECT_INPUT_ERROR(with_params("[]", "nope").model_spec(), "measurements[0].config.poi", "'nope' cannot be fit");
    EXPECT_INPUT_ERROR(with_params("[]", "uncorr").model_spec(), "measurements[0].config.poi", "multiple components");
    EXPECT_INPUT_ERROR(with_params(R"([{"name": "mu", "inits": [1.0, 2.0]}])").model_spec(),
                       "measurements[0].config.parameters[0].inits", "2 values, but parameter 'mu' (normfactor) has 1");
    EXPECT_INPUT_ERROR(with_params(R"([{"name": "mu", "sigmas": [1.0]}])").model_spec(),
                       "measurements[0].config.parameters[0].sigmas", "does not use sigmas");
    EXPECT_INPUT_ERROR(with_params(R"([{"name": "uncorr", "factors": [1.0]}])").model_spec(),
                       "measurements[0].config.parameters[0].factors", "1 value, but parameter 'uncorr' (shapesys) has 2");
    EXPECT_INPUT_ERROR(with_params(R"([{"name": "mu"}, {"name": "mu", "fixed": true}])").model_spec(),
                       "measurements[0].config.parameters[1].name", "Multiple parameter configurations for 'mu'");
    // Configs of parameters no modifier uses are ignored, as pyhf does.
    EXPECT_NO_THROW(with_params(R"([{"name": "lumi", "auxdata": [1.0], "sigmas": [0.1, 0.2]}])").model_spec());
    // A POI override and a POI-less model.
    hf::ModelRequest r;
    r.poi = "bkg_norm";
    EXPECT_EQ(with_params("[]").model_spec(r).measurement.poi, "bkg_norm");
    r.poi = "";
    EXPECT_EQ(with_params("[]", "nope").model_spec(r).measurement.poi, "");
}

TEST(Malformed, LumiNeedsItsConfiguration) {
    auto doc = hf::json::parse(hf::test::read_text(hf::test::malformed_dir() / "00_valid.json"));
    auto& mods = doc.as_object().at("channels").as_array()[0].as_object().at("samples").as_array()[0].as_object().at(
        "modifiers");
    mods.as_array().push_back(hf::json::parse(R"({"name": "lumi", "type": "lumi", "data": null})"));
    const hf::Workspace ws(doc, "lumi.json");
    EXPECT_INPUT_ERROR(ws.model_spec(), "measurements[0].config.parameters", "missing: inits, bounds, auxdata, sigmas");
    auto& params = doc.as_object().at("measurements").as_array()[0].as_object().at("config").as_object().at("parameters");
    params.as_array().push_back(hf::json::parse(
        R"({"name": "lumi", "auxdata": [1.0], "sigmas": [0.02], "inits": [1.0], "bounds": [[0.5, 1.5]]})"));
    EXPECT_NO_THROW(hf::Workspace(doc, "lumi.json").model_spec());
}

TEST(Malformed, MeasurementLookup) {
    const auto ws = hf::Workspace::load_file((hf::test::malformed_dir() / "00_valid.json").string());
    EXPECT_INPUT_ERROR(ws.measurement(std::string("other")), "measurements", "no measurement by name 'other'");
    EXPECT_INPUT_ERROR(ws.measurement(std::nullopt, 3), "measurements", "index 3 is out of bounds");
    EXPECT_EQ(ws.measurement(std::string("meas")).name, "meas");
}

}  // namespace
