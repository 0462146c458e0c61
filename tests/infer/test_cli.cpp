// The inference subcommands of the `hfcore` program: pyhf's output format (JSON, indent 4, sorted keys; the
// inspect table), pyhf's numbers on examples/workspaces/example.json, and scan over patch files and PatchSets.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "cli_run.hpp"
#include "infer_support.hpp"

namespace hf::test {
namespace {

std::string example() { return (source_dir() / "examples" / "workspaces" / "example.json").string(); }
std::filesystem::path reference(const char* name) { return source_dir() / "tests" / "reference" / "infer" / name; }

// Agreement with pyhf on example.json with tight fits (tests/reference/infer/example.json "tight"), about 10x the
// largest difference measured (printed as "[ agreement ]"):
constexpr double kCliClsRel = 5e-6;  // CLs_obs and CLs_exp: measured 4.4e-7
constexpr double kCliNll = 2.5e-10;  // twice_nll (absolute): measured 2.3e-11
constexpr double kCliLimitRel = 1e-6;  // upper limits, --rtol 1e-9: measured 1.1e-7
constexpr double kCliP0Rel = 2e-6;  // p0 observed and expected: measured 1.9e-7
constexpr double kCliSignificance = 5e-7;  // Z against scipy's norm.isf of pyhf's p0 (absolute): measured 4.7e-8

CliRun run(const std::string& args) { return run_cli(args); }

// A run that must fail: exactly this exit status (a signal or crash, rc < 0, never matches), nothing on standard
// output, and standard error holding `message` (never empty: "" is found in any output).
void expect_failure(const CliRun& r, int rc, const std::string& message) {
    ASSERT_FALSE(message.empty()) << "an empty expected message matches any output";
    EXPECT_GE(r.rc, 0) << "killed by signal " << -r.rc;
    EXPECT_EQ(r.rc, rc) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find(message), std::string::npos) << "standard error lacks '" << message << "': " << r.err;
}

std::vector<std::string> keys(const json::Value& v) {
    std::vector<std::string> k;
    for (const auto& [key, _] : v.as_object()) k.push_back(key);
    return k;
}

// Text with every number replaced by N: the layout pyhf prints.
std::string layout(const std::string& s) {
    static const std::regex number(R"(-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?)");
    return std::regex_replace(s, number, "N");
}

TEST(Cli, ClsPrintsPyhfsFormatAndNumbers) {
    auto r = run("cls " + example());
    ASSERT_EQ(r.rc, 0) << r.err;
    const std::string pyhf_text = read_text(reference("example_cls.txt"));
    EXPECT_EQ(layout(r.out), layout(pyhf_text));
    auto ours = json::parse(r.out);
    EXPECT_EQ(keys(ours), (std::vector<std::string>{"CLs_exp", "CLs_obs"}));
    // The numbers against pyhf with tight fits (pyhf's default fits, in the text above, stop ~1e-8 above the
    // minimum).
    const auto& tight = example_reference()["tight"];
    double worst = rel(ours["CLs_obs"].as_double(), tight["CLs_obs"].as_double());
    for (int i = 0; i < 5; ++i) worst = std::max(worst, rel(ours["CLs_exp"][i].as_double(), tight["CLs_exp"][i].as_double()));
    report_agreement("hfcore cls", "CLs obs and exp (rel)", worst, kCliClsRel);
    EXPECT_LE(worst, kCliClsRel);
    // --test-poi, --test-stat, --output-file
    const auto out = std::filesystem::temp_directory_path() / "hfcore_test_cls.json";
    auto r2 = run("cls " + example() + " --test-poi 2.0 --test-stat q --output-file " + out.string());
    ASSERT_EQ(r2.rc, 0) << r2.err;
    EXPECT_TRUE(r2.out.empty());
    // pyhf's warning for q with the POI bounded at zero, and nothing else.
    EXPECT_EQ(r2.err, "hfcore: warning: qmu test statistic used for fit configuration with POI bounded at zero. Use the "
                      "qmu_tilde test statistic (--test-stat qtilde) instead.\n");
    auto doc = json::parse_file(out.string());
    EXPECT_LT(doc["CLs_obs"].as_double(), ours["CLs_obs"].as_double());
    std::filesystem::remove(out);
}

TEST(Cli, InspectStartsWithPyhfsTable) {
    auto r = run("inspect " + example());
    ASSERT_EQ(r.rc, 0);
    const std::string pyhf_text = read_text(reference("example_inspect.txt"));
    ASSERT_GE(r.out.size(), pyhf_text.size());
    EXPECT_EQ(r.out.substr(0, pyhf_text.size()), pyhf_text);
    EXPECT_NE(r.out.find("ttbar_shape  1.0 (x2)"), std::string::npos) << r.out;
    auto j = run("inspect " + example() + " --json");
    ASSERT_EQ(j.rc, 0);
    auto doc = json::parse(j.out);
    EXPECT_EQ(doc["channels"].as_array().size(), 3u);
    EXPECT_EQ(doc["samples"].as_array().size(), 4u);
    EXPECT_EQ(doc["parameters"].as_array().size(), 12u);
    EXPECT_EQ(doc["poi"].as_string(), "mu");
    EXPECT_EQ(doc["modifiers"]["wjets_extrapolation"].as_string(), "shapesys");
}

TEST(Cli, FitAndEval) {
    auto r = run("fit " + example() + " --uncertainties");
    ASSERT_EQ(r.rc, 0) << r.out;
    auto doc = json::parse(r.out);
    // pyhf's keys, and hfcore's convergence and basin search (FitResult::basin_candidates, other_basin).
    EXPECT_EQ(keys(doc), (std::vector<std::string>{"basin_candidates", "converged", "correlations", "mle_parameters",
                                                   "other_basin", "reason", "twice_nll", "uncertainties"}));
    EXPECT_EQ(doc["basin_candidates"].as_double(), 0.0);  // no multimodal parameter in example.json
    EXPECT_FALSE(doc["other_basin"].as_bool());
    EXPECT_TRUE(doc["converged"].as_bool());
    EXPECT_EQ(doc["mle_parameters"]["staterror_SR"].as_array().size(), 2u);
    const auto& ref = example_reference();
    const double d_nll = std::abs(doc["twice_nll"].as_double() - ref["tight"]["mle"]["twice_nll"].as_double());
    report_agreement("hfcore fit", "twice_nll", d_nll, kCliNll);
    EXPECT_LE(d_nll, kCliNll);
    EXPECT_EQ(doc["correlations"]["matrix"].as_array().size(), 16u);

    // eval at the best fit: logpdf = -twice_nll / 2, gradient ~ 0 for parameters inside their bounds.
    const auto pars = std::filesystem::temp_directory_path() / "hfcore_test_fit.json";
    {
        std::ofstream f(pars);
        f << r.out;
    }
    auto e = run("eval " + example() + " --pars " + pars.string());
    ASSERT_EQ(e.rc, 0) << e.out;
    auto ev = json::parse(e.out);
    EXPECT_EQ(keys(ev), (std::vector<std::string>{"expected_actualdata", "expected_auxdata", "gradient", "logpdf",
                                                  "par_order", "pars"}));
    EXPECT_NEAR(ev["logpdf"].as_double(), -0.5 * doc["twice_nll"].as_double(), 1e-9);
    for (const auto& g : ev["gradient"].as_array()) EXPECT_LT(std::abs(g.as_double()), 1e-2);
    EXPECT_EQ(ev["expected_actualdata"].as_array().size(), 5u);
    std::filesystem::remove(pars);
    // eval at the suggested init equals pyhf's logpdf there.
    auto i = run("eval " + example() + " --init");
    ASSERT_EQ(i.rc, 0);
    EXPECT_NEAR(json::parse(i.out)["logpdf"].as_double(), ref["logpdf_suggested_init"].as_double(), 1e-10);
}

TEST(Cli, UpperLimitAndSignificance) {
    const auto& tight = example_reference()["tight"];
    auto r = run("upper-limit " + example() + " --rtol 1e-9");
    ASSERT_EQ(r.rc, 0) << r.err;
    auto doc = json::parse(r.out);
    EXPECT_EQ(keys(doc), (std::vector<std::string>{"exp", "obs"}));
    double worst = rel(doc["obs"].as_double(), tight["upper_limit"]["obs"].as_double());
    for (int i = 0; i < 5; ++i)
        worst = std::max(worst, rel(doc["exp"][i].as_double(), tight["upper_limit"]["exp"][i].as_double()));
    report_agreement("hfcore upper-limit", "limits (rel)", worst, kCliLimitRel);
    EXPECT_LE(worst, kCliLimitRel);
    auto g = run("upper-limit " + example() + " --scan 0,6,25");
    ASSERT_EQ(g.rc, 0) << g.err;
    auto gd = json::parse(g.out);
    // Linear interpolation of CLs(mu) on a grid of step 0.25: 1.9e-2 from the root measured (its curvature), not an
    // agreement that tighter fits would improve.
    EXPECT_NEAR(gd["obs"].as_double(), doc["obs"].as_double(), 0.05);
    // With --scan the CLs curve it scanned comes along (hfcore-plot brazil draws it), the limits on it.
    EXPECT_EQ(keys(gd), (std::vector<std::string>{"exp", "level", "obs", "poi", "scan"}));
    EXPECT_EQ(gd["poi"].as_string(), "mu");
    const auto& mu = gd["scan"]["values"].as_array();
    const auto& cls = gd["scan"]["CLs_obs"].as_array();
    ASSERT_EQ(mu.size(), 25u);
    ASSERT_EQ(cls.size(), 25u);
    ASSERT_EQ(gd["scan"]["CLs_exp"].as_array().size(), 25u);
    EXPECT_EQ(gd["scan"]["CLs_exp"][3].as_array().size(), 5u);
    EXPECT_DOUBLE_EQ(mu[24].as_double(), 6.0);
    std::size_t i = 1;
    while (i < cls.size() && cls[i].as_double() >= 0.05) ++i;
    ASSERT_LT(i, cls.size());
    const double m0 = mu[i - 1].as_double(), c0 = cls[i - 1].as_double();
    const double crossing = m0 + (0.05 - c0) * (mu[i].as_double() - m0) / (cls[i].as_double() - c0);
    EXPECT_NEAR(crossing, gd["obs"].as_double(), 1e-9);
    // significance: p0 observed and expected against pyhf, Z against scipy's norm.isf of pyhf's p0 (not the
    // library's own normal_isf).
    auto s = run("significance " + example());
    ASSERT_EQ(s.rc, 0) << s.err;
    auto sd = json::parse(s.out);
    EXPECT_EQ(keys(sd), (std::vector<std::string>{"p0_exp", "p0_obs", "significance_exp", "significance_obs"}));
    double d_p0 = rel(sd["p0_obs"].as_double(), tight["p0_obs"].as_double());
    double d_z = std::abs(sd["significance_obs"].as_double() - tight["significance_obs"].as_double());
    for (int k = 0; k < 5; ++k) {
        d_p0 = std::max(d_p0, rel(sd["p0_exp"][k].as_double(), tight["p0_exp"][k].as_double()));
        d_z = std::max(d_z, std::abs(sd["significance_exp"][k].as_double() - tight["significance_exp"][k].as_double()));
    }
    report_agreement("hfcore significance", "p0 obs and exp (rel)", d_p0, kCliP0Rel);
    report_agreement("hfcore significance", "Z obs and exp (abs)", d_z, kCliSignificance);
    EXPECT_LE(d_p0, kCliP0Rel);
    EXPECT_LE(d_z, kCliSignificance);
}

// Every exit status docs/user-guide.md documents, with its message; a signal or crash never counts as the
// expected failure. 130 and 143 (interrupted runs) are tested in tests/run/test_cli_interrupt.cpp.
TEST(Cli, BadInputsFailWithAMessage) {
    // 2: input errors: a missing file, a bad option value, an unknown backend, an option CLI11 rejects.
    expect_failure(run("cls /nonexistent/ws.json"), 2,
                   "hfcore: error: /nonexistent/ws.json: cannot open file: No such file or directory");
    expect_failure(run("cls " + example() + " --interpcodes normsys=code9"), 2,
                   "hfcore: error: --interpcodes: normsys=code9: 'code9' is not an interpolation code");
    expect_failure(run("cls " + example() + " --backend nosuchbackend"), 2,
                   "hfcore: error: no plugin named 'nosuchbackend' (file libhfcore-backend-nosuchbackend.so) in: ");
    expect_failure(run("cls " + example() + " --no-such-option"), 2,
                   "The following argument was not expected: --no-such-option");
    expect_failure(run("cls " + example() + " --test-poi abc"), 2, "--test-poi: 'abc' is not a number");
    expect_failure(run("cls " + example() + " --calctype magic"), 2, "--calctype: magic not in {asymptotics,toybased}");
    expect_failure(run("no-such-command"), 2, "A subcommand is required");
    // 0 with --help (usage on standard output).
    auto h = run("cls --help");
    EXPECT_EQ(h.rc, 0) << h.err;
    EXPECT_NE(h.out.find("--test-poi"), std::string::npos) << h.out;
}

// 1: a fit that did not converge prints its result, a warning with the reason, and exits with 1 (fit and the
// diagnostics).
// The model: one bin whose histosys (code0, linear) moves it up on both sides, so with fewer events observed than
// expected the likelihood's minimum is the kink at alpha = 0, where no gradient vanishes and Newton cannot
// confirm a minimum.
TEST(Cli, UnconvergedFitExitsWithOne) {
    const auto ws = std::filesystem::temp_directory_path() / ("hfcore_test_kink_" + std::to_string(::getpid()) + ".json");
    std::ofstream(ws) << R"({"channels": [{"name": "c", "samples": [
        {"name": "b", "data": [10.0], "modifiers": [{"name": "kink", "type": "histosys",
                                                      "data": {"hi_data": [15.0], "lo_data": [15.0]}}]},
        {"name": "s", "data": [1.0], "modifiers": [{"name": "mu", "type": "normfactor", "data": null}]}]}],
        "observations": [{"name": "c", "data": [5.0]}],
        "measurements": [{"name": "m", "config": {"poi": "mu", "parameters": []}}], "version": "1.0.0"})";
    auto r = run("fit " + ws.string() + " --interpcodes histosys=code0");
    EXPECT_EQ(r.rc, 1) << r.err << r.out;
    EXPECT_NE(r.err.find("hfcore: warning: the fit did not converge: not converged: edm"), std::string::npos) << r.err;
    auto doc = json::parse(r.out);
    EXPECT_FALSE(doc["converged"].as_bool());
    EXPECT_NE(doc["reason"].as_string().find("not converged"), std::string::npos) << doc["reason"].as_string();
    // The diagnostics too (docs/diagnostics.md): the result printed, the warning, status 1.
    const std::vector<std::pair<std::string, std::string>> diagnostics = {
        {"pulls", "hfcore: warning: the fit did not converge: not converged: edm"},
        {"gof", "hfcore: warning: the fit did not converge: not converged: edm"},
        {"yields --postfit", "hfcore: warning: the fit did not converge: not converged: edm"},
        {"ranking", "hfcore: warning: the free fit did not converge: not converged: edm"},
        {"fit --minos mu", "hfcore: warning: minos mu: not converged: edm"},
    };
    for (const auto& [command, message] : diagnostics) {
        auto d = run(command + " " + ws.string() + " --interpcodes histosys=code0");
        EXPECT_EQ(d.rc, 1) << command << ": " << d.err;
        EXPECT_NE(d.err.find(message), std::string::npos) << command << ": " << d.err;
        EXPECT_NO_THROW(json::parse(d.out)) << command << ": " << d.out;
    }
    std::filesystem::remove(ws);
}

