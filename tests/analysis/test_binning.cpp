// `hfcore yields --binning FILE`: the channels' edges and labels go into the JSON (for plots in the observable);
// a bad file (unreadable, not JSON, an unknown channel, a wrong number of edges, edges that do not increase)
// exits with status 2, names the file and the JSON path, and writes nothing.
#include <filesystem>
#include <fstream>

#include "cli_run.hpp"
#include "hfcore/json.hpp"

namespace hf::test {
namespace {

std::string example() { return (source_dir() / "examples" / "workspaces" / "example.json").string(); }

std::string write_file(const std::string& name, const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() / ("hfcore_binning_" + std::to_string(::getpid()) + name);
    std::ofstream(path) << text;
    return path.string();
}

TEST(Binning, EdgesAndLabelsReachTheJson) {
    const auto file = write_file("ok.json", R"({"SR": {"edges": [0, 50, 120], "label": "m_T [GeV]"},
                                                "CR_wjets": [10, 20]})");
    const auto r = run_cli("yields " + example() + " --binning " + file);
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = json::parse(r.out);
    int seen = 0;
    for (const auto& c : j["channels"].as_array()) {
        const std::string name = c["name"].as_string();
        if (name == "SR") {
            EXPECT_EQ(c["edges"], json::parse("[0, 50, 120]"));
            EXPECT_EQ(c["label"].as_string(), "m_T [GeV]");
            ++seen;
        } else if (name == "CR_wjets") {
            EXPECT_EQ(c["edges"], json::parse("[10, 20]"));
            EXPECT_EQ(c.find("label"), nullptr);
            ++seen;
        } else {
            EXPECT_EQ(c.find("edges"), nullptr) << name;
        }
    }
    EXPECT_EQ(seen, 2);
    std::filesystem::remove(file);
}

TEST(Binning, BadFilesExit2NamingWhere) {
    const auto out = std::filesystem::temp_directory_path() / "hfcore_binning_out.json";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({"VR": [0, 1]})", "VR: the model has no channel 'VR'"},
        {R"({"SR": [0, 1]})", "SR: 2 edges for the 2 bins"},
        {R"({"SR": {"edges": [0, 2, 1]}})", "SR.edges[2]: edges must increase strictly"},
        {R"({"SR": {"edges": [0, "a", 1]}})", "SR.edges[1]: expected a finite number"},
        {R"({"SR": {"label": "x"}})", "SR: missing 'edges'"},
        {R"([0, 1])", "expected an object"},
        {R"({"SR": [0, 1)", "binning_"},  // not JSON: the parser names the file
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto file = write_file("bad" + std::to_string(i) + ".json", cases[i].first);
        std::filesystem::remove(out);
        const auto r = run_cli("yields " + example() + " --binning " + file + " --output-file " + out.string());
        EXPECT_EQ(r.rc, 2) << cases[i].first << "\n" << r.err;
        EXPECT_NE(r.err.find(cases[i].second), std::string::npos) << cases[i].first << "\n" << r.err;
        EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(out));
        std::filesystem::remove(file);
    }
    const auto r = run_cli("yields " + example() + " --binning /nonexistent/binning.json");
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("binning"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace hf::test
