// Random numbers (Philox, identical on every backend) and transfer counting on every backend.
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <numeric>

#include "conformance.hpp"

// The shared Philox text as the host compiles it, checked against the published known-answer vectors (the
// reference; every plugin's streams are compared across plugins below).
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

// Random123's published known-answer vectors for Philox-4x32-10 (kat_vectors: counter words, key words ->
// output words), on the shared Philox text as the host plugin compiles it, at both precisions' instantiation.
TEST(PhiloxKnownAnswers, Random123KatVectors) {
    struct Kat {
        std::uint32_t ctr[4], key[2], out[4];
    };
    const Kat kats[] = {
        {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
        {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu},
         {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
        {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u},
         {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
    };
    for (const auto& k : kats) {
        std::uint32_t w[4] = {k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3]};
        ref64::hf_philox4x32_10(w, k.key[0], k.key[1]);
        std::uint32_t v[4] = {k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3]};
        ref32::hf_philox4x32_10(v, k.key[0], k.key[1]);
        for (int i = 0; i < 4; ++i) {
            EXPECT_EQ(w[i], k.out[i]) << "counter word 0 " << std::hex << k.ctr[0] << ", output word " << i;
            EXPECT_EQ(v[i], k.out[i]) << "counter word 0 " << std::hex << k.ctr[0] << ", output word " << i;
        }
    }
}

// The first vector through every plugin's public random ops. Only the all-zero one is reachable there: element
// i draws from counter (offset + i, draw 0, 0) under key = seed (philox.h), so seed 0, offset 0 is counter 0,
// key 0 -> words 6627e8d5 e169c58d bc57ac4c 9b00dbd8. The uniforms are the top 53 bits of (w0:w1) and (w2:w3) at
// 64b, the top 24 bits of w0 and w1 at 32b, plus half a step; the normal is Box-Muller on those two uniforms;
// Poisson below 10 inverts the first uniform.
TEST_P(Random, KnownAnswerVectorThroughTheBackend) {
    const std::uint64_t w01 = 0x6627e8d5e169c58dull, w23 = 0xbc57ac4c9b00dbd8ull;
    const double u0 = f32() ? (static_cast<double>(0x6627e8d5u >> 8) + 0.5) * 0x1p-24
                            : (static_cast<double>(w01 >> 11) + 0.5) * 0x1p-53;
    const double u1 = f32() ? (static_cast<double>(0xe169c58du >> 8) + 0.5) * 0x1p-24
                            : (static_cast<double>(w23 >> 11) + 0.5) * 0x1p-53;
    EXPECT_EQ(down(b().random_uniform({1}, 0, 0))[0], u0);
    const long double z = std::sqrt(-2.0L * std::log(static_cast<long double>(u0))) *
                          std::cos(6.283185307179586476925286766559L * u1);
    const double z_got = down(b().random_normal({1}, 0, 0))[0];
    std::printf("[ measured ] %s %s: Box-Muller of the KAT words, |error| %.2e\n", GetParam().plugin.c_str(),
                GetParam().precision.c_str(), std::fabs(z_got - static_cast<double>(z)));
    // Measured (cpu, opencl): 64b 1.8e-16, 32b 1.1e-7; 10x margin.
    EXPECT_NEAR(z_got, static_cast<double>(z), f32() ? 1e-6 : 2e-15);
    // Poisson(3) by inversion: the smallest k with P(X <= k) >= u0 (u0 = 0.399: P(X <= 1) = 0.199, P(X <= 2) = 0.423).
    long double cdf = 0, term = std::exp(-3.0L);
    int k = 0;
    for (; cdf + term < u0; ++k) cdf += term, term *= 3.0L / (k + 1);
    EXPECT_EQ(k, 2);
    EXPECT_EQ(down(b().random_poisson(b().full({1}, 3.0), 0, 0))[0], k);
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
