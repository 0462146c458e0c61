// White-box test of the host vector kernels (core/numerics/lanes.hpp). Their order of additions is part of the
// results (a toy fit's steps depend on every rounding), so each kernel is compared bit for bit with a plain
// loop written in that order. Run under HFCORE_CPU_SIMD=avx2 and =baseline (scripts/ci/25-vector-levels.sh), it
// shows that every vector level rounds as the others do. The products that share a load must also give what
// the single ones give, or a toy fit would take other steps depending on how its work was grouped.
// (Compiled with -ffp-contract=off, tests/CMakeLists.txt: the plain loops must not fuse either.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "hfcore/plugin/vector_level.hpp"
#include "numerics/lanes.hpp"

namespace lanes = hf::numerics::lanes;

namespace {

const std::size_t kSizes[] = {0, 1, 3, 4, 7, 15, 16, 17, 20, 31, 35, 64, 250, 251};

// Terms of many magnitudes and both signs, so that another order of additions rounds differently.
std::vector<double> values(std::size_t n, double seed) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double x = static_cast<double>(i);
        v[i] = std::sin(0.37 * x + seed) * std::pow(10.0, static_cast<double>((i * 7 + 3) % 9) - 4.0);
    }
    return v;
}

std::vector<char> mask(std::size_t n) {
    std::vector<char> m(n);
    for (std::size_t i = 0; i < n; ++i) m[i] = (i * 5 + 1) % 3 != 0;
    return m;
}

// The documented order of a sum of n terms: sixteen partial sums (term i in sum i mod 16 over whole blocks of
// 16, then the whole blocks of four in sums 0-3, 4-7, 8-11), combined lane-wise as (s0 + s1) + (s2 + s3) over
// the four groups, then the lanes as (l0 + l1) + (l2 + l3), then the n mod 4 last terms one by one.
template <class Term>
double sum_in_order(std::size_t n, Term term) {
    double s[4][4] = {};
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int v = 0; v < 4; ++v)
            for (int l = 0; l < 4; ++l) s[v][l] += term(i + 4 * v + l);
    for (int v = 0; i + 4 <= n; i += 4, ++v)
        for (int l = 0; l < 4; ++l) s[v][l] += term(i + l);
    double t[4];
    for (int l = 0; l < 4; ++l) t[l] = (s[0][l] + s[1][l]) + (s[2][l] + s[3][l]);
    double r = (t[0] + t[1]) + (t[2] + t[3]);
    for (; i < n; ++i) r += term(i);
    return r;
}

// A row of matvec: four lane sums over the whole blocks of four, the n mod 4 last terms added to lane 0.
double row_in_order(const double* row, const double* q, std::size_t n) {
    double s[4] = {};
    const std::size_t n4 = n / 4 * 4;
    for (std::size_t i = 0; i < n4; i += 4)
        for (int l = 0; l < 4; ++l) s[l] += row[i + l] * q[i + l];
    for (std::size_t i = n4; i < n; ++i) s[0] += row[i] * q[i];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

}  // namespace

TEST(Lanes, RunAtTheLevelHfcoreCpuSimdNames) {
    namespace vl = hf::vector_level;
    const vl::Choice c = vl::choose_from_environment();
    const char* cap = std::getenv("HFCORE_CPU_SIMD");
    if (cap && *cap && c.problem.empty()) {
        EXPECT_EQ(std::string(lanes::level_name()), cap);
    }
    EXPECT_EQ(std::string(lanes::level_name()), vl::name_of(c.level));
}

