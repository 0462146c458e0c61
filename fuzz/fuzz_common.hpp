// Shared by the libFuzzer targets: the small workspace they patch and evaluate against, and the rule that only
// hf::Error may leave hfcore's functions for bad input (anything else, a sanitizer report or a broken invariant
// is a bug: bug() aborts so libFuzzer keeps the input).
#pragma once

#include <cstdlib>
#include <iostream>
#include <string>

#include "hfcore/errors.hpp"
#include "hfcore/workspace.hpp"

namespace hf::fuzz {

inline const char* kBaseWorkspace = R"({
  "channels": [
    {"name": "SR", "samples": [
      {"name": "signal", "data": [5.0, 10.0], "modifiers": [{"name": "mu", "type": "normfactor", "data": null}]},
      {"name": "bkg", "data": [50.0, 60.0], "modifiers": [
        {"name": "bkg_norm", "type": "normsys", "data": {"hi": 1.1, "lo": 0.9}},
        {"name": "shape", "type": "histosys", "data": {"hi_data": [52.0, 62.0], "lo_data": [48.0, 58.0]}},
        {"name": "uncorr", "type": "shapesys", "data": [5.0, 6.0]},
        {"name": "stat_SR", "type": "staterror", "data": [1.0, 2.0]}]}]},
    {"name": "CR", "samples": [
      {"name": "bkg", "data": [100.0], "modifiers": [
        {"name": "lumi", "type": "lumi", "data": null},
        {"name": "bkg_norm", "type": "normsys", "data": {"hi": 1.05, "lo": 0.95}}]}]}
  ],
  "observations": [{"name": "SR", "data": [55.0, 70.0]}, {"name": "CR", "data": [101]}],
  "measurements": [{"name": "meas", "config": {"poi": "mu", "parameters": [
    {"name": "lumi", "auxdata": [1.0], "sigmas": [0.02], "inits": [1.0], "bounds": [[0.5, 1.5]]}]}}],
  "version": "1.0.0"
})";

inline const Workspace& base_workspace() {
    static const Workspace ws = Workspace::load_string(kBaseWorkspace, "base.json");
    return ws;
}

[[noreturn]] inline void bug(const char* target, const std::string& what) {
    std::cerr << target << ": " << what << "\n";
    std::abort();
}

template <class F>
void expect_hf_error_only(F&& f) {
    try {
        f();
    } catch (const Error&) {
    }
}

}  // namespace hf::fuzz
