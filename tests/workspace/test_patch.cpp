// RFC 6902 JSON Patch (the examples of its appendix A) and pyhf's PatchSet rules.
#include <gtest/gtest.h>

#include "hfcore/patch.hpp"
#include "hfcore/workspace.hpp"
#include "workspace_test_util.hpp"

namespace {

using hf::json::parse;

hf::json::Value patched(const char* doc, const char* ops) {
    return hf::JsonPatch(parse(ops), "p.json").apply(parse(doc));
}

TEST(JsonPatch, Rfc6902Examples) {
    EXPECT_EQ(patched(R"({"foo": "bar"})", R"([{"op": "add", "path": "/baz", "value": "qux"}])"),
              parse(R"({"baz": "qux", "foo": "bar"})"));
    EXPECT_EQ(patched(R"({"foo": ["bar", "baz"]})", R"([{"op": "add", "path": "/foo/1", "value": "qux"}])"),
              parse(R"({"foo": ["bar", "qux", "baz"]})"));
    EXPECT_EQ(patched(R"({"baz": "qux", "foo": "bar"})", R"([{"op": "remove", "path": "/baz"}])"),
              parse(R"({"foo": "bar"})"));
    EXPECT_EQ(patched(R"({"foo": ["bar", "qux", "baz"]})", R"([{"op": "remove", "path": "/foo/1"}])"),
              parse(R"({"foo": ["bar", "baz"]})"));
    EXPECT_EQ(patched(R"({"baz": "qux", "foo": "bar"})", R"([{"op": "replace", "path": "/baz", "value": "boo"}])"),
              parse(R"({"baz": "boo", "foo": "bar"})"));
    EXPECT_EQ(patched(R"({"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}})",
                      R"([{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}])"),
              parse(R"({"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}})"));
    EXPECT_EQ(patched(R"({"foo": ["all", "grass", "cows", "eat"]})", R"([{"op": "move", "from": "/foo/1", "path": "/foo/3"}])"),
              parse(R"({"foo": ["all", "cows", "eat", "grass"]})"));
    EXPECT_NO_THROW(patched(R"({"baz": "qux", "foo": ["a", 2, "c"]})",
                            R"([{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}])"));
    EXPECT_EQ(patched(R"({"foo": "bar"})", R"([{"op": "add", "path": "/child", "value": {"grandchild": {}}}])"),
              parse(R"({"foo": "bar", "child": {"grandchild": {}}})"));
    EXPECT_EQ(patched(R"({"foo": ["bar"]})", R"([{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}])"),
              parse(R"({"foo": ["bar", ["abc", "def"]]})"));
    EXPECT_EQ(patched(R"({"/": 9, "~1": 10})", R"([{"op": "test", "path": "/~01", "value": 10}, {"op": "copy", "from": "/~1", "path": "/x"}])"),
              parse(R"({"/": 9, "~1": 10, "x": 9})"));
    EXPECT_EQ(patched(R"({"foo": 1})", R"([{"op": "replace", "path": "", "value": [1]}])"), parse("[1]"));
    EXPECT_EQ(patched(R"({"foo": 1})", R"([{"op": "move", "from": "/foo", "path": "/foo"}])"), parse(R"({"foo": 1})"));
}

TEST(JsonPatch, ErrorsNameTheOperationAndWhatFailed) {
    EXPECT_INPUT_ERROR(patched(R"({"baz": "qux"})", R"([{"op": "test", "path": "/baz", "value": "bar"}])"), "[0].value",
                       "test failed");
    EXPECT_INPUT_ERROR(patched(R"({"foo": "bar"})", R"([{"op": "add", "path": "/baz/bat", "value": "qux"}])"), "[0].path",
                       "the document has no member 'baz'");
    EXPECT_INPUT_ERROR(patched(R"({"a": [1, 2]})", R"([{"op": "add", "path": "/a/5", "value": 0}])"), "[0].path",
                       "cannot insert at index 5, a has 2 items");
    EXPECT_INPUT_ERROR(patched(R"({"a": [1, 2]})", R"([{"op": "remove", "path": "/a/-1"}])"), "[0].path",
                       "no item '-1' to remove in a (2 items)");
    EXPECT_INPUT_ERROR(patched(R"({"a": [1, 2]})", R"([{"op": "add", "path": "/a/01", "value": 0}])"), "[0].path",
                       "'01' is not a valid index");
    EXPECT_INPUT_ERROR(patched(R"({"a": {}})", R"([{"op": "replace", "path": "/a/b", "value": 0}])"), "[0].path",
                       "non-existent member 'b'");
    EXPECT_INPUT_ERROR(patched(R"({"a": {"b": {}}})", R"([{"op": "move", "from": "/a", "path": "/a/b/c"}])"), "[0].path",
                       "into its own child");
    EXPECT_INPUT_ERROR(patched(R"({"a": 1})", R"([{"op": "add", "path": "a", "value": 0}])"), "[0].path",
                       "must be empty or start with '/'");
    EXPECT_INPUT_ERROR(patched(R"({"a": 1})", R"([{"op": "add", "path": "/a~2", "value": 0}])"), "[0].path", "invalid escape");
    EXPECT_INPUT_ERROR(patched(R"({"a": 1})", R"([{"op": "add", "path": "/a/b", "value": 0}])"), "[0].path",
                       "cannot add into a, which is the number 1");
    EXPECT_INPUT_ERROR(patched(R"({"a": 1})", R"([{"op": "copy", "from": "/x", "path": "/y"}])"), "[0].from", "no member 'x'");
    // Schema of the operations
    EXPECT_INPUT_ERROR(patched("{}", R"([{"op": "add", "path": "/a"}])"), "[0].value", "required property is missing");
    EXPECT_INPUT_ERROR(patched("{}", R"([{"op": "frobnicate", "path": "/a"}])"), "[0].op", "expected one of add");
    EXPECT_INPUT_ERROR(patched("{}", R"([{"op": "move", "path": "/a"}])"), "[0].from", "required property is missing");
    EXPECT_INPUT_ERROR(patched("{}", R"({"op": "add"})"), "", "expected an array");
}

