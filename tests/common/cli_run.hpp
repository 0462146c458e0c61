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
    int rc = -1;  // the exit status; -N when killed by signal N (a crash), never a status a test expects
    std::string out, err;
};

inline CliRun run_cli(const std::string& args) {
    CliRun r;
    const auto err_file = std::filesystem::temp_directory_path() /
                          ("hfcore_cli_err_" + std::to_string(::getpid()) + ".txt");
    // exec: the shell becomes hfcore, so a crash is seen as the signal it is, not as the shell's status 128 + N.
    const std::string cmd = "exec " + std::string(HFCORE_CLI_PATH) + " " + args + " 2>" + err_file.string();
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe) return r;
    char buf[8192];
    while (std::size_t k = fread(buf, 1, sizeof buf, pipe)) r.out.append(buf, k);
    const int status = pclose(pipe);
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? -WTERMSIG(status) : -1;
    r.err = read_text(err_file);
    std::filesystem::remove(err_file);
    return r;
}

}  // namespace hf::test
