// combine / prune / rename / sorted against pyhf's results (tests/reference/workspace/reference.json), and the
// hfcore workspace subcommands against pyhf's CLI output, byte for byte.
#include <gtest/gtest.h>

#include <filesystem>

#include "hfcore/patch.hpp"
#include "hfcore/workspace.hpp"
#include "workspace_test_util.hpp"

namespace {

using hf::json::Value;

std::vector<std::pair<std::string, std::string>> pairs(const Value* v) {
    std::vector<std::pair<std::string, std::string>> out;
    if (v)
        for (const auto& p : v->as_array()) out.emplace_back(p[0].as_string(), p[1].as_string());
    return out;
}

std::vector<std::string> strings(const Value* v) {
    std::vector<std::string> out;
    if (v)
        for (const auto& s : v->as_array()) out.push_back(s.as_string());
    return out;
}

hf::RenameOptions rename_options(const Value& r) {
    return {pairs(r.find("modifiers")), pairs(r.find("samples")), pairs(r.find("channels")), pairs(r.find("measurements"))};
}

// Rebuilds an input of a reference case exactly as make_digests.py does.
hf::Workspace build_input(const Value& in) {
    auto ws = hf::Workspace::load_file(hf::test::shared_path(in["file"].as_string()));
    if (const Value* ps = in.find("patchset"))
        ws = hf::PatchSet::load_file(hf::test::shared_path((*ps)["file"].as_string())).apply(ws, (*ps)["name"].as_string());
    if (const Value* r = in.find("rename")) ws = ws.rename(rename_options(*r));
    if (const Value* poi = in.find("poi")) {
        Value doc = ws.json();
        for (auto& m : doc.as_object().at("measurements").as_array())
            m.as_object().at("config").as_object().set("poi", *poi);
        ws = hf::Workspace(doc, ws.source());
    }
    return ws;
}

hf::Workspace run(const Value& c) {
    const std::string& op = c["op"].as_string();
    if (op == "combine") {
        const Value* merge = c.find("merge_channels");
        return hf::Workspace::combine(build_input(c["left"]), build_input(c["right"]), hf::parse_join(c["join"].as_string()),
                                      merge && merge->as_bool());
    }
    if (op == "prune") {
        const Value& a = c["args"];
        hf::PruneOptions o{strings(a.find("modifiers")), strings(a.find("modifier_types")), strings(a.find("samples")),
                           strings(a.find("channels")), strings(a.find("measurements"))};
        return build_input(c["input"]).prune(o);
    }
    if (op == "rename") return build_input(c["input"]).rename(rename_options(c["args"]));
    if (op == "sorted") return build_input(c["input"]).sorted();
    throw std::runtime_error("unknown op " + op);
}

TEST(Operations, CombinePruneRenameSortedLikePyhf) {
    HF_REQUIRE_SHARED();
    const auto& cases = hf::test::workspace_reference()["operations"].as_array();
    ASSERT_GT(cases.size(), 25u);
    int errors = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const Value& c = cases[i];
        SCOPED_TRACE("case " + std::to_string(i) + ": " + hf::json::dump(c));
        const Value& expected = c["result"];
        if (const Value* err = expected.find("error")) {
            ++errors;
            try {
                run(c);
                ADD_FAILURE() << "pyhf raised " << err->as_string() << ": " << expected["message"].as_string();
            } catch (const hf::Error& e) {
                // Same wording as pyhf up to Python's set/list formatting.
                const std::string& msg = expected["message"].as_string();
                const std::string head = msg.substr(0, msg.find_first_of(":{["));
                EXPECT_NE(std::string(e.what()).find(head), std::string::npos) << e.what() << "\nvs pyhf: " << msg;
            }
            continue;
        }
        const auto ws = run(c);
        EXPECT_EQ(ws.digest(), expected["digest"].as_string());
        EXPECT_EQ(ws.channel_names(), strings(expected.find("channels")));
        EXPECT_EQ(ws.sample_names(), strings(expected.find("samples")));
    }
    EXPECT_EQ(errors, 7);
}

TEST(Operations, MergeChannelsNeedsAnOuterJoin) {
    HF_REQUIRE_SHARED();
    const auto ws = hf::Workspace::load_file(hf::test::shared_path("validation/pyhf-validation/2bin_2channel/workspace.json"));
    EXPECT_THROW(hf::Workspace::combine(ws, ws, hf::Join::None, true), hf::Error);
    EXPECT_THROW(hf::parse_join("inner"), hf::Error);
}

// Like pyhf, a combination may hold what no model can be built from (here one shapesys in two channels):
// combine accepts it, model_spec names the problem.
TEST(Operations, CombinedCopiesShareAShapesys) {
    HF_REQUIRE_SHARED();
    const auto ws = hf::Workspace::load_file(hf::test::shared_path("validation/pyhf-validation/2bin_2channel/workspace.json"));
    hf::RenameOptions r;
    r.channels = {{"signal", "signal_b"}, {"control", "control_b"}};
    r.measurements = {{"Measurement", "Measurement_b"}};
    const auto both = hf::Workspace::combine(ws, ws.rename(r), hf::Join::None);
    EXPECT_EQ(both.channel_names().size(), 4u);
    EXPECT_INPUT_ERROR(both.model_spec(), "channels[2].samples[1].modifiers[0]", "cannot be shared between samples");
}

TEST(Cli, WorkspaceCommandsPrintWhatPyhfPrints) {
    HF_REQUIRE_SHARED();
    const auto& runs = hf::test::workspace_reference()["cli"].as_array();
    ASSERT_GE(runs.size(), 13u);
    const auto tmp = std::filesystem::temp_directory_path() / ("hfcore_ws_cli_" + std::to_string(::getpid()));
    std::filesystem::create_directories(tmp);
    for (const auto& r : runs) {
        std::string args;
        bool to_file = false;
        for (const auto& a : r["args"].as_array()) {
            std::string s = a.as_string();
            if (s == "<file>") {
                s = (tmp / "out.json").string();
                to_file = true;
            }
            args += hf::test::quote(s) + " ";
        }
        SCOPED_TRACE(args);
        const auto res = hf::test::run_cli(args, hf::test::shared_dir());
        EXPECT_EQ(res.status, 0);
        if (to_file)
            EXPECT_EQ(hf::test::read_text(tmp / "out.json"), r["file"].as_string());
        else
            EXPECT_EQ(res.out, r["stdout"].as_string());
    }
    std::filesystem::remove_all(tmp);
}

TEST(Cli, ErrorsNameFileAndPath) {
    const auto res = hf::test::run_cli("digest " + (hf::test::malformed_dir() / "07_histosys_length.json").string(),
                                       hf::test::source_dir(), true);
    EXPECT_EQ(res.status, 2);
    EXPECT_NE(res.out.find("07_histosys_length.json: channels[0].samples[1].modifiers[1].data.hi_data: 3 numbers"),
              std::string::npos)
        << res.out;
    const auto ok = hf::test::run_cli("digest -a md5 -a sha256 -j " + (hf::test::malformed_dir() / "00_valid.json").string(),
                                      hf::test::source_dir());
    EXPECT_EQ(ok.status, 0);
    EXPECT_EQ(hf::json::parse(ok.out).as_object().size(), 2u);
    const auto bad_alg = hf::test::run_cli("digest -a sha999 " + (hf::test::malformed_dir() / "00_valid.json").string(),
                                           hf::test::source_dir(), true);
    EXPECT_EQ(bad_alg.status, 2);
    EXPECT_NE(bad_alg.out.find("unknown hash algorithm 'sha999'"), std::string::npos) << bad_alg.out;
}

}  // namespace
