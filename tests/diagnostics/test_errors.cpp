// Bad requests to the diagnostics get clear errors, in C++ (hf::InputError naming what is wrong) and from the
// CLI (exit status 2, the message on standard error, nothing on standard output).
#include <fstream>

#include "diagnostics_support.hpp"

namespace hf::test {
namespace {

// A workspace written to a temporary file for the CLI.
std::string write_temp(const std::string& name, const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() / ("hfcore_diag_" + std::to_string(::getpid()) + "_" + name);
    std::ofstream(path) << text;
    return path.string();
}

// One channel: a signal with the POI, a background with no modifier at all.
const char* kNoNuisance = R"({"channels": [{"name": "SR", "samples": [
  {"name": "sig", "data": [5.0, 3.0], "modifiers": [{"name": "mu", "type": "normfactor", "data": null}]},
  {"name": "bkg", "data": [50.0, 40.0], "modifiers": []}]}],
  "observations": [{"name": "SR", "data": [53.0, 45.0]}],
  "measurements": [{"name": "m", "config": {"poi": "mu", "parameters": []}}], "version": "1.0.0"})";

// The same with a normsys held fixed by the measurement: still no free nuisance parameter.
const char* kFixedNuisance = R"({"channels": [{"name": "SR", "samples": [
  {"name": "sig", "data": [5.0, 3.0], "modifiers": [{"name": "mu", "type": "normfactor", "data": null}]},
  {"name": "bkg", "data": [50.0, 40.0], "modifiers": [{"name": "syst", "type": "normsys", "data": {"hi": 1.1, "lo": 0.9}}]}]}],
  "observations": [{"name": "SR", "data": [53.0, 45.0]}],
  "measurements": [{"name": "m", "config": {"poi": "mu", "parameters": [{"name": "syst", "fixed": true}]}}],
  "version": "1.0.0"})";

Model model_of(const std::string& text) {
    const Workspace ws = Workspace::load_string(text, "test.json");
    return Model(ws.model_spec(ModelRequest{}), load_backend("cpu"));
}

// The message of the InputError `f` throws (fails the test when it throws nothing or something else).
template <class F>
std::string input_error(F f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not an InputError: " << e.what();
        return "";
    }
    ADD_FAILURE() << "no error";
    return "";
}

void expect_cli_error(const std::string& args, const std::string& text) {
    SCOPED_TRACE(args);
    const auto r = run_cli(args);
    EXPECT_EQ(r.rc, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("hfcore: error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
}

class Errors : public ::testing::Test {
protected:
    Errors() : ws_(Workspace::load_file(example_path())),
               model_(ws_.model_spec(ModelRequest{}), load_backend("cpu")),
               data_(model_.data_from_observations(ws_.spec().observations)) {}
    Workspace ws_;
    Model model_;
    std::vector<double> data_;
};

TEST_F(Errors, UnknownParameter) {
    EXPECT_NE(input_error([&] { infer::profile_scan(model_, data_, {{"nope", {0.0, 1.0}}}); })
                  .find("unknown parameter 'nope'; the model's parameters are: "),
              std::string::npos);
    EXPECT_NE(input_error([&] { infer::minos(model_, data_, {"mu", "nope"}); }).find("unknown parameter 'nope'"),
              std::string::npos);
    infer::RankingOptions ro;
    ro.poi = "nope";
    EXPECT_NE(input_error([&] { infer::ranking(model_, data_, ro); }).find("unknown parameter 'nope'"), std::string::npos);
    expect_cli_error("profile " + example_path() + " --par nope --range 0,1,3", "unknown parameter 'nope'");
    expect_cli_error("fit " + example_path() + " --minos nope", "unknown parameter 'nope'");
    expect_cli_error("ranking " + example_path() + " --poi nope", "unknown parameter 'nope'");
}

TEST_F(Errors, FixedParameterProfiled) {
    infer::DiagnosticOptions o;
    o.config = infer::FitConfig::suggested(model_);
    o.config.fixed[0] = true;
    const std::string name = model_.par_names()[0];
    EXPECT_NE(input_error([&] { infer::profile_scan(model_, data_, {{name, {-0.5, 0.5}}}, o); }).find("is fixed"),
              std::string::npos);
    EXPECT_NE(input_error([&] { infer::minos(model_, data_, {name}, o); }).find("is fixed"), std::string::npos);
    const std::string file = write_temp("fixed.json", kFixedNuisance);
    expect_cli_error("profile " + file + " --par syst --range -1,1,5", "syst: the parameter is fixed");
    std::filesystem::remove(file);
}

TEST_F(Errors, RangeOutsideTheBounds) {
    // mu is bounded to [0, 10].
    EXPECT_NE(input_error([&] { infer::profile_scan(model_, data_, {infer::ScanAxis::linear("mu", -1.0, 2.0, 4)}); })
                  .find("the scan value -1 is outside the parameter's bounds [0, 10]"),
              std::string::npos);
    expect_cli_error("profile " + example_path() + " --par mu --range -1,2,4", "outside the parameter's bounds [0, 10]");
    expect_cli_error("profile " + example_path() + " --par mu --range 0,20,4", "is outside the parameter's bounds [0, 10]");
}

TEST_F(Errors, MalformedScanRequests) {
    expect_cli_error("profile " + example_path() + " --par mu --range 0,2", "expected LO,HI,N");
    expect_cli_error("profile " + example_path() + " --par mu --range 2,0,5", "HI must be above LO");
    expect_cli_error("profile " + example_path() + " --par mu --range 0,2,1", "N must be between 2");
    expect_cli_error("profile " + example_path() + " --par mu --par lumi --range 0,2,5", "one --range per --par");
    EXPECT_NE(input_error([&] {
                  infer::profile_scan(model_, data_, {{"mu", {0.0, 1.0}}, {"lumi", {1.0, 1.01}}, {"jes", {0.0, 1.0}}});
              }).find("one or two parameters"),
              std::string::npos);
    EXPECT_NE(input_error([&] { infer::profile_scan(model_, data_, {{"mu", {0.0, 1.0}}, {"mu", {0.0, 1.0}}}); })
                  .find("scanned twice"),
              std::string::npos);
    EXPECT_NE(input_error([&] { infer::profile_scan(model_, data_, {{"mu", {1.0}}}); }).find("at least 2 values"),
              std::string::npos);
}

TEST(ErrorsRanking, NoFreeNuisanceParameter) {
    for (const char* text : {kNoNuisance, kFixedNuisance}) {
        const Model m = model_of(text);
        const auto data = m.data_from_observations(Workspace::load_string(text).spec().observations);
        EXPECT_NE(input_error([&] { infer::ranking(m, data); }).find("no free nuisance parameter"), std::string::npos);
        const std::string file = write_temp("nonuisance.json", text);
        expect_cli_error("ranking " + file, "no free nuisance parameter");
        std::filesystem::remove(file);
    }
}

TEST_F(Errors, BadSizesAndMissingFiles) {
    EXPECT_NE(input_error([&] { infer::yields_at(model_, data_, {1.0, 2.0}, {0.1, 0.1}, {}); }).find("need"),
              std::string::npos);
    EXPECT_NE(input_error([&] { infer::pulls(model_, {1.0, 2.0}); }).find("data"), std::string::npos);
    for (const char* cmd : {"pulls", "ranking", "yields", "gof", "profile"}) {
        std::string args = std::string(cmd) + " /nonexistent/ws.json";
        if (std::string(cmd) == "profile") args += " --par mu --range 0,1,3";
        expect_cli_error(args, "/nonexistent/ws.json");
    }
}

}  // namespace
}  // namespace hf::test
