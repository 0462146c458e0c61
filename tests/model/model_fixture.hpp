// Loads a pyhf reference fixture (tests/reference/model/*.json) and builds the same model with hfcore.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "hfcore/json.hpp"
#include "hfcore/model.hpp"
#include "hfcore/workspace.hpp"
#include "provenance.hpp"
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

// logpdf at K points pars_kp [K, P] on host data: the data bound once, the points in one device evaluation.
inline std::vector<double> logpdf_points(const Model& m, const std::vector<double>& pars_kp, std::int64_t k,
                                         const std::vector<double>& data) {
    Backend& b = *m.backend();
    return b.to_host_double(m.bind(data).logpdf(b.from_host(pars_kp, {k, m.n_pars()})));
}

// The model a fixture was made from: its measurement, interpolation codes and POI (patches are read by the caller).
inline ModelRequest fixture_request(const json::Value& doc) {
    ModelRequest req;
    req.measurement_name = doc["build"]["measurement"].as_string();
    const auto& ms = doc["modifier_settings"];
    req.settings.normsys_interpcode = hf::parse_interpcode(ms["normsys"]["interpcode"].as_string());
    req.settings.histosys_interpcode = hf::parse_interpcode(ms["histosys"]["interpcode"].as_string());
    req.poi = doc["poi_name"].is_null() ? std::string() : doc["poi_name"].as_string();
    return req;
}

inline Fixture load_fixture(const std::string& name) {
    Fixture f;
    f.name = name;
    f.doc = json::parse(read_text(source_dir() / "tests/reference/model" / (name + ".json")));
    // The inputs in ../shared are the bytes pyhf's numbers were made from.
    EXPECT_TRUE(inputs_unchanged(f.doc["source_sha256"], shared_dir())) << name;
    const auto& src = f.doc["source"].as_array();
    Workspace ws = Workspace::load_file((shared_dir() / src[0].as_string()).string());
    ModelRequest req = fixture_request(f.doc);
    if (const auto* patches = f.doc["build"].find("patches"))
        for (const auto& p : patches->as_array())
            req.patches.push_back(JsonPatch::load_file((shared_dir() / p.as_string()).string()));
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
    auto logpdf = logpdf_points(m, all, static_cast<std::int64_t>(points.size()), f.data);
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

// How closely a fused likelihood must agree with the core's Tier 1 fallback: close(fused, fallback, rtol, atol).
struct FusedTolerance {
    double logpdf_rtol, logpdf_atol;
    double grad_rtol, grad_atol;
    double expected_rtol, expected_atol;
};

// The fused kernels against the fallback (two models of one spec on one backend): logpdf with its gradient and
// the expected data, for every point of the fixture in one batch.
inline void expect_fused_matches_fallback(const Model& fused, const Model& fallback, const Fixture& f,
                                          const FusedTolerance& tol) {
    ASSERT_STRNE(fused.implementation(), fallback.implementation());
    Backend& b = *fused.backend();
    const auto& points = f.doc["points"].as_array();
    std::vector<double> all;
    for (const auto& p : points) {
        auto x = numbers(p["pars"]);
        all.insert(all.end(), x.begin(), x.end());
    }
    const auto K = static_cast<std::int64_t>(points.size());
    Tensor pars = b.from_host(all, {K, fused.n_pars()});
    Tensor data = b.from_host(f.data);
    Tensor g1, g2;
    auto l1 = b.to_host_double(fused.logpdf(pars, data, &g1));
    auto l2 = b.to_host_double(fallback.logpdf(pars, data, &g2));
    for (std::int64_t k = 0; k < K; ++k)
        EXPECT_TRUE(close(l1[k], l2[k], tol.logpdf_rtol, tol.logpdf_atol))
            << f.name << " point " << k << " logpdf " << l1[k] << " vs " << l2[k];
    auto v1 = b.to_host_double(g1), v2 = b.to_host_double(g2);
    ASSERT_EQ(v1.size(), v2.size());
    for (std::size_t i = 0; i < v1.size(); ++i)
        EXPECT_TRUE(close(v1[i], v2[i], tol.grad_rtol, tol.grad_atol))
            << f.name << " grad[" << i << "] " << v1[i] << " vs " << v2[i];
    auto e1 = b.to_host_double(fused.expected_data(pars)), e2 = b.to_host_double(fallback.expected_data(pars));
    for (std::size_t i = 0; i < e1.size(); ++i)
        EXPECT_TRUE(close(e1[i], e2[i], tol.expected_rtol, tol.expected_atol))
            << f.name << " expected_data[" << i << "] " << e1[i] << " vs " << e2[i];
}

}  // namespace hf::test