TEST(JsonPatch, PatchThatBreaksAWorkspaceIsRejectedWithThePatchedPath) {
    const auto ws = hf::Workspace::load_file((hf::test::malformed_dir() / "00_valid.json").string());
    const hf::JsonPatch p(parse(R"([{"op": "add", "path": "/channels/0/samples/0/data/-", "value": 1.0}])"), "bad.json");
    // pyhf takes a channel's bin count from its first sample: the second one is reported.
    EXPECT_INPUT_ERROR(ws.patched(p), "channels[0].samples[1].data", "2 numbers, but channel 'SR' has 3 bins");
    hf::ModelRequest r;
    r.patches = {p};
    EXPECT_INPUT_ERROR(ws.model_spec(r), "channels[0].samples[1].data", "channel 'SR' has 3 bins");
    try {
        ws.model_spec(r);
    } catch (const hf::InputError& e) {
        EXPECT_NE(e.file().find("bad.json"), std::string::npos) << e.file();
    }
    // A patch touching the parameters: paths then refer to {channels, parameters}.
    const hf::JsonPatch q(parse(R"([{"op": "add", "path": "/parameters/-", "value": {"name": "mu", "inits": [1, 2]}}])"), "q.json");
    r.patches = {q};
    EXPECT_INPUT_ERROR(ws.model_spec(r), "parameters[1].name", "Multiple parameter configurations for 'mu'");
}

const char* kPatchSet = R"({
  "metadata": {"references": {"hepdata": "ins1234567"}, "description": "d",
               "digests": {"sha256": "0000000000000000000000000000000000000000000000000000000000000000"},
               "labels": ["m1", "m2"]},
  "patches": [
    {"metadata": {"name": "p_100_10", "values": [100, 10.5]}, "patch": [{"op": "replace", "path": "/channels/0/samples/0/data/0", "value": 7.0}]},
    {"metadata": {"name": "p_200_x", "values": [200, "x"]}, "patch": []}
  ],
  "version": "1.0.0"})";

TEST(PatchSet, LookupByNameAndValues) {
    const auto ps = hf::PatchSet::load_string(kPatchSet, "ps.json");
    EXPECT_EQ(ps.labels(), (std::vector<std::string>{"m1", "m2"}));
    EXPECT_EQ(ps["p_100_10"].values.size(), 2u);
    EXPECT_EQ(ps[(std::vector<hf::json::Value>{hf::json::Value(100.0), hf::json::Value(10.5)})].name, "p_100_10");
    EXPECT_EQ(ps[(std::vector<hf::json::Value>{hf::json::Value(200), hf::json::Value("x")})].name, "p_200_x");
    EXPECT_EQ(ps.find((std::vector<hf::json::Value>{hf::json::Value(200), hf::json::Value(0)})), nullptr);
    EXPECT_INPUT_ERROR(ps["nope"], "patches", "No patch associated with \"nope\"");
}

TEST(PatchSet, VerifyAndApply) {
    const auto ws = hf::Workspace::load_file((hf::test::malformed_dir() / "00_valid.json").string());
    const auto ps = hf::PatchSet::load_string(kPatchSet, "ps.json");
    EXPECT_INPUT_ERROR(ps.verify(ws), "metadata.digests.sha256", "The digest verification failed");
    std::string text = kPatchSet;
    text.replace(text.find(std::string(64, '0')), 64, ws.digest());
    const auto good = hf::PatchSet::load_string(text, "ps.json");
    EXPECT_NO_THROW(good.verify(ws));
    const auto out = good.apply(ws, "p_100_10");
    EXPECT_EQ(out.spec().channels[0].samples[0].data[0], 7.0);
    EXPECT_EQ(good.apply(ws, "p_200_x").digest(), ws.digest());
}

TEST(PatchSet, DuplicatesAndMultiplicity) {
    std::string dup_values = kPatchSet;
    dup_values.replace(dup_values.find("[200, \"x\"]"), 10, "[100.0, 10.5]");
    EXPECT_INPUT_ERROR(hf::PatchSet::load_string(dup_values, "ps.json"), "patches[1].metadata.values",
                       "Multiple patches were defined by values");
    std::string short_values = kPatchSet;
    short_values.replace(short_values.find("[200, \"x\"]"), 10, "[200]");
    EXPECT_INPUT_ERROR(hf::PatchSet::load_string(short_values, "ps.json"), "patches[1].metadata.values",
                       "Incompatible number of values (1)");
    std::string bad_op = kPatchSet;
    bad_op.replace(bad_op.find("\"replace\""), 9, "\"change\"");
    EXPECT_INPUT_ERROR(hf::PatchSet::load_string(bad_op, "ps.json"), "patches[0].patch[0].op", "expected one of add");
}

}  // namespace