TEST(Lanes, SumsInTheDocumentedOrder) {
    for (std::size_t n : kSizes) {
        const auto a = values(n, 0.1), b = values(n, 2.3), w = values(n, 4.1);
        const auto free = mask(n);
        EXPECT_EQ(lanes::dot(a.data(), b.data(), n), sum_in_order(n, [&](std::size_t i) { return a[i] * b[i]; }))
            << "dot, n " << n;
        EXPECT_EQ(lanes::masked_dot(a.data(), b.data(), free.data(), n),
                  sum_in_order(n, [&](std::size_t i) { return free[i] ? a[i] * b[i] : 0.0; }))
            << "masked_dot, n " << n;

        const double c = -0.7303;
        auto q = values(n, 5.9), q_ref = q;
        const double got = lanes::axpy_dot(c, a.data(), q.data(), w.data(), n);
        for (std::size_t i = 0; i < n; ++i) q_ref[i] += c * a[i];
        EXPECT_EQ(got, sum_in_order(n, [&](std::size_t i) { return w[i] * q_ref[i]; })) << "axpy_dot, n " << n;
        EXPECT_EQ(q, q_ref) << "axpy_dot's update, n " << n;

        q = values(n, 5.9), q_ref = q;
        lanes::axpy(c, a.data(), q.data(), n);
        for (std::size_t i = 0; i < n; ++i) q_ref[i] += c * a[i];
        EXPECT_EQ(q, q_ref) << "axpy, n " << n;

        q = values(n, 5.9), q_ref = q;
        lanes::masked_axpy(c, a.data(), free.data(), q.data(), n);
        for (std::size_t i = 0; i < n; ++i) q_ref[i] += free[i] ? c * a[i] : 0.0;
        EXPECT_EQ(q, q_ref) << "masked_axpy, n " << n;
    }
}

TEST(Lanes, MatrixProductsInTheDocumentedOrder) {
    for (std::size_t n : kSizes) {
        for (std::size_t rows : {1u, 2u, 5u, 13u}) {
            const auto m = values(rows * n, 0.7), coef = values(rows, 3.3);
            auto q = values(n, 1.9), q_ref = q;
            lanes::axpy_rows(coef.data(), m.data(), rows, n, q.data());
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t r = 0; r < rows; ++r) q_ref[i] += coef[r] * m[r * n + i];
            EXPECT_EQ(q, q_ref) << "axpy_rows, n " << n << ", rows " << rows;

            std::vector<std::vector<double>> v, out(lanes::kMaxVectors, std::vector<double>(rows));
            for (int t = 0; t < lanes::kMaxVectors; ++t) v.push_back(values(n, 6.1 + t));
            const double* vp[lanes::kMaxVectors] = {v[0].data(), v[1].data(), v[2].data(), v[3].data()};
            double* op[lanes::kMaxVectors] = {out[0].data(), out[1].data(), out[2].data(), out[3].data()};
            for (int count = 1; count <= lanes::kMaxVectors; ++count) {
                lanes::matvec(m.data(), rows, n, vp, op, count);
                for (int t = 0; t < count; ++t)
                    for (std::size_t r = 0; r < rows; ++r)
                        EXPECT_EQ(out[t][r], row_in_order(m.data() + r * n, vp[t], n))
                            << "matvec, n " << n << ", rows " << rows << ", count " << count << ", t " << t;
            }
        }
    }
}

TEST(Lanes, DotsEqualDotOneByOne) {
    for (std::size_t n : kSizes) {
        std::vector<double> a(n);
        std::vector<std::vector<double>> b(lanes::kMaxVectors, std::vector<double>(n));
        for (std::size_t i = 0; i < n; ++i) {
            a[i] = std::sin(0.37 * static_cast<double>(i) + 0.1) * 1e3;
            for (int t = 0; t < lanes::kMaxVectors; ++t)
                b[t][i] = std::cos(1.3 * static_cast<double>(i) + t) / (1.0 + static_cast<double>(i % 7));
        }
        const double* bp[lanes::kMaxVectors] = {b[0].data(), b[1].data(), b[2].data(), b[3].data()};
        for (int count = 1; count <= lanes::kMaxVectors; ++count) {
            double out[lanes::kMaxVectors];
            lanes::dots(a.data(), bp, count, n, out);
            for (int t = 0; t < count; ++t)
                EXPECT_EQ(out[t], lanes::dot(a.data(), bp[t], n)) << "n " << n << ", count " << count << ", t " << t;
        }
    }
}
