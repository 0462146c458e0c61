// Helpers of the inference tests: pyhf validation cases and the ATLAS eRJR likelihoods loaded as models.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "hfcore/loader.hpp"
#include "hfcore/infer.hpp"
#include "hfcore/json.hpp"
#include "hfcore/model.hpp"
#include "hfcore/workspace.hpp"
#include "provenance.hpp"
#include "test_support.hpp"

namespace hf::test {

inline std::filesystem::path validation_dir() { return shared_dir() / "validation" / "pyhf-validation"; }
inline std::filesystem::path erjr_dir() { return shared_dir() / "data" / "atlas-3l-erjr"; }

inline std::vector<double> numbers(const json::Value& v) {
    std::vector<double> out;
    for (const auto& x : v.as_array()) out.push_back(x.is_string() ? std::nan("") : x.as_double());
    return out;
}

// The output of ../shared/tools/random_workspace.py run with `args` (seed first); empty when python3 did not run.
inline std::string random_workspace(const std::string& args) {
    const std::string cmd = "python3 '" + (shared_dir() / "tools" / "random_workspace.py").string() + "' " + args;
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
    if (!pipe) return {};
    std::string out;
    char buf[65536];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe.get())) > 0;) out.append(buf, n);
    return out;
}

inline double rel(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

// The largest |a[i] - b[i]| (absolute) over the entries where keep(i). Vectors of different lengths, and a NaN
// on either side of a kept entry, give +inf: a comparison "max_abs_diff(...) <= tol" then fails, where
// std::max(d, NaN) would have kept d and a shorter vector would have hidden the entries it lacks.
template <class Keep>
double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b, Keep keep) {
    if (a.size() != b.size()) return HUGE_VAL;
    double d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (!keep(i)) continue;
        const double e = std::abs(a[i] - b[i]);
        if (std::isnan(e)) return HUGE_VAL;
        d = std::max(d, e);
    }
    return d;
}
inline double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
    return max_abs_diff(a, b, [](std::size_t) { return true; });
}

// Every comparison with a tolerance set from a measured agreement prints what it measured, next to the
// tolerance, so a run shows how much room is left (grep "[ agreement ]").
inline void report_agreement(const std::string& where, const std::string& what, double measured, double tolerance) {
    std::printf("[ agreement ] %s: %s %.2e (tolerance %.1e)\n", where.c_str(), what.c_str(), measured, tolerance);
}

// A reference file of tests/reference/infer, after checking that the inputs it was made from (its provenance
// block, tests/reference/provenance.py) are still the same bytes: a changed input cannot keep an old reference.
inline json::Value load_reference(const std::string& name) {
    json::Value doc = json::parse_file((source_dir() / "tests" / "reference" / "infer" / name).string());
    const auto* prov = doc.find("provenance");
    if (!prov) throw std::runtime_error(name + " records no provenance (tests/reference/make_infer_fixtures.py)");
    if (const auto ok = provenance_inputs_unchanged(*prov); !ok) throw std::runtime_error(name + ": " + ok.message());
    return doc;
}

// A validation case: its expected.json, the model with the case's effective interpolation codes, the data.
struct Case {
    std::string name;
    json::Value expected;
    std::unique_ptr<Workspace> ws;
    std::unique_ptr<Model> model;
    std::vector<double> data;
    infer::TestStat test_stat() const { return infer::parse_test_stat(expected["test_stat"].as_string()); }
    double mu_test() const { return expected["mu_test"].as_double(); }
};

inline Case load_case(const std::string& name, const std::string& precision = "64b") {
    Case c;
    c.name = name;
    const auto dir = validation_dir() / name;
    c.expected = json::parse_file((dir / "expected.json").string());
    c.ws = std::make_unique<Workspace>(Workspace::load_file((dir / "workspace.json").string()));
    ModelRequest req;
    const auto& codes = c.expected["model_settings"]["effective_interpcodes"];
    req.settings.normsys_interpcode = hf::parse_interpcode(codes["normsys"]["interpcode"].as_string());
    req.settings.histosys_interpcode = hf::parse_interpcode(codes["histosys"]["interpcode"].as_string());
    LoadOptions lo;
    lo.precision = hf::parse_precision(precision);
    c.model = std::make_unique<Model>(c.ws->model_spec(req), load_backend("cpu", lo));
    c.data = c.model->data_from_observations(c.ws->spec().observations);
    return c;
}

inline std::vector<std::string> asymptotic_cases() {
    return {"1bin_lumi",
            "1bin_normsys",
            "1bin_shapesys",
            "1bin_shapesys_q0",
            "2bin_2channel",
            "2bin_2channel_coupledhistosys",
            "2bin_2channel_couplednorm",
            "2bin_2channel_coupledshapefactor",
            "2bin_histosys",
            "sbottom_regionA_1300_205_60",
            "sbottom_regionA_1400_950_60",
            "sbottom_regionA_1500_850_60",
            "sbottom_regionB_1400_550_60",
            "sbottom_regionC_1600_850_60",
            "shapesys_nuisparfilter"};
}

// The cases whose CLs pyhf's numbers can check: 2bin_2channel_coupledhistosys is left out because pyhf's
// fixed-POI fit stops in a higher basin there (31.3751 against the 30.8717 that hfcore and Minuit reach), so its
// CLs are not this likelihood's; test_fit.cpp checks that hfcore's fit is the lower one.
inline std::vector<std::string> cls_cases() {
    auto cases = asymptotic_cases();
    std::erase(cases, std::string("2bin_2channel_coupledhistosys"));
    return cases;
}

// The cases with an upper limit in pyhf's numbers: cls_cases() less the discovery (q0) case.
inline std::vector<std::string> upper_limit_cases() {
    auto cases = cls_cases();
    std::erase(cases, std::string("1bin_shapesys_q0"));
    return cases;
}

// pyhf with tight fits on the same cases (tests/reference/make_infer_fixtures.py).
inline const json::Value& tight_reference() {
    static const json::Value doc = load_reference("validation_tight.json");
    return doc;
}

// pyhf on examples/workspaces/example.json: `pyhf cls` defaults, and the same with tight fits under "tight".
inline const json::Value& example_reference() {
    static const json::Value doc = load_reference("example.json");
    return doc;
}

inline infer::HypotestOptions case_options(const Case& c) {
    infer::HypotestOptions o;
    o.test_stat = c.test_stat();
    return o;
}

// The eRJR background-only workspace (loaded once) and a signal point as a model.
inline const Workspace& erjr_background() {
    static const Workspace ws = Workspace::load_file((erjr_dir() / "BkgOnly.json").string());
    return ws;
}
inline const json::Value& erjr_expected() {
    static const json::Value doc = json::parse_file((erjr_dir() / "expected.json").string());
    return doc;
}

struct ErjrPoint {
    std::string name;
    std::unique_ptr<Model> model;
    std::vector<double> data;
};

inline ErjrPoint load_erjr(const std::string& name, const BackendPtr& backend) {
    ErjrPoint p;
    p.name = name;
    const auto& e = erjr_expected()["points"][name];
    ModelRequest req;
    req.patches.push_back(JsonPatch::load_file((erjr_dir() / e["patch_file"].as_string()).string()));
    p.model = std::make_unique<Model>(erjr_background().model_spec(req), backend);
    p.data = p.model->data_from_observations(erjr_background().spec().observations);
    return p;
}

inline std::vector<std::string> erjr_points() {
    std::vector<std::string> out;
    for (const auto& [k, v] : erjr_expected()["points"].as_object()) out.push_back(k);
    return out;
}

}  // namespace hf::test
