// Tier 1 behaviour specific to the opencl plugin (the conformance suite covers the common contract): accurate
// device reductions, the bitonic sort on awkward sizes, masked_select, gather index checks and clamping, random numbers equal to
// the cpu plugin's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "opencl_support.hpp"

namespace {

hf::BackendPtr cl(const char* precision) {
    hf::LoadOptions o;
    o.precision = hf::parse_precision(precision);
    return hf::load_backend("opencl", o);
}

class OpenCLOps : public ::testing::TestWithParam<const char*> {
protected:
    void SetUp() override {
        HF_REQUIRE_PLUGIN("opencl");
        be = cl(GetParam());
    }
    bool f32() const { return std::string(GetParam()) == "32b"; }
    hf::BackendPtr be;
};

TEST_P(OpenCLOps, LongSumsAreCompensated) {
    // 1 + many tiny values: a naive float sum loses every tiny value; compensated sums keep them.
    const std::int64_t n = 1 << 20;
    std::vector<double> v(static_cast<std::size_t>(n), 1e-8);
    v[0] = 1.0;
    const double expect = 1.0 + 1e-8 * static_cast<double>(n - 1);
    auto x = be->from_host(v);
    auto all = be->to_host_double(be->reduce_all(hf::ReduceOp::sum, x))[0];
    EXPECT_NEAR(all, expect, f32() ? 2e-6 : 1e-13);
    // Few long rows (work-group path) and many short ones (work-item path).
    auto rows = be->to_host_double(be->reduce(hf::ReduceOp::sum, x.reshape({4, n / 4}), 1));
    EXPECT_NEAR(rows[0], 1.0 + 1e-8 * static_cast<double>(n / 4 - 1), f32() ? 2e-6 : 1e-13);
    EXPECT_NEAR(rows[1], 1e-8 * static_cast<double>(n / 4), f32() ? 1e-9 : 1e-15);
    auto cols = be->to_host_double(be->reduce(hf::ReduceOp::sum, x.reshape({n / 2048, 2048}), 0));
    EXPECT_NEAR(cols[0], 1.0 + 1e-8 * static_cast<double>(n / 2048 - 1), f32() ? 1e-6 : 1e-13);
}

TEST_P(OpenCLOps, ReductionsPropagateInfAndNan) {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> v(5000, 1.0);
    v[1234] = inf;
    EXPECT_EQ(be->to_host_double(be->reduce_all(hf::ReduceOp::sum, be->from_host(v)))[0], inf);
    v[17] = nan;
    EXPECT_TRUE(std::isnan(be->to_host_double(be->reduce_all(hf::ReduceOp::max, be->from_host(v)))[0]));
    EXPECT_TRUE(std::isnan(be->to_host_double(be->reduce_all(hf::ReduceOp::sum, be->from_host(v)))[0]));
}

TEST_P(OpenCLOps, SortsAwkwardLengthsWithNanLast) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::int64_t n : {1, 2, 3, 7, 100, 1000, 1025}) {
        std::vector<double> v(static_cast<std::size_t>(3 * n));
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::fmod(static_cast<double>(i) * 7919.0, 1009.0) - 500;
        if (n > 3) v[2] = nan;
        // Sort along the middle axis of [3, n] viewed as [1, 3, n] -> axis 1 with inner n, and along the last.
        auto sorted = be->to_host_double(be->sort(be->from_host(v, {3, n}), 1));
        for (int r = 0; r < 3; ++r) {
            std::vector<double> row(v.begin() + r * n, v.begin() + (r + 1) * n);
            std::sort(row.begin(), row.end(), [](double a, double b) {
                return std::isnan(b) ? !std::isnan(a) : a < b;
            });
            for (std::int64_t i = 0; i < n; ++i) {
                const double got = sorted[static_cast<std::size_t>(r * n + i)];
                if (std::isnan(row[i]))
                    EXPECT_TRUE(std::isnan(got));
                else
                    EXPECT_EQ(got, row[i]) << "n " << n << " row " << r << " i " << i;
            }
        }
        auto cols = be->to_host_double(be->sort(be->from_host(v, {3, n}), 0));
        for (std::int64_t j = 0; j < n; ++j)
            for (int r = 0; r + 1 < 3; ++r) {
                const double a = cols[static_cast<std::size_t>(r * n + j)], b = cols[static_cast<std::size_t>((r + 1) * n + j)];
                EXPECT_TRUE(std::isnan(b) || a <= b) << "column " << j;
            }
    }
    std::vector<std::int64_t> iv = {5, -3, 9, 0, -3, 2};
    auto s = be->to_host_double(be->sort(be->from_host_index(iv)));
    EXPECT_EQ(s, (std::vector<double>{-3, -3, 0, 2, 5, 9}));
}

