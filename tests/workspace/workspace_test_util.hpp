// Helpers of the workspace-layer tests: pyhf's reference results (tests/reference/workspace/reference.json),
// paths into ../shared, and a runner for the hfcore program.
#pragma once

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>

#include "hfcore/errors.hpp"
#include "hfcore/json.hpp"
#include "test_support.hpp"

namespace hf::test {

inline const json::Value& workspace_reference() {
    static const json::Value ref =
        json::parse_file((source_dir() / "tests" / "reference" / "workspace" / "reference.json").string());
    return ref;
}

inline std::string shared_path(const std::string& rel) { return (shared_dir() / rel).lexically_normal().string(); }

inline std::filesystem::path malformed_dir() { return source_dir() / "tests" / "workspace" / "malformed"; }

struct RunResult {
    int status = -1;
    std::string out;
};

// Runs `hfcore <args>` in `cwd` (stdout captured, stderr appended to it when merge_stderr).
inline RunResult run_cli(const std::string& args, const std::filesystem::path& cwd, bool merge_stderr = false) {
    const std::string cmd = "cd '" + cwd.string() + "' && '" + std::string(HFCORE_CLI_PATH) + "' " + args +
                            (merge_stderr ? " 2>&1" : " 2>/dev/null");
    RunResult r;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf;
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    const int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

// Shell quoting of one argument.
inline std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

}  // namespace hf::test

// Expects `stmt` to throw hf::InputError whose JSON path and message contain the given texts.
#define EXPECT_INPUT_ERROR(stmt, path_part, message_part)                                               \
    do {                                                                                                \
        try {                                                                                           \
            stmt;                                                                                       \
            ADD_FAILURE() << "no error thrown by " #stmt;                                               \
        } catch (const ::hf::InputError& e) {                                                           \
            EXPECT_NE(e.json_path().find(path_part), std::string::npos)                                 \
                << "path '" << e.json_path() << "' lacks '" << (path_part) << "'; message: " << e.what(); \
            EXPECT_NE(std::string(e.what()).find(message_part), std::string::npos)                      \
                << "message lacks '" << (message_part) << "': " << e.what();                            \
        }                                                                                               \
    } while (0)
