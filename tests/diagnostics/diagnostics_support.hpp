// Helpers of the diagnostics tests: the cabinetry reference fixtures (tests/reference/diagnostics/, made by
// tests/reference/make_diagnostics_fixtures.py) with their models.
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

#include "hfcore/loader.hpp"
#include "hfcore/diagnostics.hpp"
#include "hfcore/json.hpp"
#include "hfcore/model.hpp"
#include "hfcore/workspace.hpp"
#include "../infer/infer_support.hpp"
#include "cli_run.hpp"
#include "test_support.hpp"

namespace hf::test {

inline std::filesystem::path fixture_dir() { return source_dir() / "tests" / "reference" / "diagnostics"; }
inline std::string example_path() { return (source_dir() / "examples" / "workspaces" / "example.json").string(); }

// |a - b| / max(|b|, floor)
inline double rel_diff(double a, double b, double floor = 1e-300) {
    return std::fabs(a - b) / std::max(std::fabs(b), floor);
}

// A fixture: `expected` holds the reference file; `model` stays null when its workspace lives in ../shared
// and that is absent.
using Fixture = Case;

// The fixture and its model (default interpolation codes, first measurement, cpu 64b), as cabinetry builds it.
inline Fixture load_fixture(const std::string& name) {
    Fixture f;
    f.name = name;
    f.expected = json::parse_file((fixture_dir() / (name + ".json")).string());
    const auto& src = f.expected["source"];
    if (f.expected.find("workspace")) {
        f.ws = std::make_unique<Workspace>(f.expected["workspace"], name);
    } else {
        const std::filesystem::path path = src.find("repo") ? source_dir() / src["repo"].as_string()
                                                            : shared_dir() / src["shared"].as_string();
        if (!std::filesystem::exists(path)) return f;
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

}  // namespace hf::test
