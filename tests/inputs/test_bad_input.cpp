// Bad input, told (issue 18): each malformed variant of examples/workspaces/example.json gives an error naming
// the file and the JSON path (or, where pyhf accepts the input, a warning saying what will happen), from the C++
// API and from the CLI (exit status 2); every numeric CLI option refuses nonsense naming the option. The
// decisions, case by case against pyhf 0.7.6, are in docs/workspace.md ("Bad input").
#include <filesystem>
#include <fstream>

#include "cli_run.hpp"
#include "hfcore/eval_inputs.hpp"
#include "hfcore/patch.hpp"
#include "hfcore/loader.hpp"
#include "hfcore/infer.hpp"
#include "hfcore/json.hpp"
#include "hfcore/model.hpp"
#include "hfcore/workspace.hpp"
#include "test_support.hpp"

namespace hf::test {
namespace {

std::string example() { return (source_dir() / "examples" / "workspaces" / "example.json").string(); }

// The example with an RFC 6902 patch applied, written to a temporary file named `name`.
std::string variant(const std::string& name, const std::string& patch) {
    const auto doc = JsonPatch::load_string(patch, name).apply(json::parse_file(example()));
    const auto path = std::filesystem::temp_directory_path() / ("hfcore_bad_" + name + ".json");
    std::ofstream(path) << json::dump(doc);
    return path.string();
}

struct BadCase {
    const char* name;
    const char* patch;
    const char* path;  // the JSON path the error must name
};

// Each of these fails when the model (or its data) is built.
const BadCase kModelErrors[] = {
    {"negative_count", R"([{"op": "replace", "path": "/observations/0/data/1", "value": -5}])",
     "observations[0].data[1]"},
    {"negative_fraction", R"([{"op": "replace", "path": "/observations/2/data/0", "value": -0.5}])",
     "observations[2].data[0]"},
    {"negative_total", R"([{"op": "replace", "path": "/channels/0/samples/1/data/0", "value": -60.0}])",
     "channels[0].samples[1].data[0]"},
    {"lumi_sigma_zero", R"([{"op": "replace", "path": "/measurements/0/config/parameters/0/sigmas/0", "value": 0}])",
     "measurements[0].config.parameters[0]"},
    {"staterror_sigma_zero",
     R"([{"op": "add", "path": "/measurements/0/config/parameters/-",
          "value": {"name": "staterror_SR", "sigmas": [0.0, 0.1]}}])",
     "measurements[0].config.parameters[2]"},
    {"normsys_hi_zero", R"([{"op": "replace", "path": "/channels/0/samples/0/modifiers/2/data/hi", "value": 0}])",
     "channels[0].samples[0].modifiers[2].data.hi"},
    {"normsys_lo_negative",
     R"([{"op": "replace", "path": "/channels/0/samples/3/modifiers/1/data/lo", "value": -0.9}])",
     "channels[0].samples[3].modifiers[1].data.lo"},
};

TEST(BadInput, ModelErrorsNameFileAndPath) {
    const BackendPtr cpu = load_backend("cpu");
    for (const auto& c : kModelErrors) {
        const std::string file = variant(c.name, c.patch);
        const Workspace ws = Workspace::load_file(file);  // loading alone accepts all of these (as pyhf)
        try {
            const ModelSpec spec = ws.model_spec();
            const Model m(spec, cpu);
            (void)m.data_from_observations(ws.spec().observations, true, ws.source());
            ADD_FAILURE() << c.name << ": accepted";
        } catch (const InputError& e) {
            EXPECT_EQ(e.file(), file) << c.name << ": " << e.what();
            EXPECT_EQ(e.json_path().rfind(c.path, 0), 0u) << c.name << ": " << e.what();
        }
        const CliRun r = run_cli("cls " + file);
        EXPECT_EQ(r.rc, 2) << c.name << ": " << r.err;
        EXPECT_NE(r.err.find(file + ": " + c.path), std::string::npos) << c.name << ": " << r.err;
        EXPECT_TRUE(r.out.empty()) << c.name;
    }
}

// pyhf accepts a negative yield of one sample when the bin's total is positive: so does hfcore.
TEST(BadInput, NegativeSampleYieldWithPositiveTotalIsAccepted) {
    const std::string file = variant("negative_sample",
                                     R"([{"op": "replace", "path": "/channels/0/samples/3/data/0", "value": -2.0}])");
    const Workspace ws = Workspace::load_file(file);
    EXPECT_NO_THROW(Model(ws.model_spec(), load_backend("cpu")));
    const CliRun r = run_cli("fit " + file);
    EXPECT_EQ(r.rc, 0) << r.err;
}

// pyhf: a fit with the POI fixed works; a hypotest raises InvalidModel (pyhf's message).
TEST(BadInput, FixedPoiRefusedByHypotestsOnly) {
    const std::string file = variant(
        "poi_fixed", R"([{"op": "add", "path": "/measurements/0/config/parameters/1/fixed", "value": true}])");
    const CliRun fit = run_cli("fit " + file);
    EXPECT_EQ(fit.rc, 0) << fit.err;
    for (const char* cmd : {"cls ", "upper-limit ", "significance "}) {
        const CliRun r = run_cli(cmd + file);
        EXPECT_EQ(r.rc, 2) << cmd << r.err;
        EXPECT_NE(r.err.find("POI at index [4] is set as fixed"), std::string::npos) << cmd << r.err;
    }
}

