// Helpers of the diagnostics tests: the cabinetry reference fixtures (tests/reference/diagnostics/, made by
// tests/reference/make_diagnostics_fixtures.py) with their models, and the CLI run with its error output.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "hfcore/backends.hpp"
#include "hfcore/diagnostics.hpp"
#include "hfcore/json.hpp"
#include "hfcore/model.hpp"
#include "hfcore/workspace.hpp"
#include "test_support.hpp"

namespace hf::test {

inline std::filesystem::path fixture_dir() { return source_dir() / "tests" / "reference" / "diagnostics"; }
inline std::string example_path() { return (source_dir() / "examples" / "workspaces" / "example.json").string(); }

inline std::vector<double> doubles(const json::Value& v) {
    std::vector<double> out;
    for (const auto& x : v.as_array()) out.push_back(x.as_double());
    return out;
}

// |a - b| / max(|b|, floor)
inline double rel_diff(double a, double b, double floor = 1e-300) {
    return std::fabs(a - b) / std::max(std::fabs(b), floor);
}

struct Fixture {
    std::string name;
    json::Value ref;
    std::unique_ptr<Workspace> ws;
    std::unique_ptr<Model> model;
    std::vector<double> data;
    bool available = true;  // false: its workspace lives in ../shared, which is absent
};

// The fixture and its model (default interpolation codes, first measurement, cpu 64b), as cabinetry builds it.
inline Fixture load_fixture(const std::string& name) {
    Fixture f;
    f.name = name;
    f.ref = json::parse_file((fixture_dir() / (name + ".json")).string());
    const auto& src = f.ref["source"];
    if (f.ref.find("workspace")) {
        f.ws = std::make_unique<Workspace>(f.ref["workspace"], name);
    } else {
        const std::filesystem::path path = src.find("repo") ? source_dir() / src["repo"].as_string()
                                                            : shared_dir() / src["shared"].as_string();
        if (!std::filesystem::exists(path)) {
            f.available = false;
            return f;
        }
        f.ws = std::make_unique<Workspace>(Workspace::load_file(path.string()));
    }
    f.model = std::make_unique<Model>(f.ws->model_spec(ModelRequest{}), load_backend("cpu"));
    f.data = f.model->data_from_observations(f.ws->spec().observations);
    return f;
}

inline std::vector<std::string> fixture_names() {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(fixture_dir()))
        if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

struct CliRun {
    int rc = -1;
    std::string out, err;
};

// Runs `hfcore ARGS`, keeping standard output and standard error apart.
inline CliRun run_cli(const std::string& args) {
    CliRun r;
    const auto err_file = std::filesystem::temp_directory_path() /
                          ("hfcore_diag_err_" + std::to_string(::getpid()) + ".txt");
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
