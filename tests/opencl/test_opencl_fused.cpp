// The opencl plugin's fused likelihood against the cpu plugin's on a small hand-made PackedLikelihood that
// uses every factor and delta kind, both constraint types, a shared parameter and factors that are zero.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "hfcore/plugin/likelihood.hpp"
#include "opencl_support.hpp"

namespace {

using hf::PackedLikelihood;

struct Builder {
    PackedLikelihood pk;
    Builder() {
        pk.factor_offsets.push_back(0);
        pk.delta_offsets.push_back(0);
    }
    struct Fac {
        int par, kind;
        double lo, hi;
    };
    struct Del {
        int par, kind;
        double lo, nom, hi;
    };
    void element(int bin, double nominal, const std::vector<Fac>& facs, const std::vector<Del>& dels) {
        pk.elem_bin.push_back(bin);
        pk.elem_nominal.push_back(nominal);
        for (const Fac& f : facs) {
            pk.factor_par.push_back(f.par);
            pk.factor_kind.push_back(f.kind);
            pk.factor_lo.push_back(f.lo);
            pk.factor_hi.push_back(f.hi);
            // Any smooth polynomial will do for comparing two plugins; these are of the size code4 produces.
            const double c[6] = {0.5 * (f.hi - f.lo), 0.05, -0.02, 0.01, 0.004, -0.001};
            for (double x : c) pk.factor_coef.push_back(f.kind == hf::kFactorNormsysCode4 ? x : 0.0);
        }
        for (const Del& d : dels) {
            pk.delta_par.push_back(d.par);
            pk.delta_kind.push_back(d.kind);
            pk.delta_lo.push_back(d.lo);
            pk.delta_nom.push_back(d.nom);
            pk.delta_hi.push_back(d.hi);
        }
        pk.factor_offsets.push_back(static_cast<int>(pk.factor_par.size()));
        pk.delta_offsets.push_back(static_cast<int>(pk.delta_par.size()));
    }
};

// Parameters: 0 mu, 1 lumi, 2 normsys code4, 3 normsys code1, 4 histosys (code4p / code2 / code0),
// 5-6 shapesys gammas (Poisson), 7 staterror gamma (Gauss), 8 free shapefactor.
PackedLikelihood make_model() {
    Builder b;
    auto& pk = b.pk;
    pk.n_pars = 9;
    pk.n_main = 4;
    pk.n_aux = 7;
    const double sig[4] = {5, 12, 20, 8}, bkg[4] = {50, 40, 30, 10};
    for (int bin = 0; bin < 4; ++bin)
        b.element(bin, sig[bin],
                  {{0, hf::kFactorLinear, 1, 1}, {1, hf::kFactorLinear, 1, 1}, {3, hf::kFactorNormsysCode1, 0.9, 1.15}},
                  {{4, hf::kDeltaCode0, sig[bin] * 0.95, sig[bin], sig[bin] * 1.1}});
    for (int bin = 0; bin < 4; ++bin) {
        std::vector<Builder::Fac> f = {{1, hf::kFactorLinear, 1, 1}, {2, hf::kFactorNormsysCode4, 0.85, 1.2}};
        if (bin < 2) f.push_back({5 + bin, hf::kFactorLinear, 1, 1});
        if (bin == 2) f.push_back({7, hf::kFactorLinear, 1, 1});
        if (bin == 3) f.push_back({8, hf::kFactorLinear, 1, 1});
        const int kind = bin % 2 ? hf::kDeltaCode2 : hf::kDeltaCode4p;
        b.element(bin, bkg[bin], f, {{4, kind, bkg[bin] * 0.9, bkg[bin], bkg[bin] * 1.07}});
    }
    // A third sample in bin 1 whose factor shares mu twice (a product of the same parameter).
    b.element(1, 3.0, {{0, hf::kFactorLinear, 1, 1}, {0, hf::kFactorLinear, 1, 1}}, {});
    pk.gauss_par = {1, 2, 3, 4, 7};
    pk.gauss_aux = {0, 1, 2, 3, 6};
    pk.gauss_sigma = {0.02, 1, 1, 1, 0.1};
    pk.pois_par = {5, 6};
    pk.pois_aux = {4, 5};
    pk.pois_tau = {400, 900};
    return pk;
}

std::vector<double> make_points(int K) {
    std::vector<double> p(static_cast<std::size_t>(9 * K));
    for (int k = 0; k < K; ++k) {
        const double t = K > 1 ? static_cast<double>(k) / (K - 1) : 0.5;
        const double row[9] = {1.0 + 0.8 * std::sin(3 * t), 1.0 + 0.03 * std::cos(5 * t), -2.0 + 4 * t,
                               1.5 - 3 * t, -1.7 + 3.4 * t * t, 0.95 + 0.1 * t, 1.05 - 0.1 * t, 0.9 + 0.2 * t, 1.2 - 0.4 * t};
        std::copy(row, row + 9, p.begin() + 9 * k);
    }
    // Zero factors: mu = 0 (mu appears twice in one element) and a zero free shapefactor.
    p[0] = 0.0;
    if (K > 2) p[2 * 9 + 8] = 0.0;
    return p;
}

const std::vector<double> kData = {57, 60, 49, 21, 1, 0.5, -0.3, 0.2, 400, 900, 1};

struct Pair {
    hf::BackendPtr cl, cpu;
    std::unique_ptr<hf::FusedLikelihood> fcl, fcpu;
};

Pair load_pair(const char* precision, const PackedLikelihood& pk) {
    hf::LoadOptions o;
    o.precision = hf::parse_precision(precision);
    Pair p;
    p.cl = hf::load_backend("opencl", o);
    p.cpu = hf::load_backend("cpu", o);
    p.fcl = hf::compile_likelihood(*p.cl, pk);
    p.fcpu = hf::compile_likelihood(*p.cpu, pk);
    return p;
}

// |a - e| <= tol * max(|e|, scale): scale keeps near-zero entries of a vector from demanding more than its
// largest entries can carry.
void expect_close(const std::vector<double>& a, const std::vector<double>& e, double tol, const char* what) {
    ASSERT_EQ(a.size(), e.size()) << what;
    double scale = 1e-30;
    for (double x : e) scale = std::max(scale, std::fabs(x));
    for (std::size_t i = 0; i < a.size(); ++i)
        EXPECT_LE(std::fabs(a[i] - e[i]), tol * std::max(std::fabs(e[i]), 1e-3 * scale))
            << what << "[" << i << "]: opencl " << a[i] << ", cpu " << e[i];
}

class OpenCLFused : public ::testing::TestWithParam<const char*> {};

TEST_P(OpenCLFused, MatchesCpuPlugin) {
    HF_REQUIRE_PLUGIN("opencl");
    HF_REQUIRE_PLUGIN("cpu");
    const bool f64 = std::string(GetParam()) == "64b";
    const double tol = f64 ? 1e-10 : 1e-5;
    const auto pk = make_model();
    Pair p = load_pair(GetParam(), pk);
    ASSERT_TRUE(p.fcl);
    ASSERT_TRUE(p.fcpu);
    EXPECT_STREQ(p.fcl->implementation(), "opencl fused");
    const int K = 5;
    const auto pars = make_points(K);
    for (bool per_point_data : {false, true}) {
        std::vector<double> data = kData;
        hf::Shape dshape = {static_cast<std::int64_t>(kData.size())};
        if (per_point_data) {
            data.clear();
            for (int k = 0; k < K; ++k)
                for (std::size_t i = 0; i < kData.size(); ++i) data.push_back(kData[i] + (i < 4 ? k : 0));
            dshape = {K, static_cast<std::int64_t>(kData.size())};
        }
        hf::Tensor gcl, gcpu;
        auto lcl = p.cl->to_host_double(p.fcl->logpdf(p.cl->from_host(pars, {K, 9}), p.cl->from_host(data, dshape), &gcl));
        auto lcpu =
            p.cpu->to_host_double(p.fcpu->logpdf(p.cpu->from_host(pars, {K, 9}), p.cpu->from_host(data, dshape), &gcpu));
        expect_close(lcl, lcpu, tol, "logpdf");
        for (double v : lcl) EXPECT_TRUE(std::isfinite(v));
        ASSERT_EQ(gcl.shape(), (hf::Shape{K, 9}));
        auto g1 = p.cl->to_host_double(gcl), g2 = p.cpu->to_host_double(gcpu);
        for (int k = 0; k < K; ++k)
            expect_close(std::vector<double>(g1.begin() + 9 * k, g1.begin() + 9 * (k + 1)),
                         std::vector<double>(g2.begin() + 9 * k, g2.begin() + 9 * (k + 1)), f64 ? 1e-10 : 1e-4,
                         "gradient");
        // Without the gradient the value is the same.
        auto l2 = p.cl->to_host_double(p.fcl->logpdf(p.cl->from_host(pars, {K, 9}), p.cl->from_host(data, dshape), nullptr));
        expect_close(l2, lcl, f64 ? 1e-14 : 1e-6, "logpdf without gradient");
    }
    expect_close(p.cl->to_host_double(p.fcl->expected_main(p.cl->from_host(pars, {K, 9}))),
                 p.cpu->to_host_double(p.fcpu->expected_main(p.cpu->from_host(pars, {K, 9}))), tol, "expected_main");
    expect_close(p.cl->to_host_double(p.fcl->expected_aux(p.cl->from_host(pars, {K, 9}))),
                 p.cpu->to_host_double(p.fcpu->expected_aux(p.cpu->from_host(pars, {K, 9}))), tol, "expected_aux");
}

TEST_P(OpenCLFused, OneEvaluationDownloadsOnlyTheResults) {
    HF_REQUIRE_PLUGIN("opencl");
    hf::LoadOptions o;
    o.precision = hf::parse_precision(GetParam());
    auto be = hf::load_backend("opencl", o);
    auto f = hf::compile_likelihood(*be, make_model());
    const int K = 16;
    auto pars = be->from_host(make_points(K), {K, 9});
    auto data = be->from_host(kData);
    f->logpdf(pars, data, nullptr);  // warm-up: the first call may build programs
    be->synchronize();
    be->reset_transfers();
    hf::Tensor grad;
    auto l = f->logpdf(pars, data, nullptr);
    auto l2 = f->logpdf(pars, data, &grad);
    be->synchronize();
    auto c = be->transfers();
    EXPECT_EQ(c.uploads, 0u);
    EXPECT_EQ(c.downloads, 0u);
    std::vector<double> host = be->to_host_double(l);
    c = be->transfers();
    EXPECT_EQ(c.downloads, 1u);
    EXPECT_EQ(c.download_bytes, K * hf::dtype_size(be->float_dtype()));
    EXPECT_EQ(host.size(), static_cast<std::size_t>(K));
    be->to_host_double(grad);
    c = be->transfers();
    EXPECT_EQ(c.downloads, 2u);
    EXPECT_EQ(c.download_bytes, (K + K * 9) * hf::dtype_size(be->float_dtype()));
    EXPECT_EQ(c.uploads, 0u);
}

TEST_P(OpenCLFused, RejectsBadShapesAndForeignTensors) {
    HF_REQUIRE_PLUGIN("opencl");
    HF_REQUIRE_PLUGIN("cpu");
    hf::LoadOptions o;
    o.precision = hf::parse_precision(GetParam());
    auto be = hf::load_backend("opencl", o);
    auto cpu = hf::load_backend("cpu", o);
    auto f = hf::compile_likelihood(*be, make_model());
    auto data = be->from_host(kData);
    EXPECT_THROW(f->logpdf(be->from_host(std::vector<double>(8, 1.0), {1, 8}), data, nullptr), hf::ShapeError);
    EXPECT_THROW(f->logpdf(be->from_host(make_points(2), {2, 9}), be->from_host(std::vector<double>(5, 1.0)), nullptr),
                 hf::ShapeError);
    EXPECT_THROW(f->logpdf(cpu->from_host(make_points(1), {1, 9}), data, nullptr), hf::BackendMismatch);
    auto bad = make_model();
    bad.factor_par[3] = 99;
    EXPECT_THROW(hf::compile_likelihood(*be, bad), hf::ShapeError);
}

TEST_P(OpenCLFused, ManyPointsAndAnEmptyBatch) {
    HF_REQUIRE_PLUGIN("opencl");
    HF_REQUIRE_PLUGIN("cpu");
    const auto pk = make_model();
    Pair p = load_pair(GetParam(), pk);
    const int K = 300;  // more groups than work-items per group, so every reduction path runs
    const auto pars = make_points(K);
    auto a = p.cl->to_host_double(p.fcl->logpdf(p.cl->from_host(pars, {K, 9}), p.cl->from_host(kData), nullptr));
    auto e = p.cpu->to_host_double(p.fcpu->logpdf(p.cpu->from_host(pars, {K, 9}), p.cpu->from_host(kData), nullptr));
    expect_close(a, e, std::string(GetParam()) == "64b" ? 1e-10 : 1e-5, "logpdf");
    hf::Tensor g;
    auto empty = p.fcl->logpdf(p.cl->empty(p.cl->float_dtype(), {0, 9}), p.cl->from_host(kData), &g);
    EXPECT_EQ(empty.shape(), (hf::Shape{0}));
    EXPECT_EQ(g.shape(), (hf::Shape{0, 9}));
}

// Central differences need 64b; the 32b gradient is checked against the cpu plugin's above.
TEST(OpenCLFusedGradient, MatchesFiniteDifferencesAt64b) {
    HF_REQUIRE_PLUGIN("opencl");
    hf::LoadOptions o;
    o.precision = hf::Precision::f64;
    auto be = hf::load_backend("opencl", o);
    auto f = hf::compile_likelihood(*be, make_model());
    auto pars = make_points(3);
    pars[0] = 0.7;
    pars[9 + 3] = 0.3;  // code1 has a kink at 0, where a central difference averages the two slopes
    auto data = be->from_host(kData);
    hf::Tensor g;
    f->logpdf(be->from_host(pars, {3, 9}), data, &g);
    auto grad = be->to_host_double(g);
    const double h = 1e-6;
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 9; ++i) {
            auto up = pars, dn = pars;
            up[9 * k + i] += h;
            dn[9 * k + i] -= h;
            auto lu = be->to_host_double(f->logpdf(be->from_host(up, {3, 9}), data, nullptr));
            auto ld = be->to_host_double(f->logpdf(be->from_host(dn, {3, 9}), data, nullptr));
            const double fd = (lu[k] - ld[k]) / (2 * h);
            EXPECT_NEAR(grad[9 * k + i], fd, 1e-5 * std::max(1.0, std::fabs(fd))) << "point " << k << " par " << i;
        }
}

