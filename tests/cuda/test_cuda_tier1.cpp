// Tier 1 kernels of the cuda plugin against host computations, at both precisions. Shapes are chosen to reach
// every code path: multi-pass and strided reductions, the shared-memory and global sorts, broadcasting,
// batched GEMM. (The conformance suite covers the full op matrix on every plugin.)
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "cuda_test_support.hpp"

namespace {

using hf::BinaryOp;
using hf::DType;
using hf::ReduceOp;
using hf::Shape;
using hf::UnaryOp;

class CudaTier1 : public ::testing::TestWithParam<std::string> {
protected:
    double rel() const { return GetParam() == "64b" ? 1e-13 : 2e-6; }
    static std::vector<double> randoms(std::size_t n, unsigned seed, double lo = -3, double hi = 3) {
        std::mt19937_64 g(seed);
        std::uniform_real_distribution<double> u(lo, hi);
        std::vector<double> v(n);
        for (auto& x : v) x = u(g);
        return v;
    }
    // Values exactly representable in float, so both precisions start from the same numbers.
    static std::vector<double> as_float(std::vector<double> v) {
        for (auto& x : v) x = static_cast<float>(x);
        return v;
    }
};

TEST_P(CudaTier1, BroadcastArithmeticAndComparisons) {
    HF_CUDA_BACKEND_OR_SKIP(b, GetParam());
    auto av = as_float(randoms(3 * 4, 1)), bv = as_float(randoms(4, 2, 0.5, 2));
    auto a = b->from_host(av, Shape{3, 4});
    auto c = b->from_host(bv, Shape{4});
    auto sum = b->to_host_double(b->binary(BinaryOp::add, a, c));
    auto pw = b->to_host_double(b->binary(BinaryOp::pow, c, a));
    auto lt = b->to_host_double(b->binary(BinaryOp::lt, a, c));
    auto col = b->from_host(as_float(randoms(3, 3)), Shape{3, 1});
    auto outer = b->to_host_double(b->binary(BinaryOp::mul, col, c));  // [3,1] x [4] -> [3,4]
    auto colv = b->to_host_double(col);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) {
            const int k = i * 4 + j;
            EXPECT_TRUE(hf::test::close_rel(sum[k], av[k] + bv[j], rel()));
            EXPECT_TRUE(hf::test::close_rel(pw[k], std::pow(bv[j], av[k]), 4 * rel())) << pw[k];
            EXPECT_EQ(lt[k], av[k] < bv[j] ? 1.0 : 0.0);
            EXPECT_TRUE(hf::test::close_rel(outer[k], colv[i] * bv[j], rel()));
        }
    // integer floor division and bool results
    std::vector<std::int64_t> xi{7, -7, 7, -7, 5}, yi{2, 2, -2, -2, 0};
    auto q = b->to_host_double(b->binary(BinaryOp::div, b->from_host_index(xi), b->from_host_index(yi)));
    EXPECT_EQ(q, (std::vector<double>{3, -4, -4, 3, 0}));
}

TEST_P(CudaTier1, UnaryAndSpecialFunctions) {
    HF_CUDA_BACKEND_OR_SKIP(b, GetParam());
    std::vector<double> x{0.1, 0.5, 1.0, 2.5, 7.0, 30.0};
    auto t = b->from_host(x);
    auto lg = b->to_host_double(b->unary(UnaryOp::lgamma, t));
    auto ex = b->to_host_double(b->unary(UnaryOp::exp, t));
    auto sg = b->to_host_double(b->unary(UnaryOp::sign, b->unary(UnaryOp::neg, t)));
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double xf = GetParam() == "64b" ? x[i] : static_cast<float>(x[i]);
        EXPECT_TRUE(hf::test::close_rel(lg[i], std::lgamma(xf), 8 * rel(), 1e-12)) << x[i];
        EXPECT_TRUE(hf::test::close_rel(ex[i], std::exp(xf), 4 * rel())) << x[i];
        EXPECT_EQ(sg[i], -1.0);
    }
    std::vector<double> p{1e-10, 0.025, 0.5, 0.975, 1 - 1e-7};
    auto ppf = b->to_host_double(b->unary(UnaryOp::normal_ppf, b->from_host(p)));
    auto back = b->to_host_double(b->unary(UnaryOp::normal_cdf, b->from_host(ppf)));
    for (std::size_t i = 0; i < p.size(); ++i) {
        const double pf = GetParam() == "64b" ? p[i] : static_cast<float>(p[i]);
        EXPECT_TRUE(hf::test::close_rel(back[i], pf, GetParam() == "64b" ? 1e-12 : 1e-5)) << p[i];
    }
    EXPECT_TRUE(hf::test::close_rel(ppf[1], -1.959963984540054, GetParam() == "64b" ? 1e-13 : 1e-6));
    // isfinite and casts saturate like numpy's cpu path
    std::vector<double> odd{1.0, NAN, INFINITY, -INFINITY, 3e9};
    auto fin = b->to_host_double(b->unary(UnaryOp::isfinite, b->from_host(odd)));
    EXPECT_EQ(fin, (std::vector<double>{1, 0, 0, 0, 1}));
    auto ints = b->to_host_double(b->cast(b->from_host(odd), DType::i32));
    EXPECT_EQ(ints, (std::vector<double>{1, -2147483648.0, 2147483647.0, -2147483648.0, 2147483647.0}));
}

