// HS3: pyhf JSON -> HS3 (written and read back as text) -> pyhf JSON gives the same workspace (digest) and an
// HS3 file read directly gives the same logpdf, on examples/workspaces/example.json and every workspace of
// ../shared/validation/pyhf-validation (the ten validation cases and the sbottom models); `hfcore convert` and
// other commands on HS3 files; what hfcore cannot represent is refused with its JSON path and exit status 2.
#include <filesystem>
#include <fstream>
#include <set>

#include "cli_run.hpp"
#include "hfcore/hs3.hpp"
#include "hfcore/loader.hpp"
#include "hfcore/model.hpp"
#include "hfcore/workspace.hpp"

namespace hf::test {
namespace {

std::string example() { return (source_dir() / "examples" / "workspaces" / "example.json").string(); }

std::vector<std::string> workspaces() {
    std::vector<std::string> out{example()};
    const auto dir = shared_dir() / "validation" / "pyhf-validation";
    if (std::filesystem::exists(dir))
        for (const auto& e : std::filesystem::directory_iterator(dir))
            if (std::filesystem::exists(e.path() / "workspace.json")) out.push_back((e.path() / "workspace.json").string());
    std::sort(out.begin(), out.end());
    return out;
}

double logpdf_at_init(const Workspace& ws) {
    Model m(ws.model_spec(ModelRequest{}), load_backend("cpu"));
    return m.logpdf(m.suggested_init(), m.data_from_observations(ws.spec().observations));
}

TEST(Hs3, RoundTripKeepsDigestAndLogpdf) {
    HF_REQUIRE_SHARED();
    const auto paths = workspaces();
    ASSERT_GE(paths.size(), 17u);  // the example and the 16 validation workspaces (5 sbottom)
    int sbottom = 0;
    for (const auto& path : paths) {
        SCOPED_TRACE(path);
        const Workspace ws = Workspace::load_file(path);
        const json::Value hs3 = json::parse(json::dump_pretty(pyhf_to_hs3(ws.json())), "hs3 text");
        ASSERT_TRUE(is_hs3(hs3));
        const Workspace back(hs3_to_pyhf(hs3, "hs3"), "back");
        EXPECT_EQ(back.digest(), ws.digest());
        const Workspace direct(hs3, "hs3");  // Workspace reads HS3 itself
        EXPECT_EQ(direct.digest(), ws.digest());
        EXPECT_EQ(logpdf_at_init(direct), logpdf_at_init(ws));
        sbottom += path.find("sbottom") != std::string::npos;
    }
    EXPECT_EQ(sbottom, 5);
}

TEST(Hs3, LayoutIsHs3) {
    const json::Value h = pyhf_to_hs3(Workspace::load_file(example()).json());
    EXPECT_EQ(h["metadata"]["hs3_version"].as_string(), "0.2");
    // Three channels, then the Gaussian constraint terms their modifiers name (ROOT's layout, which NextStat needs).
    const auto& d = h["distributions"].as_array();
    ASSERT_GT(d.size(), 3u);
    std::set<std::string> constraints, named;
    for (std::size_t i = 0; i < d.size(); ++i) {
        if (i < 3) {
            EXPECT_EQ(d[i]["type"].as_string(), "histfactory_dist");
            for (const auto& s : d[i]["samples"].as_array())
                for (const auto& m : s["modifiers"].as_array()) {
                    const auto& type = m["type"].as_string();
                    if (type == "normsys" || type == "histosys" || type == "lumi") named.insert(m["constraint_name"].as_string());
                    if (type == "staterror" || type == "shapesys" || type == "shapefactor") {
                        EXPECT_TRUE(m["parameters"].is_array());
                    }
                }
        } else {
            EXPECT_EQ(d[i]["type"].as_string(), "gaussian_dist");
            constraints.insert(d[i]["name"].as_string());
        }
    }
    EXPECT_EQ(constraints, named);
    EXPECT_EQ(h["metadata"]["packages"][0]["version"].as_string().empty(), false);
    EXPECT_EQ(h["likelihoods"][0]["distributions"].as_array().size(), 3u);
    EXPECT_EQ(h["analyses"][0]["parameters_of_interest"][0].as_string(), "mu");
    EXPECT_EQ(h["data"][0]["type"].as_string(), "binned");
    EXPECT_FALSE(h["domains"][0]["axes"].as_array().empty());
}

// hfcore's HS3 before it followed ROOT's layout (no constraint terms, per-bin modifiers with one "parameter", a
// second staterror's uncertainties as data.vals) still reads to the same workspace.
TEST(Hs3, ReadsHfcoresOldLayout) {
    HF_REQUIRE_SHARED();
    for (const auto& path : workspaces()) {
        SCOPED_TRACE(path);
        const Workspace ws = Workspace::load_file(path);
        json::Value h = pyhf_to_hs3(ws.json());
        json::Array kept;
        for (auto& dist : h.as_object().at("distributions").as_array()) {
            if (dist["type"].as_string() != "histfactory_dist") continue;
            for (auto& s : dist.as_object().at("samples").as_array())
                for (auto& m : s.as_object().at("modifiers").as_array()) {
                    auto& o = m.as_object();
                    json::Object old;
                    for (const char* k : {"name", "type", "constraint", "data"})
                        if (o.find(k)) old.set(k, o.at(k));
                    old.set("parameter", o.at("name"));
                    if (old.find("data") && old.at("data").find("uncertainties")) {
                        json::Object vals;
                        vals.set("vals", old.at("data")["uncertainties"]);
                        old.set("data", json::Value(std::move(vals)));
                    }
                    m = json::Value(std::move(old));
                }
            kept.push_back(dist);
        }
        h.as_object().set("distributions", json::Value(std::move(kept)));
        EXPECT_EQ(Workspace(h, "old").digest(), ws.digest());
    }
}

// A document written by another program in ROOT's layout, without hfcore's pyhf_config: the POI, inits and bounds
// come from the analysis, its parameter point and its domain (the global observable "nom_alpha_syst" is no
// parameter); the staterror's uncertainties from the sample's errors, its per-bin parameters ROOT's names.
TEST(Hs3, ReadsAForeignDocument) {
    const json::Value doc = json::parse(R"({
      "distributions": [{"name": "ch", "type": "histfactory_dist",
        "axes": [{"name": "x", "min": 0, "max": 2, "nbins": 2}],
        "samples": [
          {"name": "sig", "data": {"contents": [5.0, 10.0]},
           "modifiers": [{"name": "mu", "type": "normfactor", "parameter": "mu"}]},
          {"name": "bkg", "data": {"contents": [50.0, 60.0], "errors": [5.0, 6.0]},
           "modifiers": [{"name": "mcstat", "type": "staterror", "constraint_type": "Gauss",
                          "parameters": ["gamma_stat_ch_bin_0", "gamma_stat_ch_bin_1"]},
                         {"name": "syst", "type": "normsys", "parameter": "alpha_syst",
                          "constraint_name": "alpha_systConstraint", "data": {"hi": 1.1, "lo": 0.9}}]}]},
        {"name": "alpha_systConstraint", "type": "gaussian_dist", "x": "alpha_syst", "mean": "nom_alpha_syst",
         "sigma": 1.0}],
      "data": [{"name": "obs", "type": "binned", "contents": [52, 71]}],
      "likelihoods": [{"name": "L", "distributions": ["ch"], "data": ["obs"]}],
      "analyses": [{"name": "A", "likelihood": "L", "parameters_of_interest": ["mu"], "domains": ["D"], "init": "P"}],
      "parameter_points": [{"name": "P", "parameters": [{"name": "mu", "value": 1.0},
                                                    {"name": "nom_alpha_syst", "value": 0.0, "const": true}]}],
      "domains": [{"name": "D", "type": "product_domain", "axes": [{"name": "mu", "min": 0, "max": 5}]}]
    })");
    const Workspace ws(doc, "foreign");
    const auto& ch = ws.json()["channels"][0];
    EXPECT_EQ(ch["samples"][1]["modifiers"][0]["name"].as_string(), "staterror_ch");
    EXPECT_EQ(ch["samples"][1]["modifiers"][0]["data"], json::parse("[5.0, 6.0]"));
    EXPECT_EQ(ch["samples"][1]["modifiers"][1]["name"].as_string(), "alpha_syst");
    const auto& config = ws.json()["measurements"][0]["config"];
    EXPECT_EQ(config["poi"].as_string(), "mu");
    ASSERT_EQ(config["parameters"].as_array().size(), 1u);  // mu only: nom_alpha_syst is a global observable
    EXPECT_EQ(config["parameters"][0]["bounds"], json::parse("[[0, 5]]"));
    EXPECT_EQ(config["parameters"][0]["inits"], json::parse("[1.0]"));
    Model m(ws.model_spec(ModelRequest{}), load_backend("cpu"));
    EXPECT_EQ(m.poi_name(), "mu");
    EXPECT_EQ(m.suggested_bounds()[static_cast<std::size_t>(m.poi_index())], std::make_pair(0.0, 5.0));
}

std::string write_file(const std::string& name, const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() / ("hfcore_hs3_" + std::to_string(::getpid()) + name);
    std::ofstream(path) << text;
    return path.string();
}

TEST(Hs3Cli, ConvertAndUse) {
    const auto hs3 = std::filesystem::temp_directory_path() / ("hfcore_hs3_" + std::to_string(::getpid()) + ".json");
    auto r = run_cli("convert --to hs3 " + example() + " -o " + hs3.string());
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_TRUE(is_hs3(json::parse_file(hs3.string())));
    EXPECT_EQ(run_cli("digest " + hs3.string()).out, run_cli("digest " + example()).out);
    const auto back = run_cli("convert --to pyhf " + hs3.string());
    ASSERT_EQ(back.rc, 0) << back.err;
    EXPECT_EQ(digest(json::parse(back.out)), Workspace::load_file(example()).digest());
    const auto a = json::parse(run_cli("fit " + hs3.string()).out);
    const auto b = json::parse(run_cli("fit " + example()).out);
    EXPECT_EQ(a["twice_nll"].as_double(), b["twice_nll"].as_double());
    std::filesystem::remove(hs3);
}

TEST(Hs3Cli, WhatHfcoreCannotRepresentExits2WithItsPath) {
    const auto h = pyhf_to_hs3(Workspace::load_file(example()).json());
    std::string text = json::dump(h);
    auto with = [&](const std::string& from, const std::string& to) {
        std::string t = text;
        const auto at = t.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return t.replace(at, from.size(), to);
    };
    const auto out = std::filesystem::temp_directory_path() / "hfcore_hs3_refused.json";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {with("\"histfactory_dist\"", "\"gaussian_dist\""), "distributions[0].type: distribution type 'gaussian_dist'"},
        {with("\"type\": \"normsys\"", "\"type\": \"custom_mod\""), "modifier type 'custom_mod'"},
        {with("\"likelihoods\"", "\"likelihoodz\""), "missing 'likelihoods'"},
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto file = write_file(std::to_string(i) + ".json", cases[i].first);
        std::filesystem::remove(out);
        const auto r = run_cli("convert --to pyhf " + file + " -o " + out.string());
        EXPECT_EQ(r.rc, 2) << r.err;
        EXPECT_NE(r.err.find(cases[i].second), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(out));
        EXPECT_EQ(run_cli("fit " + file).rc, 2);
        std::filesystem::remove(file);
    }
}

}  // namespace
}  // namespace hf::test