// The fused kernels without doubles (GPUs lacking cl_khr_fp64): sums and terms then stay in float.
TEST(OpenCLNoFp64Fused, MatchesCpuPlugin32b) {
    HF_REQUIRE_PLUGIN("opencl");
    HF_REQUIRE_PLUGIN("cpu");
    hf::test::ScopedEnv hide("HFCORE_OPENCL_DISABLE_FP64", "1");
    Pair p = load_pair("32b", make_model());
    const int K = 7;
    const auto pars = make_points(K);
    hf::Tensor gcl, gcpu;
    auto a = p.cl->to_host_double(p.fcl->logpdf(p.cl->from_host(pars, {K, 9}), p.cl->from_host(kData), &gcl));
    auto e = p.cpu->to_host_double(p.fcpu->logpdf(p.cpu->from_host(pars, {K, 9}), p.cpu->from_host(kData), &gcpu));
    expect_close(a, e, 1e-5, "logpdf");
    auto g1 = p.cl->to_host_double(gcl), g2 = p.cpu->to_host_double(gcpu);
    for (int k = 0; k < K; ++k)
        expect_close(std::vector<double>(g1.begin() + 9 * k, g1.begin() + 9 * (k + 1)),
                     std::vector<double>(g2.begin() + 9 * k, g2.begin() + 9 * (k + 1)), 1e-4, "gradient");
}

INSTANTIATE_TEST_SUITE_P(Precisions, OpenCLFused, ::testing::Values("64b", "32b"),
                         [](const auto& info) { return std::string("p") + info.param; });

}  // namespace