TEST_P(CudaTier1, ReductionsArePairwiseAndFollowTheAxes) {
    HF_CUDA_BACKEND_OR_SKIP(b, GetParam());
    const std::int64_t A = 3, N = 5000, C = 7;
    auto v = as_float(randoms(A * N * C, 4));
    auto x = b->from_host(v, Shape{A, N, C});
    for (int axis = 0; axis < 3; ++axis) {
        auto s = b->to_host_double(b->reduce(ReduceOp::sum, x, axis));
        auto mx = b->to_host_double(b->reduce(ReduceOp::max, x, axis));
        const std::int64_t dims[3] = {A, N, C};
        std::int64_t outer = 1, inner = 1;
        for (int d = 0; d < axis; ++d) outer *= dims[d];
        for (int d = axis + 1; d < 3; ++d) inner *= dims[d];
        const std::int64_t n = dims[axis];
        ASSERT_EQ(static_cast<std::int64_t>(s.size()), outer * inner);
        for (std::int64_t o = 0; o < outer; ++o)
            for (std::int64_t i = 0; i < inner; ++i) {
                long double ref = 0, ref_abs = 0;
                double ref_max = -INFINITY;
                for (std::int64_t j = 0; j < n; ++j) {
                    double e = v[(o * n + j) * inner + i];
                    ref += e;
                    ref_abs += std::fabs(e);
                    ref_max = std::max(ref_max, e);
                }
                const double tol = (GetParam() == "64b" ? 1e-15 : 1e-6) * double(ref_abs) * 4;
                EXPECT_NEAR(s[o * inner + i], double(ref), tol) << "axis " << axis;
                EXPECT_EQ(mx[o * inner + i], GetParam() == "64b" ? ref_max : double(float(ref_max)));
            }
    }
    // A long 32b sum where a running float sum loses digits and a pairwise one does not.
    auto ones = b->full(Shape{1 << 22}, 0.1);
    const double expect = double(GetParam() == "64b" ? 0.1 : double(0.1f)) * (1 << 22);
    EXPECT_TRUE(hf::test::close_rel(b->to_host_double(b->reduce_all(ReduceOp::sum, ones))[0], expect,
                                    GetParam() == "64b" ? 1e-14 : 1e-6));
    // NaN wins max; an empty sum is 0
    auto nanmax = b->to_host_double(b->reduce_all(ReduceOp::max, b->from_host(std::vector<double>{1, NAN, 3})));
    EXPECT_TRUE(std::isnan(nanmax[0]));
    EXPECT_EQ(b->to_host_double(b->reduce_all(ReduceOp::sum, b->empty(b->float_dtype(), Shape{0})))[0], 0.0);
}

