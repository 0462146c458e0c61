// Helpers shared by every test suite: where ../shared is, how to skip honestly when it is absent.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hf::test {

// ../shared beside the project root (HFCORE_SHARED_DIR overrides).
inline std::filesystem::path shared_dir() {
    if (const char* env = std::getenv("HFCORE_SHARED_DIR")) return env;
    return std::filesystem::path(HFCORE_SOURCE_DIR) / ".." / "shared";
}

inline bool have_shared() { return std::filesystem::exists(shared_dir() / "validation"); }

inline std::filesystem::path source_dir() { return HFCORE_SOURCE_DIR; }

// Prints an agreement figure a tolerance was set from ("[ measured ] what: value"), so that the figures in the
// comments beside the tolerances can be measured again from any test log.
inline void measured(const std::string& what, double value) {
    std::printf("[ measured ] %s: %.2e\n", what.c_str(), value);
}

inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace hf::test

// Skips (never passes) a test that needs ../shared when it is absent.
#define HF_REQUIRE_SHARED()                                              \
    do {                                                                 \
        if (!::hf::test::have_shared()) GTEST_SKIP() << "skipped: ../shared not found"; \
    } while (0)
