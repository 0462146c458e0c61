// Real models on the opencl plugin: every reference workspace (tests/reference/model, pyhf's numbers) built on
// opencl: 64b against pyhf's exact values, 32b against the exact value of its float inputs, gradients against
// the cpu plugin's.
#include <cmath>

#include "../model/model_fixture.hpp"
#include "hfcore/plugin/likelihood.hpp"
#include "opencl_support.hpp"

namespace hf::test {
namespace {

class OpenCLModels : public ::testing::TestWithParam<std::string> {};

LoadOptions precision(const char* p) {
    LoadOptions o;
    o.precision = hf::parse_precision(p);
    return o;
}

TEST_P(OpenCLModels, Fused64MatchesPyhfTo1e12) {
    HF_REQUIRE_SHARED();
    HF_REQUIRE_PLUGIN("opencl");
    Fixture f = load_fixture(GetParam());
    Model m(f.spec, load_backend("opencl", precision("64b")));
    EXPECT_STREQ(m.implementation(), "opencl fused");
    check_points(m, f, 1e-12, 1e-12);
}

// 32b against the exact value of the same float inputs: pars, data and the packed tables rounded to float and
// evaluated by the cpu plugin at 64b. (Against pyhf's double inputs no 32b backend can get 1e-5 on large-tau
// models: rounding a shapesys parameter to float alone moves logpdf by 1e-2 when tau is 1e11.)
TEST_P(OpenCLModels, Fused32IsExactForItsFloatInputsTo1e5) {
    HF_REQUIRE_SHARED();
    HF_REQUIRE_PLUGIN("opencl");
    HF_REQUIRE_PLUGIN("cpu");
    Fixture f = load_fixture(GetParam());
    Model m(f.spec, load_backend("cpu"));
    PackedLikelihood pk = hf::packed_likelihood(m);
    auto rf = [](std::vector<double>& v) {
        for (double& x : v) x = static_cast<double>(static_cast<float>(x));
    };
    for (auto* v : {&pk.elem_nominal, &pk.factor_lo, &pk.factor_hi, &pk.factor_coef, &pk.delta_lo, &pk.delta_nom,
                    &pk.delta_hi, &pk.gauss_sigma, &pk.pois_tau})
        rf(*v);
    auto cpu = load_backend("cpu", precision("64b"));
    auto cl = load_backend("opencl", precision("32b"));
    auto ref = hf::compile_likelihood(*cpu, pk);
    auto fl = hf::compile_likelihood(*cl, pk);
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
    auto a = cl->to_host_double(fl->logpdf(cl->from_host(pars, {K, P}), cl->from_host(data), &g1));
    auto e = cpu->to_host_double(ref->logpdf(cpu->from_host(pars, {K, P}), cpu->from_host(data), &g2));
    for (std::int64_t k = 0; k < K; ++k)
        EXPECT_TRUE(close(a[k], e[k], 1e-5, 1e-5)) << f.name << " point " << k << ": logpdf " << a[k] << " vs "
                                                   << e[k] << " (rel " << std::abs(a[k] - e[k]) / std::abs(e[k]) << ")";
    auto ga = cl->to_host_double(g1), ge = cpu->to_host_double(g2);
    for (std::int64_t k = 0; k < K; ++k) {
        double scale = 1.0;
        for (std::int64_t i = 0; i < P; ++i) scale = std::max(scale, std::abs(ge[k * P + i]));
        for (std::int64_t i = 0; i < P; ++i)
            EXPECT_TRUE(close(ga[k * P + i], ge[k * P + i], 1e-4, 1e-5 * scale))
                << f.name << " point " << k << " grad[" << i << "]: " << ga[k * P + i] << " vs " << ge[k * P + i];
    }
    auto xa = cl->to_host_double(fl->expected_main(cl->from_host(pars, {K, P})));
    auto xe = cpu->to_host_double(ref->expected_main(cpu->from_host(pars, {K, P})));
    for (std::size_t i = 0; i < xe.size(); ++i)
        EXPECT_TRUE(close(xa[i], xe[i], 1e-5, 1e-6)) << f.name << " expected_main[" << i << "]";
}

TEST_P(OpenCLModels, GradientEqualsCpuPlugin) {
    HF_REQUIRE_SHARED();
    HF_REQUIRE_PLUGIN("opencl");
    HF_REQUIRE_PLUGIN("cpu");
    Fixture f = load_fixture(GetParam());
    Model mcl(f.spec, load_backend("opencl", precision("64b")));
    Model mcpu(f.spec, load_backend("cpu", precision("64b")));
    Tensor dcl = mcl.backend()->from_host(f.data), dcpu = mcpu.backend()->from_host(f.data);
    for (const auto& p : f.doc["points"].as_array()) {
        auto x = numbers(p["pars"]);
        std::vector<double> gcl, gcpu;
        const double lcl = mcl.logpdf_and_grad(x, dcl, gcl);
        const double lcpu = mcpu.logpdf_and_grad(x, dcpu, gcpu);
        EXPECT_TRUE(close(lcl, lcpu, 1e-12, 1e-12)) << f.name << ": logpdf " << lcl << " vs cpu " << lcpu;
        ASSERT_EQ(gcl.size(), gcpu.size());
        double scale = 1.0;
        for (double g : gcpu) scale = std::max(scale, std::abs(g));
        for (std::size_t i = 0; i < gcl.size(); ++i)
            EXPECT_TRUE(close(gcl[i], gcpu[i], 1e-10, 1e-12 * scale))
                << f.name << " " << p["label"].as_string() << " grad[" << i << "]: " << gcl[i] << " vs cpu " << gcpu[i];
    }
}

INSTANTIATE_TEST_SUITE_P(AllFixtures, OpenCLModels, ::testing::ValuesIn(fixture_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace hf::test
