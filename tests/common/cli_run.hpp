// Runs the `hfcore` program built with the tests (HFCORE_CLI_PATH) and keeps its exit status, standard output
// and standard error apart.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "test_support.hpp"

namespace hf::test {

struct CliRun {
    int rc = -1;
    std::string out, err;
};

inline CliRun run_cli(const std::string& args) {
    CliRun r;
    const auto err_file = std::filesystem::temp_directory_path() /
                          ("hfcore_cli_err_" + std::to_string(::getpid()) + ".txt");
    const std::string cmd = std::string(HFCORE_CLI_PATH) + " " + args + " 2>" + err_file.string();
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe) return r;
    char buf[8192];
    while (std::size_t k = fread(buf, 1, sizeof buf, pipe)) r.out.append(buf, k);
    const int status = pclose(pipe);
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = read_text(err_file);
    std::filesystem::remove(err_file);
    return r;
}

}  // namespace hf::test
