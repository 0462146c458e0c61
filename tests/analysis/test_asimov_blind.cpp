// Asimov data (hf::asimov_data, --data asimov) and blinded runs (--blind) on examples/workspaces/example.json:
// a fit to Asimov data returns the injected POI, blinded outputs hold neither the POI's fitted value nor the
// observed data of the blinded channels, and bad options exit with status 2 before anything is written.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli_run.hpp"
#include "hfcore/asimov.hpp"
#include "hfcore/infer.hpp"
#include "hfcore/loader.hpp"
#include "hfcore/workspace.hpp"

namespace hf::test {
namespace {

std::string example() { return (source_dir() / "examples" / "workspaces" / "example.json").string(); }

struct Example {
    Workspace ws = Workspace::load_file(example());
    Model model{ws.model_spec(ModelRequest{}), load_backend("cpu")};
    std::vector<double> data = model.data_from_observations(ws.spec().observations);
    std::size_t poi() const { return static_cast<std::size_t>(model.poi_index()); }
};

TEST(Asimov, NominalFitReturnsTheInjectedPoi) {
    Example e;
    for (double mu : {0.0, 0.7, 1.3, 2.5}) {
        const auto r = infer::fit(e.model, asimov_data(e.model, mu));
        ASSERT_TRUE(r.converged) << r.reason;
        EXPECT_NEAR(r.bestfit[e.poi()], mu, 1e-6) << "mu = " << mu;
    }
}

TEST(Asimov, FittedNuisanceParametersFitReturnsTheInjectedPoi) {
    Example e;
    for (double mu : {0.0, 1.3}) {
        std::vector<double> pars;
        const auto asimov = infer::asimov_data(mu, e.model, e.data, {}, {}, &pars);
        EXPECT_EQ(pars[e.poi()], mu);
        // The Asimov data are the expected data at the fixed-POI fit: its minimum is that point.
        const auto r = infer::fit(e.model, asimov);
        ASSERT_TRUE(r.converged) << r.reason;
        EXPECT_NEAR(r.bestfit[e.poi()], mu, 1e-6) << "mu = " << mu;
    }
}

TEST(Asimov, DataLayoutAndErrors) {
    Example e;
    const auto a = asimov_data(e.model, e.model.suggested_init());
    EXPECT_EQ(a.size(), e.data.size());
    EXPECT_EQ(a, e.model.expected_data(e.model.suggested_init(), true));
    EXPECT_THROW(asimov_data(e.model, std::vector<double>{1.0}), InputError);
    EXPECT_THROW(asimov_data(e.model, 11.0), InputError);  // the POI's bounds are [0, 10]
}

double json_poi(const CliRun& r) { return json::parse(r.out)["mle_parameters"]["mu"][0].as_double(); }

TEST(AsimovCli, FitReturnsTheInjectedPoi) {
    for (const char* np : {"nominal", "fitted"}) {
        const auto r = run_cli("fit " + example() + " --data asimov --asimov-mu 1.3 --asimov-np " + np);
        ASSERT_EQ(r.rc, 0) << r.err;
        EXPECT_NEAR(json_poi(r), 1.3, 1e-6) << np;
        const auto j = json::parse(r.out);
        EXPECT_EQ(j["dataset"]["kind"].as_string(), "asimov");
        EXPECT_EQ(j["dataset"]["asimov_np"].as_string(), np);
    }
}

TEST(AsimovCli, EveryDataCommandTakesAsimov) {
    const std::string a = " --data asimov --asimov-mu 1.0";
    for (const std::string cmd : {"pulls", "yields", "gof", "cls", "significance", "upper-limit"}) {
        const auto r = run_cli(cmd + " " + example() + a);
        EXPECT_EQ(r.rc, 0) << cmd << ": " << r.err;
        EXPECT_NE(r.out.find("\"asimov\""), std::string::npos) << cmd;
    }
}

// Exit status 2, the option named, and no output file.
void expect_refused(const std::string& args, const std::string& words) {
    const auto out = std::filesystem::temp_directory_path() / "hfcore_analysis_refused.json";
    std::filesystem::remove(out);
    const auto r = run_cli(args + " --output-file " + out.string());
    EXPECT_EQ(r.rc, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << args << "\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << args;
}

TEST(AsimovCli, BadOptionsExit2) {
    expect_refused("fit " + example() + " --data asimov --asimov-mu 11", "--asimov-mu");
    expect_refused("fit " + example() + " --asimov-mu 1", "only with --data asimov");
    expect_refused("fit " + example() + " --asimov-np fitted", "only with --data asimov");
    expect_refused("fit " + example() + " --data toys", "--data");
    expect_refused("fit " + example() + " --blind 'NOPE*'", "matches no channel");
    expect_refused("yields " + example() + " --postfit --blind SR", "--blind");
}

// The unblinded numbers that must not appear: the POI's fitted value and the observed CLs / p-value.
struct Secrets {
    std::string mu_hat, cls_obs, p0_obs;
};

std::string digits(double v) {  // the first 8 significant digits, as any JSON writer starts them
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.8g", v);
    std::string s = buf;
    return s.substr(0, s.size() - 1);  // the last digit may round differently
}

Secrets secrets() {
    Secrets s;
    s.mu_hat = digits(json_poi(run_cli("fit " + example())));
    s.cls_obs = digits(json::parse(run_cli("cls " + example()).out)["CLs_obs"].as_double());
    s.p0_obs = digits(json::parse(run_cli("significance " + example()).out)["p0_obs"].as_double());
    return s;
}

TEST(Blind, OutputsHideThePoiAndTheBlindedData) {
    const auto s = secrets();
    ASSERT_GT(s.mu_hat.size(), 4u);
    const auto dir = std::filesystem::temp_directory_path() / ("hfcore_blind_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::vector<std::string> runs = {
        "fit " + example() + " --blind SR --uncertainties --minos mu",
        "pulls " + example() + " --blind SR",
        "ranking " + example() + " --blind SR",
        "yields " + example() + " --blind 'S*'",
        "yields " + example() + " --blind SR --table text",
        "yields " + example() + " --blind SR --table csv",
        "yields " + example() + " --blind SR --postfit --data asimov --table markdown",
        "profile " + example() + " --blind SR --par mu --range 0,3,4",
        "gof " + example() + " --blind SR",
        "cls " + example() + " --blind SR",
        "significance " + example() + " --blind SR",
        "upper-limit " + example() + " --blind SR",
        "breakdown " + example() + " --blind SR",
        "breakdown " + example() + " --blind SR --table text",
    };
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto file = dir / ("out" + std::to_string(i));
        const auto r = run_cli(runs[i] + " --output-file " + file.string());
        ASSERT_EQ(r.rc, 0) << runs[i] << "\n" << r.err;
        const std::string text = read_text(file);
        SCOPED_TRACE(runs[i] + "\n" + text.substr(0, 2000));
        EXPECT_NE(text.find("blinded"), std::string::npos);
        EXPECT_EQ(text.find(s.mu_hat), std::string::npos) << "the POI's fitted value " << s.mu_hat;
        EXPECT_EQ(text.find(s.cls_obs), std::string::npos) << "the observed CLs " << s.cls_obs;
        EXPECT_EQ(text.find(s.p0_obs), std::string::npos) << "the observed p0 " << s.p0_obs;
        if (text.front() == '{') {  // JSON: the SR's data entry is hidden
            const auto j = json::parse(text);
            if (const auto* ch = j.find("channels"))
                for (const auto& c : ch->as_array())
                    if (c["name"].as_string() == "SR") {
                        EXPECT_TRUE(c["data"].is_string());
                    }
        } else if (runs[i].find("--data asimov") == std::string::npos) {  // tables: no SR data, 47 and 29
            EXPECT_EQ(text.find("47.00"), std::string::npos);
            EXPECT_EQ(text.find("29.00"), std::string::npos);
            EXPECT_EQ(text.find(",data,47"), std::string::npos);
        }
    }
    std::filesystem::remove_all(dir);
}

// scan: every patch's observed CLs and the count excluded by them.
TEST(Blind, ScanHidesObservedResults) {
    const auto s = secrets();
    const auto patch = std::filesystem::temp_directory_path() / ("hfcore_blind_patch_" + std::to_string(::getpid()) +
                                                                 ".json");
    {
        std::ofstream(patch) << R"([{"op": "replace", "path": "/measurements/0/name", "value": "renamed"}])";
    }
    const auto r = run_cli("scan " + example() + " " + patch.string() + " --blind SR");
    std::filesystem::remove(patch);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out.find(s.cls_obs), std::string::npos) << r.out;
    const auto j = json::parse(r.out);
    EXPECT_EQ(j["results"][0]["CLs_obs"].as_string(), "blinded");
    EXPECT_EQ(j["summary"]["n_excluded_obs"].as_string(), "blinded");
    EXPECT_TRUE(j["results"][0]["CLs_exp"].is_array());
}

}  // namespace
}  // namespace hf::test
