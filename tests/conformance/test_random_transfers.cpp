// Random numbers (Philox, identical on every backend) and transfer counting on every backend.
#include <cmath>
#include <cstdint>
#include <numeric>

#include "conformance.hpp"

// The reference generator: the shared Philox text, compiled here in double and float.
#include "../../plugins/shared/philox_host.hpp"
namespace ref64 = hf::philox64;
namespace ref32 = hf::philox32;

using hf::Shape;

namespace {

class Random : public hf::conf::Conformance {};

struct Moments {
    double mean = 0, var = 0, min = 1e300, max = -1e300;
};
Moments moments(const std::vector<double>& v) {
    Moments m;
    for (double x : v) m.mean += x, m.min = std::min(m.min, x), m.max = std::max(m.max, x);
    m.mean /= static_cast<double>(v.size());
    for (double x : v) m.var += (x - m.mean) * (x - m.mean);
    m.var /= static_cast<double>(v.size() - 1);
    return m;
}

TEST_P(Random, UniformInOpenUnitIntervalWithRightMoments) {
    const std::int64_t n = 200000;
    auto u = b().random_uniform({n}, 1234);
    EXPECT_EQ(u.dtype(), fdt());
    auto v = down(u);
    auto m = moments(v);
    EXPECT_GT(m.min, 0.0);
    EXPECT_LT(m.max, 1.0);
    const double sd_mean = std::sqrt(1.0 / 12 / n);
    EXPECT_NEAR(m.mean, 0.5, 5 * sd_mean);
    EXPECT_NEAR(m.var, 1.0 / 12, 5 * std::sqrt(1.0 / 180 / n));
}

TEST_P(Random, NormalMoments) {
    const std::int64_t n = 200000;
    auto m = moments(down(b().random_normal({n}, 99)));
    EXPECT_NEAR(m.mean, 0.0, 5 / std::sqrt(double(n)));
    EXPECT_NEAR(m.var, 1.0, 5 * std::sqrt(2.0 / n));
}

TEST_P(Random, PoissonMomentsAndIntegers) {
    for (double lam : {0.5, 3.0, 9.9, 25.0, 1000.0}) {
        const std::int64_t n = 50000;
        auto draws = down(b().random_poisson(b().full({n}, lam), 7));
        for (double d : draws) {
            ASSERT_EQ(d, std::floor(d));
            ASSERT_GE(d, 0.0);
        }
        auto m = moments(draws);
        EXPECT_NEAR(m.mean, lam, 5 * std::sqrt(lam / n)) << "lambda " << lam;
        EXPECT_NEAR(m.var / lam, 1.0, 5 * std::sqrt(2.0 / n) + 0.01) << "lambda " << lam;
    }
    auto zero = down(b().random_poisson(b().full({10}, 0.0), 3));
    EXPECT_EQ(zero, std::vector<double>(10, 0.0));
    // Per-element rates, broadcast shape kept.
    auto rates = up({1.0, 100.0, 0.0, 50.0}, {2, 2});
    auto p = b().random_poisson(rates, 5);
    EXPECT_EQ(p.shape(), (Shape{2, 2}));
}

TEST_P(Random, SameSeedSameNumbersAndOffsetsShiftTheStream) {
    auto a = down(b().random_uniform({1000}, 42));
    auto c = down(b().random_uniform({1000}, 42));
    EXPECT_EQ(a, c);
    EXPECT_NE(a, down(b().random_uniform({1000}, 43)));
    auto shifted = down(b().random_uniform({995}, 42, 5));
    EXPECT_EQ(shifted, std::vector<double>(a.begin() + 5, a.end()));
    auto n1 = down(b().random_normal({3, 7}, 8)), n2 = down(b().random_normal({21}, 8));
    EXPECT_EQ(n1, n2);  // element i uses counter i whatever the shape
    auto lam = b().full({500}, 30.0);
    EXPECT_EQ(down(b().random_poisson(lam, 11)), down(b().random_poisson(lam, 11)));
}

TEST_P(Random, MatchesTheSharedPhiloxReference) {
    const std::uint64_t seed = 0x0123456789ABCDEFull, offset = 1000;
    const int n = 256;
    auto u = down(b().random_uniform({n}, seed, offset));
    auto z = down(b().random_normal({n}, seed, offset));
    std::vector<double> lam(n);
    for (int i = 0; i < n; ++i) lam[i] = 0.1 + 0.5 * i;
    auto p = down(b().random_poisson(up(lam, {n}), seed, offset));
    for (int i = 0; i < n; ++i) {
        const std::uint64_t c = offset + i;
        if (f32()) {
            ASSERT_EQ(u[i], static_cast<double>(ref32::hf_random_uniform(seed, c))) << i;
            ASSERT_NEAR(z[i], ref32::hf_random_normal(seed, c), 1e-5) << i;
            ASSERT_EQ(p[i], ref32::hf_random_poisson(seed, c, static_cast<float>(lam[i]))) << i;
        } else {
            ASSERT_EQ(u[i], ref64::hf_random_uniform(seed, c)) << i;
            ASSERT_NEAR(z[i], ref64::hf_random_normal(seed, c), 1e-13) << i;
            ASSERT_EQ(p[i], ref64::hf_random_poisson(seed, c, lam[i])) << i;
        }
    }
}

TEST_P(Random, KnownAnswerOfPhilox) {
    // Philox-4x32-10 test vector (Random123 kat_vectors): counter 0, key 0 ->
    // 6627e8d5 e169c58d bc57ac4c 9b00dbd8.
    std::uint32_t out[4];
    ref64::hf_philox(0, 0, 0, out);
    EXPECT_EQ(out[0], 0x6627e8d5u);
    EXPECT_EQ(out[1], 0xe169c58du);
    EXPECT_EQ(out[2], 0xbc57ac4cu);
    EXPECT_EQ(out[3], 0x9b00dbd8u);
}

class Transfers : public hf::conf::Conformance {};

TEST_P(Transfers, UploadsAndDownloadsAreCountedOpsAreNot) {
    b().reset_transfers();
    EXPECT_EQ(b().transfers().uploads, 0u);
    auto x = up({1, 2, 3, 4}, {4});
    auto t = b().transfers();
    EXPECT_EQ(t.uploads, 1u);
    EXPECT_EQ(t.upload_bytes, 4 * hf::dtype_size(fdt()));
    EXPECT_EQ(t.downloads, 0u);
    // Device-side work moves nothing.
    auto y = b().binary(hf::BinaryOp::mul, x, x);
    auto s = b().reduce_all(hf::ReduceOp::sum, y);
    auto e = b().empty(fdt(), {16});
    auto f = b().full({3}, 2.0);
    auto r = b().random_normal({8}, 1);
    auto g = b().gather(x, b().arange(2), 0);
    (void)e, (void)f, (void)r, (void)g;
    t = b().transfers();
    EXPECT_EQ(t.uploads, 1u);
    EXPECT_EQ(t.downloads, 0u);
    auto h = down(s);
    EXPECT_EQ(h, std::vector<double>{30});
    t = b().transfers();
    EXPECT_EQ(t.downloads, 1u);
    EXPECT_EQ(t.download_bytes, hf::dtype_size(fdt()));
    std::int64_t idx[2] = {0, 1};
    b().from_host(hf::DType::i64, {2}, idx);
    EXPECT_EQ(b().transfers().uploads, 2u);
    EXPECT_EQ(b().transfers().upload_bytes, 4 * hf::dtype_size(fdt()) + 16);
    b().reset_transfers();
    EXPECT_EQ(b().transfers().uploads, 0u);
    EXPECT_EQ(b().transfers().download_bytes, 0u);
}

HF_CONFORMANCE_SUITE(Random);
HF_CONFORMANCE_SUITE(Transfers);

// Every usable plugin draws the same numbers for the same seed (needs two or more usable plugins).
TEST(CrossPlugin, SameSeedSameNumbersOnEveryPlugin) {
    for (const char* prec : {"64b", "32b"}) {
        std::vector<hf::BackendPtr> usable;
        for (const auto& p : hf::conf::discover())
            if (p.usable && p.precision == prec) usable.push_back(hf::conf::backend_for(p));
        if (usable.size() < 2) GTEST_SKIP() << "only " << usable.size() << " usable plugin(s) at " << prec
                                            << ": nothing to compare across";
        auto& first = *usable.front();
        auto u0 = first.to_host_double(first.random_uniform({4096}, 77, 3));
        auto z0 = first.to_host_double(first.random_normal({4096}, 77, 3));
        auto p0 = first.to_host_double(first.random_poisson(first.full({4096}, 12.5), 77, 3));
        for (std::size_t i = 1; i < usable.size(); ++i) {
            auto& o = *usable[i];
            EXPECT_EQ(o.to_host_double(o.random_uniform({4096}, 77, 3)), u0) << o.description();
            EXPECT_TRUE(hf::conf::all_close(o.to_host_double(o.random_normal({4096}, 77, 3)), z0,
                                            std::string(prec) == "32b" ? 1e-5 : 1e-12, 1e-6))
                << o.description();
            auto p = o.to_host_double(o.random_poisson(o.full({4096}, 12.5), 77, 3));
            int diff = 0;
            for (std::size_t k = 0; k < p.size(); ++k) diff += p[k] != p0[k];
            // Accept/reject on transcendental functions may flip on a last-bit difference: allow a handful.
            EXPECT_LE(diff, 4) << o.description();
        }
    }
}

TEST(CrossPlugin, AtLeastTheCpuPluginIsFoundAndUsable) {
    bool cpu = false;
    for (const auto& p : hf::conf::discover()) cpu = cpu || (p.plugin == "cpu" && p.usable);
    EXPECT_TRUE(cpu) << "the cpu plugin was not found on the plugin search path";
}

}  // namespace
