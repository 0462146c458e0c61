// White-box test of the batched fitter's host loops (core/infer/minimize/lanes.hpp): the products that share a load
// must give what the single ones give, bit for bit, or a toy fit would take other steps depending on how its work was
// grouped.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "numerics/lanes.hpp"

namespace lanes = hf::numerics::lanes;

TEST(Lanes, DotsEqualDotOneByOne) {
    for (std::size_t n : {0u, 1u, 3u, 4u, 15u, 16u, 17u, 35u, 250u, 251u}) {
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
