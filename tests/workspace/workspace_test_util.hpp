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

// Expects `stmt` to throw hf::InputError whose message contains `message_part` (never empty: "" is found in every
// string, so it would check nothing) and whose JSON path contains `path_part`, or is empty when `path_part` is
// (an error about the document's root).
#define EXPECT_INPUT_ERROR(stmt, path_part, message_part)                                               \
    do {                                                                                                \
        const std::string expect_path_ = (path_part), expect_message_ = (message_part);                \
        if (expect_message_.empty()) {                                                                  \
            ADD_FAILURE() << "EXPECT_INPUT_ERROR needs the message it expects: " #stmt;                 \
            break;                                                                                      \
        }                                                                                               \
        try {                                                                                           \
            stmt;                                                                                       \
            ADD_FAILURE() << "no error thrown by " #stmt;                                               \
        } catch (const ::hf::InputError& e) {                                                           \
            EXPECT_TRUE(expect_path_.empty() ? e.json_path().empty()                                    \
                                             : e.json_path().find(expect_path_) != std::string::npos)   \
                << "path '" << e.json_path() << "' is not '" << expect_path_ << "'; message: " << e.what(); \
            EXPECT_NE(std::string(e.what()).find(expect_message_), std::string::npos)                   \
                << "message lacks '" << expect_message_ << "': " << e.what();                            \
        }                                                                                               \
    } while (0)