// scan: plain RFC 6902 patch files (named by their stem) and a PatchSet (verified against the digest).
TEST(Cli, ScanPatchFilesAndPatchSet) {
    const auto dir = std::filesystem::temp_directory_path() / "hfcore_test_scan";
    std::filesystem::create_directories(dir);
    const Workspace ws = Workspace::load_file(example());
    auto patch_for = [](double a, double b) {
        std::ostringstream os;
        os << R"([{"op": "replace", "path": "/channels/0/samples/0/data", "value": [)" << a << ", " << b << "]}]";
        return os.str();
    };
    {
        std::ofstream(dir / "patch.weak.json") << patch_for(2.0, 3.0);
        std::ofstream(dir / "strong.json") << patch_for(20.0, 30.0);
        std::ofstream(dir / "patchset.json")
            << R"({"metadata": {"references": {"hepdata": "ins1234567"}, "description": "test signals", "digests": {"sha256": ")"
            << ws.digest("sha256") << R"("}, "labels": ["m"]}, "patches": [)"
            << R"({"metadata": {"name": "m100", "values": [100]}, "patch": )" << patch_for(6.0, 9.0) << "},"
            << R"({"metadata": {"name": "m200", "values": [200]}, "patch": )" << patch_for(1.0, 1.0) << "}"
            << R"(], "version": "1.0.0"})";
    }
    auto r = run("scan " + example() + " " + (dir / "patch.weak.json").string() + " " + (dir / "strong.json").string() +
                 " --threads 2");
    ASSERT_EQ(r.rc, 0) << r.err;
    auto doc = json::parse(r.out);
    const auto& res = doc["results"].as_array();
    ASSERT_EQ(res.size(), 2u);
    EXPECT_EQ(res[0]["name"].as_string(), "weak");
    EXPECT_EQ(res[1]["name"].as_string(), "strong");
    EXPECT_GT(res[0]["CLs_obs"].as_double(), res[1]["CLs_obs"].as_double());
    EXPECT_EQ(doc["summary"]["n_patches"].as_double(), 2.0);
    EXPECT_EQ(doc.as_object().find("labels"), nullptr);  // plain patches have no labels

    auto p = run("scan " + example() + " " + (dir / "patchset.json").string() + " --upper-limit --rtol 1e-9");
    ASSERT_EQ(p.rc, 0) << p.err;
    auto pd = json::parse(p.out);
    const auto& pr = pd["results"].as_array();
    ASSERT_EQ(pr.size(), 2u);
    EXPECT_EQ(pr[0]["name"].as_string(), "m100");
    EXPECT_EQ(pr[0]["values"][0].as_double(), 100.0);
    EXPECT_EQ(pd["labels"][0].as_string(), "m");  // the PatchSet's labels name the values (plot axes)
    // m100 is the example's own signal: the same CLs and limit as the workspace itself.
    const auto& tight = example_reference()["tight"];
    EXPECT_LE(rel(pr[0]["CLs_obs"].as_double(), tight["CLs_obs"].as_double()), kCliClsRel);
    EXPECT_LE(rel(pr[0]["upper_limit"]["obs"].as_double(), tight["upper_limit"]["obs"].as_double()), kCliLimitRel);
    EXPECT_TRUE(pr[1]["converged"].as_bool());
    std::filesystem::remove_all(dir);
}