TEST_P(CudaTier1, SortGatherTransposeConcatSelect) {
    HF_CUDA_BACKEND_OR_SKIP(b, GetParam());
    for (std::int64_t n : {1, 37, 1000, 5000}) {  // 5000 takes the padded global-memory network
        auto v = as_float(randoms(static_cast<std::size_t>(2 * n * 3), 5 + unsigned(n)));
        v[0] = NAN;
        auto got = b->to_host_double(b->sort(b->from_host(v, Shape{2, n, 3}), 1));
        for (std::int64_t o = 0; o < 2; ++o)
            for (std::int64_t i = 0; i < 3; ++i) {
                std::vector<double> col(static_cast<std::size_t>(n));
                for (std::int64_t j = 0; j < n; ++j) col[j] = v[(o * n + j) * 3 + i];
                std::sort(col.begin(), col.end(), [](double a, double c) {
                    return a < c || (!std::isnan(a) && std::isnan(c));
                });
                for (std::int64_t j = 0; j < n; ++j) {
                    const double g = got[(o * n + j) * 3 + i];
                    if (std::isnan(col[j])) EXPECT_TRUE(std::isnan(g));
                    else EXPECT_EQ(g, col[j]) << "n " << n << " j " << j;
                }
            }
    }
    auto v = as_float(randoms(2 * 3 * 4, 6));
    auto x = b->from_host(v, Shape{2, 3, 4});
    auto tr = b->to_host_double(b->transpose(x, {2, 0, 1}));  // [4, 2, 3]
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j)
            for (int k = 0; k < 3; ++k) EXPECT_EQ(tr[(i * 2 + j) * 3 + k], v[(j * 3 + k) * 4 + i]);
    auto g = b->to_host_double(b->gather(x, b->from_host_index({2, 0, 2}), 1));  // [2, 3, 4]
    const int pick[3] = {2, 0, 2};
    for (int o = 0; o < 2; ++o)
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 4; ++i) EXPECT_EQ(g[(o * 3 + j) * 4 + i], v[(o * 3 + pick[j]) * 4 + i]);
    auto cat = b->to_host_double(b->concat({x, b->full(Shape{2, 1, 4}, 9.0)}, 1));  // [2, 4, 4]
    for (int o = 0; o < 2; ++o)
        for (int j = 0; j < 4; ++j)
            for (int i = 0; i < 4; ++i)
                EXPECT_EQ(cat[(o * 4 + j) * 4 + i], j < 3 ? v[(o * 3 + j) * 4 + i] : 9.0);
    // masked_select over more than one block, in order
    auto big = as_float(randoms(1000, 7));
    auto bt = b->from_host(big);
    auto sel = b->to_host_double(b->masked_select(bt, b->binary(BinaryOp::gt, bt, b->full(Shape{1}, 0.5))));
    std::vector<double> ref;
    for (double e : big)
        if (e > 0.5) ref.push_back(e);
    EXPECT_EQ(sel, ref);
}

TEST_P(CudaTier1, MatmulAndBatchedMatmul) {
    HF_CUDA_BACKEND_OR_SKIP(b, GetParam());
    const int B = 4, M = 3, K = 5, N = 2;
    auto av = as_float(randoms(B * M * K, 8)), bv = as_float(randoms(K * N, 9));
    auto c = b->to_host_double(b->matmul(b->from_host(av, Shape{B, M, K}), b->from_host(bv, Shape{K, N})));
    ASSERT_EQ(c.size(), std::size_t(B * M * N));
    for (int p = 0; p < B; ++p)
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
                double ref = 0;
                for (int k = 0; k < K; ++k) ref += av[(p * M + i) * K + k] * bv[k * N + j];
                EXPECT_NEAR(c[(p * M + i) * N + j], ref, GetParam() == "64b" ? 1e-13 : 1e-5);
            }
    auto mv = b->to_host_double(b->matmul(b->from_host(bv, Shape{K, N}), b->from_host(std::vector<double>{1, -1})));
    for (int k = 0; k < K; ++k) EXPECT_NEAR(mv[k], bv[k * N] - bv[k * N + 1], 1e-6);
}

// The same seed gives the same numbers as the cpu plugin (uniforms bit for bit).
TEST_P(CudaTier1, RandomNumbersMatchTheCpuPlugin) {
    HF_CUDA_BACKEND_OR_SKIP(b, GetParam());
    HF_CPU_BACKEND_OR_SKIP(cpu, GetParam());
    const Shape s{10000};
    auto u_gpu = b->to_host_double(b->random_uniform(s, 1234, 99));
    auto u_cpu = cpu->to_host_double(cpu->random_uniform(s, 1234, 99));
    EXPECT_EQ(u_gpu, u_cpu);
    auto n_gpu = b->to_host_double(b->random_normal(s, 1234, 5));
    auto n_cpu = cpu->to_host_double(cpu->random_normal(s, 1234, 5));
    for (std::size_t i = 0; i < n_gpu.size(); ++i)
        ASSERT_TRUE(hf::test::close_rel(n_gpu[i], n_cpu[i], GetParam() == "64b" ? 1e-14 : 1e-5, 1e-12)) << i;
    std::vector<double> rates(10000);
    for (std::size_t i = 0; i < rates.size(); ++i) rates[i] = static_cast<float>(0.01 + 0.05 * double(i));
    auto p_gpu = b->to_host_double(b->random_poisson(b->from_host(rates), 77));
    auto p_cpu = cpu->to_host_double(cpu->random_poisson(cpu->from_host(rates), 77));
    std::size_t differ = 0;
    for (std::size_t i = 0; i < p_gpu.size(); ++i) differ += p_gpu[i] != p_cpu[i];
    // libm and CUDA's log/lgamma may differ in the last ulp: a rejection decision can flip, very rarely.
    EXPECT_LE(differ, std::size_t(2)) << "poisson draws differ from the cpu plugin's in " << differ << " places";
}

INSTANTIATE_TEST_SUITE_P(Precisions, CudaTier1, ::testing::Values("64b", "32b"),
                         [](const auto& info) { return "p" + info.param; });

}  // namespace
