// Real models on a device plugin (opencl, cuda): every reference workspace of tests/reference/model built on the
// plugin, 64b against pyhf's exact values, 32b against the exact value of its float inputs, gradients against the
// cpu plugin's. The suites of tests/opencl and tests/cuda instantiate these for their plugin.
#pragma once

#include <cmath>
#include <string>

#include "hfcore/loader.hpp"
#include "hfcore/plugin/likelihood.hpp"
#include "model_fixture.hpp"
#include "plugin_support.hpp"

namespace hf::test::device_models {

inline LoadOptions precision(const char* p) {
    LoadOptions o;
    o.precision = parse_precision(p);
    return o;
}

// 64b: logpdf and expected data against pyhf and the 50-digit values, as the cpu plugin is checked.
inline void fused64_matches_pyhf(const std::string& plugin, const std::string& fixture) {
    Fixture f = load_fixture(fixture);
    Model m(f.spec, load_backend(plugin, precision("64b")));
    EXPECT_EQ(std::string(m.implementation()), plugin + " fused");
    check_points(m, f, 1e-12, 1e-12);
}

// 32b against the exact value of the same float inputs: pars, data and the packed tables rounded to float and
// evaluated by the cpu plugin at 64b. (Against pyhf's double inputs no 32b backend can get 1e-5 on large-tau
// models: rounding a shapesys parameter to float alone moves logpdf by 1e-2 when tau is 1e11.)
inline void fused32_is_exact_for_its_float_inputs(const std::string& plugin, const std::string& fixture) {
    Fixture f = load_fixture(fixture);
    Model m(f.spec, load_backend("cpu"));
    PackedLikelihood pk = packed_likelihood(m);
    auto rf = [](std::vector<double>& v) {
        for (double& x : v) x = static_cast<double>(static_cast<float>(x));
    };
    for (auto* v : {&pk.elem_nominal, &pk.factor_lo, &pk.factor_hi, &pk.factor_coef, &pk.delta_lo, &pk.delta_nom,
                    &pk.delta_hi, &pk.gauss_sigma, &pk.pois_tau})
        rf(*v);
    auto cpu = load_backend("cpu", precision("64b"));
    auto dev = load_backend(plugin, precision("32b"));
    auto ref = compile_likelihood(*cpu, pk);
    auto fl = compile_likelihood(*dev, pk);
    ASSERT_TRUE(ref && fl);
    std::vector<double> pars, data = f.data;
    const auto& points = f.doc["points"].as_array();
    for (const auto& p : points) {
        auto x = numbers(p["pars"]);
        pars.insert(pars.end(), x.begin(), x.end());
    }
    rf(pars);
    rf(data);
    const std::int64_t K = static_cast<std::int64_t>(points.size()), P = m.n_pars();
    Tensor g1, g2;
    auto a = dev->to_host_double(fl->logpdf(dev->from_host(pars, {K, P}), dev->from_host(data), &g1));
    auto e = cpu->to_host_double(ref->logpdf(cpu->from_host(pars, {K, P}), cpu->from_host(data), &g2));
    for (std::int64_t k = 0; k < K; ++k)
        EXPECT_TRUE(close(a[k], e[k], 1e-5, 1e-5)) << f.name << " point " << k << ": logpdf " << a[k] << " vs "
                                                   << e[k] << " (rel " << std::abs(a[k] - e[k]) / std::abs(e[k]) << ")";
    auto ga = dev->to_host_double(g1), ge = cpu->to_host_double(g2);
    for (std::int64_t k = 0; k < K; ++k) {
        double scale = 1.0;
        for (std::int64_t i = 0; i < P; ++i) scale = std::max(scale, std::abs(ge[k * P + i]));
        for (std::int64_t i = 0; i < P; ++i)
            EXPECT_TRUE(close(ga[k * P + i], ge[k * P + i], 1e-4, 1e-5 * scale))
                << f.name << " point " << k << " grad[" << i << "]: " << ga[k * P + i] << " vs " << ge[k * P + i];
    }
    auto xa = dev->to_host_double(fl->expected_main(dev->from_host(pars, {K, P})));
    auto xe = cpu->to_host_double(ref->expected_main(cpu->from_host(pars, {K, P})));
    for (std::size_t i = 0; i < xe.size(); ++i)
        EXPECT_TRUE(close(xa[i], xe[i], 1e-5, 1e-6)) << f.name << " expected_main[" << i << "]";
}

// 64b gradients (and logpdf) equal the cpu plugin's.
inline void gradient_equals_cpu_plugin(const std::string& plugin, const std::string& fixture) {
    Fixture f = load_fixture(fixture);
    Model mdev(f.spec, load_backend(plugin, precision("64b")));
    Model mcpu(f.spec, load_backend("cpu", precision("64b")));
    Tensor ddev = mdev.backend()->from_host(f.data), dcpu = mcpu.backend()->from_host(f.data);
    for (const auto& p : f.doc["points"].as_array()) {
        auto x = numbers(p["pars"]);
        std::vector<double> gdev, gcpu;
        const double ldev = mdev.bind(ddev).logpdf(x, &gdev);
        const double lcpu = mcpu.bind(dcpu).logpdf(x, &gcpu);
        EXPECT_TRUE(close(ldev, lcpu, 1e-12, 1e-12)) << f.name << ": logpdf " << ldev << " vs cpu " << lcpu;
        ASSERT_EQ(gdev.size(), gcpu.size());
        double scale = 1.0;
        for (double g : gcpu) scale = std::max(scale, std::abs(g));
        for (std::size_t i = 0; i < gdev.size(); ++i)
            EXPECT_TRUE(close(gdev[i], gcpu[i], 1e-10, 1e-12 * scale))
                << f.name << " " << p["label"].as_string() << " grad[" << i << "]: " << gdev[i] << " vs cpu " << gcpu[i];
    }
}

}  // namespace hf::test::device_models

// The model tests of one device plugin as a parameterised suite over every reference fixture.
#define HF_DEVICE_MODEL_TESTS(Suite, plugin)                                                              \
    class Suite : public ::testing::TestWithParam<std::string> {};                                       \
    TEST_P(Suite, Fused64MatchesPyhfTo1e12) {                                                             \
        HF_REQUIRE_SHARED();                                                                              \
        HF_REQUIRE_PLUGIN(plugin);                                                                    \
        ::hf::test::device_models::fused64_matches_pyhf(plugin, GetParam());                             \
    }                                                                                                     \
    TEST_P(Suite, Fused32IsExactForItsFloatInputsTo1e5) {                                                 \
        HF_REQUIRE_SHARED();                                                                              \
        HF_REQUIRE_PLUGIN(plugin);                                                                    \
        ::hf::test::device_models::fused32_is_exact_for_its_float_inputs(plugin, GetParam());            \
    }                                                                                                     \
    TEST_P(Suite, GradientEqualsCpuPlugin) {                                                              \
        HF_REQUIRE_SHARED();                                                                              \
        HF_REQUIRE_PLUGIN(plugin);                                                                    \
        ::hf::test::device_models::gradient_equals_cpu_plugin(plugin, GetParam());                       \
    }                                                                                                     \
    INSTANTIATE_TEST_SUITE_P(AllFixtures, Suite, ::testing::ValuesIn(::hf::test::fixture_names()),        \
                             [](const auto& info) { return info.param; })
