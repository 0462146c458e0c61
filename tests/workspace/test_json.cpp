// hf::json: parsing with simdjson, Python-identical output, error locations.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "hfcore/errors.hpp"
#include "hfcore/json.hpp"
#include "workspace_test_util.hpp"

namespace {

using hf::json::dump;
using hf::json::dump_canonical;
using hf::json::dump_pretty;
using hf::json::format_double;
using hf::json::parse;

std::string roundtrip(const std::string& text) { return dump(parse(text)); }

std::string parse_error(const std::string& text) {
    try {
        parse(text, "t.json");
    } catch (const hf::InputError& e) {
        EXPECT_EQ(e.file(), "t.json");
        return e.what();
    }
    ADD_FAILURE() << "accepted: " << text;
    return "";
}

TEST(Json, FloatsPrintLikePythonRepr) {
    EXPECT_EQ(format_double(1.0), "1.0");
    EXPECT_EQ(format_double(100.0), "100.0");
    EXPECT_EQ(format_double(0.1), "0.1");
    EXPECT_EQ(format_double(1e-5), "1e-05");
    EXPECT_EQ(format_double(1e-4), "0.0001");
    EXPECT_EQ(format_double(1e16), "1e+16");
    EXPECT_EQ(format_double(1e15), "1000000000000000.0");
    EXPECT_EQ(format_double(1.5e300), "1.5e+300");
    EXPECT_EQ(format_double(-0.0), "-0.0");
    EXPECT_EQ(format_double(0.0), "0.0");
    EXPECT_EQ(format_double(5e-324), "5e-324");
    EXPECT_EQ(format_double(0.30000000000000004), "0.30000000000000004");
    EXPECT_EQ(format_double(std::nan("")), "NaN");
}

TEST(Json, FloatsMatchPythonReprOnReferenceSet) {
    const auto& list = hf::test::workspace_reference()["float_repr"].as_array();
    ASSERT_GT(list.size(), 4000u);
    int bad = 0;
    for (const auto& item : list) {
        const std::string& hex = item[0].as_string();
        const std::uint64_t bits = std::stoull(hex, nullptr, 16);
        double d;
        std::memcpy(&d, &bits, sizeof d);
        if (format_double(d) != item[1].as_string() && ++bad < 10)
            ADD_FAILURE() << hex << ": " << format_double(d) << " vs Python " << item[1].as_string();
    }
    EXPECT_EQ(bad, 0);
}

TEST(Json, NumbersKeepHowTheyWereWritten) {
    EXPECT_EQ(roundtrip("[1, 1.0, 1e5, 1E5, -0, -0.0, 2.50, 100]"), "[1, 1.0, 100000.0, 100000.0, 0, -0.0, 2.5, 100]");
    EXPECT_EQ(roundtrip("[9223372036854775807, -9223372036854775808, 18446744073709551615]"),
              "[9223372036854775807, -9223372036854775808, 18446744073709551615]");
    EXPECT_EQ(roundtrip("[0.1, 1e-7, 123456789.123456789]"), "[0.1, 1e-07, 123456789.12345679]");
    const auto v = parse("[3, 3.0]");
    EXPECT_TRUE(v[0].is_integer());
    EXPECT_FALSE(v[1].is_integer());
    EXPECT_TRUE(v[0] == v[1]);  // Python: 3 == 3.0
}

TEST(Json, ObjectsKeepOrderAndRepeatedKeysLikeADict) {
    const auto v = parse(R"({"b": 1, "a": 2, "b": 3})");
    ASSERT_EQ(v.as_object().size(), 2u);
    EXPECT_EQ(v.as_object().items()[0].first, "b");
    EXPECT_EQ(v["b"].as_number().int_value, 3);
    EXPECT_EQ(dump(v, {-1, false, true}), R"({"b": 3, "a": 2})");
    EXPECT_EQ(dump(v), R"({"a": 2, "b": 3})");
    // Many keys (hash-indexed while parsing): still last value, first position.
    std::string text = "{";
    for (int i = 0; i < 100; ++i) text += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
    text += "\"k5\": -1}";
    const auto big = parse(text);
    EXPECT_EQ(big.as_object().size(), 100u);
    EXPECT_EQ(big.as_object().items()[5].second.as_number().int_value, -1);
}

TEST(Json, PrettyAndCanonicalMatchPython) {
    const auto v = parse(R"({"z": [1, {"y": [], "x": {}}], "a": "\u00e9\ud83d\ude00\u007f\n"})");
    EXPECT_EQ(dump_pretty(v),
              "{\n    \"a\": \"\\u00e9\\ud83d\\ude00\\u007f\\n\",\n    \"z\": [\n        1,\n        {\n"
              "            \"x\": {},\n            \"y\": []\n        }\n    ]\n}");
    // digest form: default separators, no ASCII escaping (raw UTF-8), DEL unescaped
    EXPECT_EQ(dump_canonical(v), "{\"a\": \"\xC3\xA9\xF0\x9F\x98\x80\x7F\\n\", \"z\": [1, {\"x\": {}, \"y\": []}]}");
    EXPECT_EQ(dump(parse(R"("\u0001\b\t\"\\/")")), R"("\u0001\b\t\"\\/")");
}

TEST(Json, SyntaxErrorsNameLineAndColumn) {
    EXPECT_NE(parse_error("{\"a\": [1, 2\n, 3").find("line 2"), std::string::npos);
    EXPECT_NE(parse_error("{\"a\": [1, 2\n, 3").find("truncated"), std::string::npos);
    EXPECT_NE(parse_error("{\"a\":\n  NaN}").find("line 2, column 3"), std::string::npos);
    EXPECT_NE(parse_error("[Infinity]").find("non-finite"), std::string::npos);
    EXPECT_NE(parse_error("[-Infinity]").find("non-finite"), std::string::npos);
    EXPECT_NE(parse_error("[1e400]").find("out of the range"), std::string::npos);
    EXPECT_NE(parse_error("[123456789012345678901234567890]").find("64 bits"), std::string::npos);
    EXPECT_NE(parse_error("[1, 2] x").find("after the end"), std::string::npos);
    EXPECT_NE(parse_error("[1, 2,]").find("column 7"), std::string::npos);
    EXPECT_NE(parse_error("{\"a\" 1}").find("expected ':'"), std::string::npos);
    EXPECT_NE(parse_error("{\"a\": \"\xff\"}").find("UTF-8"), std::string::npos);
    EXPECT_NE(parse_error("[\"\\ud800\"]").find("surrogate"), std::string::npos);
    EXPECT_NE(parse_error("[01]").find("leading zeros"), std::string::npos);
    EXPECT_NE(parse_error("").find("empty"), std::string::npos);
    EXPECT_NE(parse_error("[tru]").find("invalid literal"), std::string::npos);
    EXPECT_NE(parse_error("\xEF\xBB\xBF{}").find("byte order mark"), std::string::npos);
    EXPECT_NE(parse_error(std::string(5000, '[')).find("nesting"), std::string::npos);
}

TEST(Json, FileErrorsNameTheFile) {
    try {
        hf::json::parse_file("/nonexistent/x.json");
        FAIL();
    } catch (const hf::InputError& e) {
        EXPECT_EQ(e.file(), "/nonexistent/x.json");
    }
}

TEST(Json, PathsForMessages) {
    using hf::json::path_index;
    using hf::json::path_key;
    EXPECT_EQ(path_key(path_index(path_key("", "channels"), 2), "samples"), "channels[2].samples");
    EXPECT_EQ(path_key("metadata", "a b"), "metadata[\"a b\"]");
}

}  // namespace