// The output of a scan does not depend on the number of threads: byte for byte, errors included.
TEST(Cli, ScanOutputIsTheSameForOneAndTwoThreads) {
    const auto dir = std::filesystem::temp_directory_path() / ("hfcore_test_scan_threads_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::string files;
    for (int k = 0; k < 5; ++k) {
        const auto f = dir / ("patch.p" + std::to_string(k) + ".json");
        std::ofstream(f) << R"([{"op": "replace", "path": "/channels/0/samples/0/data", "value": [)" << 2.0 + 4 * k
                         << ", " << 3.0 + 5 * k << "]}]";
        files += " " + f.string();
    }
    files += " " + (dir / "patch.missing.json").string();  // an error point among them
    auto one = run("scan " + example() + files + " --upper-limit --threads 1");
    auto two = run("scan " + example() + files + " --upper-limit --threads 2");
    ASSERT_EQ(one.rc, 1) << one.err;
    ASSERT_EQ(two.rc, 1) << two.err;
    ASSERT_FALSE(one.out.empty());
    EXPECT_EQ(one.out, two.out);
    EXPECT_EQ(json::parse(one.out)["results"].as_array().size(), 6u);
    std::filesystem::remove_all(dir);
}

// A scan with bad patches among good ones: each bad one is that point's error (named in the output and on standard
// error), the others are computed as if alone, and the exit status is 1 (docs/user-guide.md, `hfcore scan`).
TEST(Cli, ScanReportsBadPatchesAndFinishesTheRest) {
    const auto dir = std::filesystem::temp_directory_path() / ("hfcore_test_scan_bad_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto patch = [](double a, double b) {
        std::ostringstream os;
        os << R"([{"op": "replace", "path": "/channels/0/samples/0/data", "value": [)" << a << ", " << b << "]}]";
        return os.str();
    };
    std::ofstream(dir / "patch.good1.json") << patch(6.0, 9.0);
    std::ofstream(dir / "patch.notjson.json") << "[{\"op\": ";
    std::ofstream(dir / "patch.notapatch.json") << R"({"op": "replace"})";
    std::ofstream(dir / "patch.noapply.json") << R"([{"op": "replace", "path": "/channels/7/samples/0/data", "value": [1, 1]}])";
    std::ofstream(dir / "patch.good2.json") << patch(20.0, 30.0);
    const std::vector<std::string> names = {"good1", "missing", "notjson", "notapatch", "noapply", "good2"};
    std::string files;
    for (const auto& n : names) files += " " + (dir / ("patch." + n + ".json")).string();
    auto r = run("scan " + example() + files);
    EXPECT_EQ(r.rc, 1) << r.err;
    auto doc = json::parse(r.out);
    const auto& res = doc["results"].as_array();
    ASSERT_EQ(res.size(), names.size());
    for (std::size_t k = 0; k < names.size(); ++k) EXPECT_EQ(res[k]["name"].as_string(), names[k]);
    const std::map<std::string, std::string> errors = {
        {"missing", "patch.missing.json: cannot open file: No such file or directory"},
        {"notjson", "patch.notjson.json: invalid JSON at line 1, column 9 (byte 8): unexpected end of input"},
        {"notapatch", "patch.notapatch.json: expected an array, got an object"},
        {"noapply", "patch.noapply.json: [0].path: \"/channels/7/samples/0/data\": channels has 3 items, index 7 is out of range"},
    };
    for (const auto& r_k : res) {
        const std::string name = r_k["name"].as_string();
        if (auto e = errors.find(name); e != errors.end()) {
            ASSERT_TRUE(r_k.find("error")) << name;
            EXPECT_NE(r_k["error"].as_string().find(e->second), std::string::npos) << name << ": " << r_k["error"].as_string();
            EXPECT_FALSE(r_k["converged"].as_bool());
            EXPECT_FALSE(r_k.find("CLs_obs")) << name;
            EXPECT_NE(r.err.find("hfcore: warning: " + name + ": "), std::string::npos) << r.err;
        } else {
            EXPECT_FALSE(r_k.find("error")) << name << ": " << r_k["error"].as_string();
            EXPECT_TRUE(r_k["converged"].as_bool()) << name;
        }
    }
    EXPECT_EQ(doc["summary"]["n_errors"].as_double(), 4.0);
    EXPECT_EQ(doc["summary"]["n_patches"].as_double(), 6.0);
    // The good points are what they are in a scan of their own.
    auto alone = run("scan " + example() + " " + (dir / "patch.good1.json").string() + " " + (dir / "patch.good2.json").string());
    ASSERT_EQ(alone.rc, 0) << alone.err;
    const auto alone_doc = json::parse(alone.out);
    const auto& ra = alone_doc["results"].as_array();
    EXPECT_EQ(ra[0]["CLs_obs"].as_double(), res[0]["CLs_obs"].as_double());
    EXPECT_EQ(ra[1]["CLs_obs"].as_double(), res[5]["CLs_obs"].as_double());
    // A PatchSet made for another workspace is no point's error: the scan stops before any work (status 2).
    std::ofstream(dir / "patchset.json")
        << R"({"metadata": {"references": {"hepdata": "ins1234567"}, "description": "d", "digests": {"sha256": ")"
        << std::string(64, '0') << R"("}, "labels": ["m"]}, "patches": [{"metadata": {"name": "a", "values": [1]},)"
        << R"( "patch": )" << patch(1.0, 1.0) << R"(}], "version": "1.0.0"})";
    expect_failure(run("scan " + example() + " " + (dir / "patch.good1.json").string() + " " + (dir / "patchset.json").string()),
                   2, "metadata.digests.sha256: The digest verification failed for hash algorithm 'sha256'");
    std::filesystem::remove_all(dir);
}

// docs/user-guide.md shows examples/external-app/fit_and_cls.cpp (built and run as the test example_fit_and_cls)
// verbatim, so the guide cannot drift from the program that is tested.
TEST(Docs, UserGuideShowsTheTestedExample) {
    const std::string guide = read_text(source_dir() / "docs" / "user-guide.md");
    const std::string program = read_text(source_dir() / "examples" / "external-app" / "fit_and_cls.cpp");
    ASSERT_FALSE(program.empty());
    EXPECT_NE(guide.find(program), std::string::npos)
        << "docs/user-guide.md no longer contains examples/external-app/fit_and_cls.cpp verbatim";
}

}  // namespace
}  // namespace hf::test
