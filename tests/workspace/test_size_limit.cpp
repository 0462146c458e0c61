// The size limit of a JSON document (HFCORE_MAX_JSON_MB, default 256): above it, a clear error before the
// document is read or parsed, never a process killed for memory (docs/performance.md, "Memory and size limits").
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "hfcore/errors.hpp"
#include "hfcore/json.hpp"

namespace {

struct LimitEnv {
    explicit LimitEnv(const char* mb) { ::setenv("HFCORE_MAX_JSON_MB", mb, 1); }
    ~LimitEnv() { ::unsetenv("HFCORE_MAX_JSON_MB"); }
};

std::string document(std::size_t bytes) {
    std::string s = "[";
    while (s.size() + 8 < bytes) s += "1234567,";
    return s + "0]";
}

TEST(SizeLimit, AboveTheLimitIsAnErrorNamingTheSetting) {
    const std::string doc = document(3000);
    const auto file = std::filesystem::temp_directory_path() / "hfcore_size_limit.json";
    std::ofstream(file) << doc;
    {
        const LimitEnv env("0.002");  // 2097 bytes
        try {
            (void)hf::json::parse_file(file.string());
            ADD_FAILURE() << "accepted";
        } catch (const hf::InputError& e) {
            EXPECT_EQ(e.file(), file.string());
            EXPECT_NE(std::string(e.what()).find("above the limit of 0.002 MB"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("HFCORE_MAX_JSON_MB"), std::string::npos) << e.what();
        }
        EXPECT_THROW((void)hf::json::parse(doc, "text"), hf::InputError);
        EXPECT_NO_THROW((void)hf::json::parse(document(1000), "small"));
    }
    {
        const LimitEnv env("0");  // no limit
        EXPECT_NO_THROW((void)hf::json::parse_file(file.string()));
    }
    {
        const LimitEnv env("lots");
        EXPECT_THROW((void)hf::json::parse(doc, "text"), hf::InputError);
    }
    EXPECT_NO_THROW((void)hf::json::parse_file(file.string()));  // the default, 256 MB
    std::filesystem::remove(file);
}

}  // namespace
