// Loads a pyhf reference fixture (tests/reference/model/*.json) and builds the same model with hfcore.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "hfcore/json.hpp"
#include "hfcore/model.hpp"
#include "hfcore/workspace.hpp"
#include "test_support.hpp"

namespace hf::test {

struct Fixture {
    std::string name;
    json::Value doc;
    ModelSpec spec;
    std::vector<double> data;  // main + aux, from pyhf
};

inline std::vector<std::string> fixture_names() {
    auto index = json::parse(read_text(source_dir() / "tests/reference/model/index.json"));
    std::vector<std::string> names;
    for (const auto& [name, _] : index["fixtures"].as_object()) names.push_back(name);
    return names;
}

inline std::vector<double> numbers(const json::Value& arr) {
    std::vector<double> v;
    for (const auto& x : arr.as_array()) v.push_back(x.as_double());
    return v;
}

inline Fixture load_fixture(const std::string& name) {
    Fixture f;
    f.name = name;
    f.doc = json::parse(read_text(source_dir() / "tests/reference/model" / (name + ".json")));
    const auto& src = f.doc["source"].as_array();
    const auto& build = f.doc["build"];
    Workspace ws = Workspace::load_file((shared_dir() / src[0].as_string()).string());
    ModelRequest req;
    req.measurement_name = build["measurement"].as_string();
    if (const auto* patches = build.find("patches"))
        for (const auto& p : patches->as_array())
            req.patches.push_back(JsonPatch::load_file((shared_dir() / p.as_string()).string()));
    const auto& ms = f.doc["modifier_settings"];
    req.settings.normsys_interpcode = hf::parse_interpcode(ms["normsys"]["interpcode"].as_string());
    req.settings.histosys_interpcode = hf::parse_interpcode(ms["histosys"]["interpcode"].as_string());
    req.poi = f.doc["poi_name"].is_null() ? std::string() : f.doc["poi_name"].as_string();
    f.spec = ws.model_spec(req);
    f.data = numbers(f.doc["data"]);
    return f;
}

// |a - b| <= rtol |b| + atol
inline bool close(double a, double b, double rtol, double atol = 0.0) {
    return std::abs(a - b) <= rtol * std::abs(b) + atol;
}

// Expected data against pyhf and logpdf (all points in one batch) against the exact (50-digit) value and, within
// pyhf's own rounding, against pyhf.
inline void check_points(const Model& m, const Fixture& f, double rtol, double atol) {
    const auto& points = f.doc["points"].as_array();
    std::vector<double> all;
    for (const auto& p : points) {
        auto pars = numbers(p["pars"]);
        all.insert(all.end(), pars.begin(), pars.end());
        auto expected = m.expected_data(pars);
        auto ref = numbers(p["expected_data"]);
        ASSERT_EQ(expected.size(), ref.size());
        for (std::size_t i = 0; i < ref.size(); ++i)
            EXPECT_TRUE(close(expected[i], ref[i], rtol, atol))
                << f.name << " " << p["label"].as_string() << " expected_data[" << i << "]: " << expected[i]
                << " vs pyhf " << ref[i];
    }
    // One batched evaluation of every point.
    auto logpdf = m.logpdf_batch(all, static_cast<std::int64_t>(points.size()), f.data);
    for (std::size_t k = 0; k < points.size(); ++k) {
        // pyhf's own logpdf carries its float rounding (up to 2e-3 on eRJR, where Poisson constraints with
        // tau ~ 1e11 cancel terms of 5e12); logpdf_exact is the same likelihood at 50 digits (mpmath).
        double exact = points[k]["logpdf_exact"].as_double();
        double pyhf = points[k]["logpdf"].as_double();
        double pyhf_rounding = points[k]["logpdf_pyhf_rounding"].as_double();
        EXPECT_TRUE(close(logpdf[k], exact, rtol, atol))
            << f.name << " " << points[k]["label"].as_string() << " logpdf " << logpdf[k] << " vs exact " << exact
            << " (rel " << std::abs(logpdf[k] - exact) / std::abs(exact) << ")";
        EXPECT_TRUE(close(logpdf[k], pyhf, rtol, atol + pyhf_rounding))
            << f.name << " " << points[k]["label"].as_string() << " logpdf " << logpdf[k] << " vs pyhf " << pyhf;
    }
}

}  // namespace hf::test