// Every numeric option: nonsense values stop the run with status 2 and a message naming the option, before any
// work (no output).
TEST(BadInput, CliOptionsRefuseNonsense) {
    const std::string ws = example();
    const struct {
        std::string args;
        const char* option;
    } cases[] = {
        {"cls " + ws + " --test-poi nan", "--test-poi"},
        {"cls " + ws + " --test-poi inf", "--test-poi"},
        {"cls " + ws + " --test-poi -1", "--test-poi"},
        {"cls " + ws + " --test-poi 1e300", "--test-poi"},
        {"cls " + ws + " --test-poi one", "--test-poi"},
        {"cls " + ws + " --calctype toybased --ntoys 0", "--ntoys"},
        {"cls " + ws + " --calctype toybased --ntoys -5", "--ntoys"},
        {"cls " + ws + " --calctype toybased --toy-batch 0", "--toy-batch"},
        {"cls " + ws + " --seed -1", "--seed"},
        {"cls " + ws + " --device -1", "--device"},
        {"cls " + ws + " --precision 16b", "--precision"},
        {"cls " + ws + " --calctype bayes", "--calctype"},
        {"cls " + ws + " --test-stat q0", "--test-stat"},
        {"cls " + ws + " --interpcodes normsys=code9", "--interpcodes"},
        {"cls " + ws + " --no-such-option", "--no-such-option"},
        {"fit " + ws + " --fixed-poi nan", "--fixed-poi"},
        {"fit " + ws + " --fixed-poi 11", "--fixed-poi"},
        {"upper-limit " + ws + " --level 0", "--level"},
        {"upper-limit " + ws + " --level 1", "--level"},
        {"upper-limit " + ws + " --level nan", "--level"},
        {"upper-limit " + ws + " --rtol -1", "--rtol"},
        {"upper-limit " + ws + " --atol inf", "--atol"},
        {"upper-limit " + ws + " --rtol 0 --atol 0", "--rtol"},
        {"upper-limit " + ws + " --upper -5", "--upper"},
        {"upper-limit " + ws + " --upper nan", "--upper"},
        {"upper-limit " + ws + " --scan 0,5,1000000000", "--scan"},
        {"upper-limit " + ws + " --scan 0,inf,5", "--scan"},
        {"upper-limit " + ws + " --scan 5,0,5", "--scan"},
        {"scan " + ws + " " + ws + " --threads -1", "--threads"},
        {"scan " + ws + " " + ws + " --level 2", "--level"},
        {"ranking " + ws + " --threads -1", "--threads"},
        {"profile " + ws + " --par mu --range 0,5,0", "--range"},
        {"combine " + ws + " " + ws + " --join inner", "--join"},
    };
    for (const auto& c : cases) {
        const CliRun r = run_cli(c.args);
        EXPECT_EQ(r.rc, 2) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.option), std::string::npos) << c.args << "\n" << r.err;
        EXPECT_TRUE(r.out.empty()) << c.args << "\n" << r.out;
    }
}

// hfcore eval --data: the formats of hfcore/eval_inputs.hpp give the workspace's own logpdf when they hold its
// observations, and a negative count is refused with its path.
TEST(BadInput, EvalDataFormats) {
    const Workspace ws = Workspace::load_file(example());
    const Model m(ws.model_spec(), load_backend("cpu"));
    const auto own = m.data_from_observations(ws.spec().observations, true, ws.source());
    const auto dir = std::filesystem::temp_directory_path();
    const auto write = [&](const char* name, const std::string& text) {
        const auto p = dir / name;
        std::ofstream(p) << text;
        return p.string();
    };
    const std::string obj = write("hfcore_data_obj.json", R"({"SR": [47, 29], "CR_top": [168, 71], "CR_wjets": [131]})");
    std::string list = "[";
    for (std::size_t i = 0; i < own.size(); ++i) list += (i ? ", " : "") + json::format_double(own[i]);
    const std::string lst = write("hfcore_data_list.json", list + "]");
    const CliRun base = run_cli("eval " + example());
    ASSERT_EQ(base.rc, 0) << base.err;
    const double want = json::parse(base.out)["logpdf"].as_double();
    for (const auto& f : {obj, lst}) {
        const CliRun r = run_cli("eval " + example() + " --data " + f);
        ASSERT_EQ(r.rc, 0) << f << r.err;
        EXPECT_EQ(json::parse(r.out)["logpdf"].as_double(), want) << f;
    }
    const std::string neg = write("hfcore_data_neg.json", R"({"SR": [47, -29], "CR_top": [168, 71], "CR_wjets": [131]})");
    const CliRun r = run_cli("eval " + example() + " --data " + neg);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find(neg + ": SR[1]: observed count -29.0 of channel 'SR' is negative"), std::string::npos) << r.err;
    const std::string miss = write("hfcore_data_miss.json", R"({"SR": [47, 29]})");
    EXPECT_NE(run_cli("eval " + example() + " --data " + miss).err.find("no counts for channel 'CR_top'"),
              std::string::npos);
}

}  // namespace
}  // namespace hf::test
