// The cuda plugin's fused likelihood on a hand-made PackedLikelihood that uses every factor and delta kind,
// both constraint kinds and a normfactor at zero: against the long-double reference of
// tests/common/packed_reference.hpp (written independently of the plugins), against
// the cpu plugin's fused likelihood (1e-10 at 64b), and for its transfers (K numbers per evaluation).
#include <cmath>
#include <vector>

#include "cuda_test_support.hpp"
#include "hfcore/plugin/likelihood.hpp"
#include "packed_reference.hpp"

namespace {

using hf::PackedLikelihood;
using hf::Shape;

// 3 bins x 2 samples (signal, background). Parameters:
//  0 mu (normfactor, signal)        1 lumi (both, Gaussian)          2 normsys code4 (background)
//  3 normsys code1 (signal)         4 histosys code4p (background)   5 histosys code0 (signal)
//  6 histosys code2 (background)    7-9 staterror gammas (background, Gaussian per bin)
// 10 shapesys gamma (signal, bin 1, Poisson tau = 25)
PackedLikelihood make_packed() {
    PackedLikelihood pk;
    pk.n_pars = 11;
    pk.n_main = 3;
    pk.n_aux = 10;
    const double sig[3] = {5.0, 12.0, 3.0}, bkg[3] = {50.0, 40.0, 20.0};
    pk.factor_offsets.push_back(0);
    pk.delta_offsets.push_back(0);
    auto factor = [&](int par, int kind, double lo, double hi, std::vector<double> coef) {
        pk.factor_par.push_back(par);
        pk.factor_kind.push_back(kind);
        pk.factor_lo.push_back(lo);
        pk.factor_hi.push_back(hi);
        coef.resize(6, 0.0);
        pk.factor_coef.insert(pk.factor_coef.end(), coef.begin(), coef.end());
    };
    auto delta = [&](int par, int kind, double lo, double nom, double hi) {
        pk.delta_par.push_back(par);
        pk.delta_kind.push_back(kind);
        pk.delta_lo.push_back(lo);
        pk.delta_nom.push_back(nom);
        pk.delta_hi.push_back(hi);
    };
    auto close_element = [&] {
        pk.factor_offsets.push_back(static_cast<std::int32_t>(pk.factor_par.size()));
        pk.delta_offsets.push_back(static_cast<std::int32_t>(pk.delta_par.size()));
    };
    // Elements in sample-major order (as a packer lays them out), so bins are not contiguous.
    for (int b = 0; b < 3; ++b) {
        pk.elem_bin.push_back(b);
        pk.elem_nominal.push_back(sig[b]);
        factor(0, hf::kFactorLinear, 1, 1, {});
        factor(1, hf::kFactorLinear, 1, 1, {});
        factor(3, hf::kFactorNormsysCode1, 0.9, 1.15, {});
        if (b == 1) factor(10, hf::kFactorLinear, 1, 1, {});
        delta(5, hf::kDeltaCode0, sig[b] * 0.92, sig[b], sig[b] * 1.05);
        close_element();
    }
    for (int b = 0; b < 3; ++b) {
        pk.elem_bin.push_back(b);
        pk.elem_nominal.push_back(bkg[b]);
        factor(1, hf::kFactorLinear, 1, 1, {});
        // code4 coefficients as given (any smooth table does: both implementations read the same numbers)
        factor(2, hf::kFactorNormsysCode4, 0.85, 1.2, {0.02, 0.01, -0.004, 0.003, 0.001, -0.0005});
        factor(7 + b, hf::kFactorLinear, 1, 1, {});
        delta(4, hf::kDeltaCode4p, bkg[b] * 0.95, bkg[b], bkg[b] * 1.07);
        delta(6, hf::kDeltaCode2, bkg[b] * 0.97, bkg[b], bkg[b] * 1.02);
        close_element();
    }
    // Gaussian constraints: lumi (sigma 0.02), the alphas (1), staterror (per bin); aux order = parameter order
    const int gpar[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    const double gsig[9] = {0.02, 1, 1, 1, 1, 1, 0.05, 0.07, 0.1};
    for (int i = 0; i < 9; ++i) {
        pk.gauss_par.push_back(gpar[i]);
        pk.gauss_aux.push_back(i);
        pk.gauss_sigma.push_back(gsig[i]);
    }
    pk.pois_par.push_back(10);
    pk.pois_aux.push_back(9);
    pk.pois_tau.push_back(25.0);
    return pk;
}

std::vector<double> make_data() {  // 3 main counts (one zero) + 10 aux
    return {60, 0, 27, 1, 0, 0, 0, 0, 0, 1, 1, 1, 25};
}

// K points inside and outside |alpha| < 1, with mu = 0 among them.
std::vector<double> make_points(int K) {
    std::vector<double> p;
    for (int k = 0; k < K; ++k) {
        const double t = double(k) / (K - 1);
        p.insert(p.end(), {k == 0 ? 0.0 : 0.3 + 1.5 * t, 1.0 + 0.03 * (t - 0.5), -1.7 + 3.4 * t, 0.4 - 1.6 * t,
                           1.3 - 2.6 * t, -0.5 + 0.9 * t, 2.0 * t - 1.2, 1.0 + 0.05 * t, 0.98, 1.0 - 0.08 * t,
                           0.9 + 0.2 * t});
    }
    return p;
}


class CudaFused : public ::testing::TestWithParam<std::string> {
protected:
    bool f64() const { return GetParam() == "64b"; }
};

TEST_P(CudaFused, MatchesTheReferenceAndTheCpuPlugin) {
    HF_CUDA_BACKEND_OR_SKIP(b, GetParam());
    const auto pk = make_packed();
    auto fused = hf::compile_likelihood(*b, pk);
    ASSERT_NE(fused, nullptr);
    EXPECT_STREQ(fused->implementation(), "cuda fused");
    const int K = 7;
    const auto pars = make_points(K);
    const auto data = make_data();
    // 32b: the inputs are rounded to float first, so that the reference sees the same numbers.
    std::vector<double> pars_in = pars, data_in = data;
    if (!f64()) {
        for (auto& x : pars_in) x = static_cast<float>(x);
        for (auto& x : data_in) x = static_cast<float>(x);
    }
    auto tp = b->from_host(pars_in, Shape{K, pk.n_pars});
    auto td = b->from_host(data_in);
    hf::Tensor tg;
    auto lp = b->to_host_double(fused->logpdf(tp, td, &tg));
    auto grad = b->to_host_double(tg);
    auto em = b->to_host_double(fused->expected_main(tp));
    auto ea = b->to_host_double(fused->expected_aux(tp));
    ASSERT_EQ(lp.size(), std::size_t(K));
    ASSERT_EQ(grad.size(), std::size_t(K * pk.n_pars));
    ASSERT_EQ(em.size(), std::size_t(K * pk.n_main));
    ASSERT_EQ(ea.size(), std::size_t(K * pk.n_aux));

    const double rel = f64() ? 1e-10 : 2e-4;
    for (int k = 0; k < K; ++k) {
        const double* p = &pars_in[k * pk.n_pars];
        const auto r = hf::test::packed::evaluate(pk, std::vector<double>(p, p + pk.n_pars), data_in.data(), true);
        const double l_ref = static_cast<double>(r.logpdf);
        const std::vector<double> g_ref(r.grad.begin(), r.grad.end()), r_ref(r.rate.begin(), r.rate.end());
        EXPECT_TRUE(hf::test::close_rel(lp[k], l_ref, rel, f64() ? 0.0 : 1e-3)) << "point " << k << ": " << lp[k] << " vs " << l_ref;
        for (int i = 0; i < pk.n_pars; ++i)
            EXPECT_TRUE(hf::test::close_rel(grad[k * pk.n_pars + i], g_ref[i], rel, f64() ? 1e-9 : 2e-2))
                << "point " << k << " d/dpar " << i << ": " << grad[k * pk.n_pars + i] << " vs " << g_ref[i];
        for (int j = 0; j < pk.n_main; ++j)
            EXPECT_TRUE(hf::test::close_rel(em[k * pk.n_main + j], r_ref[j], f64() ? 1e-12 : 1e-5));
        for (int a = 0; a < 9; ++a) EXPECT_TRUE(hf::test::close_rel(ea[k * pk.n_aux + a], p[a + 1], 1e-12));
        EXPECT_TRUE(hf::test::close_rel(ea[k * pk.n_aux + 9], 25.0 * p[10], f64() ? 1e-14 : 1e-6));
    }

    // Per-point data [K, N + A] gives the same numbers as shared data.
    std::vector<double> tiled;
    for (int k = 0; k < K; ++k) tiled.insert(tiled.end(), data_in.begin(), data_in.end());
    auto lp2 = b->to_host_double(fused->logpdf(tp, b->from_host(tiled, Shape{K, pk.n_main + pk.n_aux}), nullptr));
    EXPECT_EQ(lp2, lp);

    // The gradient agrees with central differences of the device logpdf (64b only: 32b has no digits to spare).
    if (f64()) {
        const double h = 1e-6;
        std::vector<double> shifted;
        for (int i = 0; i < pk.n_pars; ++i)
            for (int s : {+1, -1}) {
                std::vector<double> q(pars.begin(), pars.begin() + pk.n_pars);
                q[i] += s * h;
                shifted.insert(shifted.end(), q.begin(), q.end());
            }
        auto lps = b->to_host_double(fused->logpdf(b->from_host(shifted, Shape{2 * pk.n_pars, pk.n_pars}), td, nullptr));
        for (int i = 0; i < pk.n_pars; ++i)
            EXPECT_NEAR((lps[2 * i] - lps[2 * i + 1]) / (2 * h), grad[i], 1e-4 * (1 + std::fabs(grad[i]))) << i;
    }

    // The cpu plugin's fused likelihood, when there is one.
    std::string why;
    auto cpu = hf::test::backend_or_reason("cpu", GetParam(), &why);
    if (!cpu) GTEST_SKIP() << "skipped (the comparisons above ran): " << why;
    auto cfused = hf::compile_likelihood(*cpu, pk);
    if (!cfused) GTEST_SKIP() << "skipped (the comparisons above ran): the cpu plugin has no fused likelihood";
    hf::Tensor cg;
    auto clp = cpu->to_host_double(cfused->logpdf(cpu->from_host(pars_in, Shape{K, pk.n_pars}), cpu->from_host(data_in), &cg));
    auto cgrad = cpu->to_host_double(cg);
    for (int k = 0; k < K; ++k) {
        EXPECT_TRUE(hf::test::close_rel(lp[k], clp[k], rel, f64() ? 0.0 : 1e-3)) << "point " << k;
        for (int i = 0; i < pk.n_pars; ++i)
            EXPECT_TRUE(hf::test::close_rel(grad[k * pk.n_pars + i], cgrad[k * pk.n_pars + i], rel, f64() ? 1e-9 : 2e-2))
                << "point " << k << " d/dpar " << i;
    }
}

// One evaluation of K points moves K numbers to the host (and the gradient when asked), nothing else.
TEST_P(CudaFused, EvaluationDownloadsOnlyTheResults) {
    HF_CUDA_BACKEND_OR_SKIP(b, GetParam());
    const auto pk = make_packed();
    auto fused = hf::compile_likelihood(*b, pk);
    const int K = 64;
    auto tp = b->from_host(make_points(K), Shape{K, pk.n_pars});
    auto td = b->from_host(make_data());
    const std::uint64_t es = f64() ? 8 : 4;

    b->reset_transfers();
    auto lp = fused->logpdf(tp, td, nullptr);
    std::vector<double> host = b->to_host_double(lp);
    auto t = b->transfers();
    EXPECT_EQ(t.uploads, 0u);
    EXPECT_EQ(t.downloads, 1u);
    EXPECT_EQ(t.download_bytes, K * es);

    b->reset_transfers();
    hf::Tensor g;
    lp = fused->logpdf(tp, td, &g);
    b->to_host_double(lp);
    b->to_host_double(g);
    t = b->transfers();
    EXPECT_EQ(t.uploads, 0u);
    EXPECT_EQ(t.downloads, 2u);
    EXPECT_EQ(t.download_bytes, (K + K * pk.n_pars) * es);
}

TEST_P(CudaFused, RejectsInconsistentTables) {
    HF_CUDA_BACKEND_OR_SKIP(b, GetParam());
    auto pk = make_packed();
    pk.factor_par[2] = 99;
    EXPECT_THROW(hf::compile_likelihood(*b, pk), hf::ShapeError);
    pk = make_packed();
    pk.delta_offsets.back() += 1;
    EXPECT_THROW(hf::compile_likelihood(*b, pk), hf::ShapeError);
}

INSTANTIATE_TEST_SUITE_P(Precisions, CudaFused, ::testing::Values("64b", "32b"),
                         [](const auto& info) { return "p" + info.param; });

}  // namespace