TEST_P(OpenCLOps, MaskedSelectKeepsOrderAcrossBlocks) {
    const std::int64_t n = 2000;
    std::vector<double> v(static_cast<std::size_t>(n));
    std::iota(v.begin(), v.end(), 0.0);
    auto x = be->from_host(v);
    auto mask = be->binary(hf::BinaryOp::gt, be->unary(hf::UnaryOp::sign, be->unary(hf::UnaryOp::neg, be->binary(hf::BinaryOp::sub, x, be->full({}, 1500.0)))), be->full({}, 0.0));
    auto sel = be->to_host_double(be->masked_select(x, mask));
    ASSERT_EQ(sel.size(), 1500u);
    for (std::size_t i = 0; i < sel.size(); ++i) EXPECT_EQ(sel[i], static_cast<double>(i));
    auto none = be->masked_select(x, be->binary(hf::BinaryOp::lt, x, be->full({}, -1.0)));
    EXPECT_EQ(none.shape(), (hf::Shape{0}));
}

TEST_P(OpenCLOps, GatherChecksHostKnownIndicesAndClampsDeviceComputedOnes) {
    auto x = be->from_host({10, 11, 12, 13});
    // Uploaded (or arange) indices are known to the host: refused like the cpu plugin does, at no cost.
    EXPECT_THROW(be->gather(x, be->from_host_index({3, -5, 1}), 0), hf::ShapeError);
    EXPECT_THROW(be->gather(x, be->arange(5), 0), hf::ShapeError);
    // Indices computed on the device are not read back: out-of-range ones are clamped into [0, n).
    auto computed = be->binary(hf::BinaryOp::add, be->from_host_index({3, -5, 99, 1}), be->from_host_index({0, 0, 0, 0}));
    auto g = be->to_host_double(be->gather(x, computed, 0));
    EXPECT_EQ(g, (std::vector<double>{13, 10, 13, 11}));
}

TEST_P(OpenCLOps, RandomNumbersEqualTheCpuPlugin) {
    HF_REQUIRE_PLUGIN("cpu");
    hf::LoadOptions o;
    o.precision = hf::parse_precision(GetParam());
    auto cpu = hf::load_backend("cpu", o);
    const hf::Shape shape = {1000};
    const std::uint64_t seed = 0x1234abcd5678ull, offset = 77;
    // Uniforms are bit-identical; normals and Poisson go through log/cos/lgamma, equal to a few ulp.
    EXPECT_EQ(be->to_host_double(be->random_uniform(shape, seed, offset)),
              cpu->to_host_double(cpu->random_uniform(shape, seed, offset)));
    auto a = be->to_host_double(be->random_normal(shape, seed, offset));
    auto e = cpu->to_host_double(cpu->random_normal(shape, seed, offset));
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], e[i], (f32() ? 1e-5 : 1e-13) * (1 + std::fabs(e[i])));
    std::vector<double> rates(1000);
    for (std::size_t i = 0; i < rates.size(); ++i) rates[i] = 0.01 * static_cast<double>(i * i % 4000);
    auto pa = be->to_host_double(be->random_poisson(be->from_host(rates), seed, offset));
    auto pe = cpu->to_host_double(cpu->random_poisson(cpu->from_host(rates), seed, offset));
    int differ = 0;
    for (std::size_t i = 0; i < pa.size(); ++i) differ += pa[i] != pe[i];
    EXPECT_LE(differ, 1) << "Poisson draws differ from the cpu plugin's";
}

TEST_P(OpenCLOps, MatmulBatchedAndBroadcast) {
    // [2, 3, 4] x [4, 2] (b shared) and [3, 4] x [2, 4, 2] (a shared), against a host loop.
    std::vector<double> a(24), b(8), bb(16);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = 0.5 * static_cast<double>(i) - 3;
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = 1.0 - 0.25 * static_cast<double>(i);
    for (std::size_t i = 0; i < bb.size(); ++i) bb[i] = 0.1 * static_cast<double>(i * i % 7);
    auto r1 = be->to_host_double(be->matmul(be->from_host(a, {2, 3, 4}), be->from_host(b, {4, 2})));
    auto r2 = be->to_host_double(be->matmul(be->from_host(std::vector<double>(a.begin(), a.begin() + 12), {3, 4}),
                                            be->from_host(bb, {2, 4, 2})));
    for (int t = 0; t < 2; ++t)
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 2; ++j) {
                double s1 = 0, s2 = 0;
                for (int l = 0; l < 4; ++l) {
                    s1 += a[t * 12 + i * 4 + l] * b[l * 2 + j];
                    s2 += a[i * 4 + l] * bb[t * 8 + l * 2 + j];
                }
                EXPECT_NEAR(r1[t * 6 + i * 2 + j], s1, 1e-5 * (1 + std::fabs(s1)));
                EXPECT_NEAR(r2[t * 6 + i * 2 + j], s2, 1e-5 * (1 + std::fabs(s2)));
            }
}

INSTANTIATE_TEST_SUITE_P(Precisions, OpenCLOps, ::testing::Values("64b", "32b"),
                         [](const auto& info) { return std::string("p") + info.param; });

}  // namespace
