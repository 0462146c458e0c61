// The inference subcommands of the `hfcore` program: pyhf's output format (JSON, indent 4, sorted keys; the
// inspect table), pyhf's numbers on examples/workspaces/example.json, and scan over patch files and PatchSets.
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli_run.hpp"
#include "infer_support.hpp"

namespace hf::test {
namespace {

std::string example() { return (source_dir() / "examples" / "workspaces" / "example.json").string(); }
std::filesystem::path reference(const char* name) { return source_dir() / "tests" / "reference" / "infer" / name; }

struct Run {
    int rc = -1;
    std::string out;  // stdout only
};

Run run(const std::string& args) {
    const CliRun c = run_cli(args);
    return {c.rc, c.out};
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
    ASSERT_EQ(r.rc, 0) << r.out;
    const std::string pyhf_text = read_text(reference("example_cls.txt"));
    EXPECT_EQ(layout(r.out), layout(pyhf_text));
    auto ours = json::parse(r.out), pyhf = json::parse(pyhf_text);
    EXPECT_EQ(keys(ours), (std::vector<std::string>{"CLs_exp", "CLs_obs"}));
    // pyhf's default fits stop ~1e-8 above the minimum: 1e-4 relative covers it.
    EXPECT_LE(rel(ours["CLs_obs"].as_double(), pyhf["CLs_obs"].as_double()), 1e-4);
    for (int i = 0; i < 5; ++i)
        EXPECT_LE(rel(ours["CLs_exp"][i].as_double(), pyhf["CLs_exp"][i].as_double()), 2e-4) << i;
    // --test-poi, --test-stat, --output-file
    const auto out = std::filesystem::temp_directory_path() / "hfcore_test_cls.json";
    auto r2 = run("cls " + example() + " --test-poi 2.0 --test-stat q --output-file " + out.string());
    ASSERT_EQ(r2.rc, 0);
    EXPECT_TRUE(r2.out.empty());
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
    const auto ref = json::parse_file(reference("example.json").string());
    EXPECT_NEAR(doc["twice_nll"].as_double(), ref["mle"]["twice_nll"].as_double(), 1e-4);
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
    const auto ref = json::parse_file(reference("example.json").string());
    auto r = run("upper-limit " + example() + " --rtol 1e-6");
    ASSERT_EQ(r.rc, 0) << r.out;
    auto doc = json::parse(r.out);
    EXPECT_EQ(keys(doc), (std::vector<std::string>{"exp", "obs"}));
    EXPECT_LE(rel(doc["obs"].as_double(), ref["upper_limit"]["obs"].as_double()), 1e-3);
    for (int i = 0; i < 5; ++i)
        EXPECT_LE(rel(doc["exp"][i].as_double(), ref["upper_limit"]["exp"][i].as_double()), 1e-3) << i;
    auto g = run("upper-limit " + example() + " --scan 0,6,25");
    ASSERT_EQ(g.rc, 0) << g.out;
    auto gd = json::parse(g.out);
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
    auto s = run("significance " + example());
    ASSERT_EQ(s.rc, 0) << s.out;
    auto sd = json::parse(s.out);
    EXPECT_LE(rel(sd["p0_obs"].as_double(), ref["p0_obs"].as_double()), 1e-3);
    EXPECT_NEAR(sd["significance_obs"].as_double(), infer::normal_isf(sd["p0_obs"].as_double()), 1e-12);
}

TEST(Cli, BadInputsFailWithAMessage) {
    EXPECT_EQ(run("cls /nonexistent/ws.json").rc, 2);
    EXPECT_NE(run("cls " + example() + " --interpcodes normsys=code9").rc, 0);
    EXPECT_NE(run("cls " + example() + " --backend nosuchbackend").rc, 0);
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
    ASSERT_EQ(r.rc, 0) << r.out;
    auto doc = json::parse(r.out);
    const auto& res = doc["results"].as_array();
    ASSERT_EQ(res.size(), 2u);
    EXPECT_EQ(res[0]["name"].as_string(), "weak");
    EXPECT_EQ(res[1]["name"].as_string(), "strong");
    EXPECT_GT(res[0]["CLs_obs"].as_double(), res[1]["CLs_obs"].as_double());
    EXPECT_EQ(doc["summary"]["n_patches"].as_double(), 2.0);
    EXPECT_EQ(doc.as_object().find("labels"), nullptr);  // plain patches have no labels

    auto p = run("scan " + example() + " " + (dir / "patchset.json").string() + " --upper-limit");
    ASSERT_EQ(p.rc, 0) << p.out;
    auto pd = json::parse(p.out);
    const auto& pr = pd["results"].as_array();
    ASSERT_EQ(pr.size(), 2u);
    EXPECT_EQ(pr[0]["name"].as_string(), "m100");
    EXPECT_EQ(pr[0]["values"][0].as_double(), 100.0);
    EXPECT_EQ(pd["labels"][0].as_string(), "m");  // the PatchSet's labels name the values (plot axes)
    // m100 is the example's own signal: the same CLs and limit as the workspace itself.
    const auto ref = json::parse_file(reference("example.json").string());
    EXPECT_LE(rel(pr[0]["CLs_obs"].as_double(), ref["CLs_obs"].as_double()), 1e-4);
    EXPECT_LE(rel(pr[0]["upper_limit"]["obs"].as_double(), ref["upper_limit"]["obs"].as_double()), 1e-3);
    EXPECT_TRUE(pr[1]["converged"].as_bool());
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
