// The standard normal cdf, survival function and inverse survival function of core/infer (p-values <->
// significances) against 50-digit mpmath values (tests/reference/make_normal_fixtures.py), from the centre to
// p = 1e-300, so significances are never checked against the library's own normal_isf.
#include <cmath>
#include <cstdio>

#include "infer_support.hpp"

namespace hf::test {
namespace {

const json::Value& mpmath_normal() {
    static const json::Value doc =
        json::parse_file((source_dir() / "tests" / "reference" / "infer" / "normal.json").string());
    return doc;
}

TEST(Normal, CdfAndSurvivalMatchMpmath) {
    double worst = 0;
    int n = 0;
    for (const auto& pt : mpmath_normal()["x"].as_array()) {
        const double x = pt["x"].as_double();
        for (const auto& [got, want] : {std::pair{infer::normal_cdf(x), pt["cdf"].as_double()},
                                        std::pair{infer::normal_sf(x), pt["sf"].as_double()}}) {
            // Relative error, with the subnormal range (below 2.2e-308, fewer digits) on an absolute scale.
            const double err = std::fabs(got - want) / std::max(std::fabs(want), 2.2250738585072014e-308);
            worst = std::max(worst, err);
            // Measured: 1.7e-13, at x = -37 (rounding x / sqrt(2) to a double alone costs x^2 ulp of erfc there);
            // 10x margin.
            EXPECT_LE(err, 2e-12) << "x = " << x << ": " << got << " vs mpmath " << want;
            ++n;
        }
    }
    EXPECT_EQ(n, 2 * 614);
    std::printf("[ measured ] normal_cdf / normal_sf vs mpmath: worst relative %.2e\n", worst);
}

TEST(Normal, InverseSurvivalMatchesMpmath) {
    double worst = 0;
    for (const auto& pt : mpmath_normal()["p"].as_array()) {
        const double p = pt["p"].as_double(), want = pt["isf"].as_double();
        const double got = infer::normal_isf(p);
        const double err = std::fabs(got - want) / std::max(1.0, std::fabs(want));
        worst = std::max(worst, err);
        // Measured: 8.9e-16 of max(1, |Z|); 10x margin.
        EXPECT_LE(err, 1e-14) << "p = " << p << ": " << got << " vs mpmath " << want;
    }
    EXPECT_EQ(infer::normal_isf(0.0), INFINITY);
    EXPECT_EQ(infer::normal_isf(1.0), -INFINITY);
    EXPECT_TRUE(std::isnan(infer::normal_isf(std::nan(""))));
    std::printf("[ measured ] normal_isf vs mpmath: worst %.2e of max(1, |Z|)\n", worst);
}

}  // namespace
}  // namespace hf::test
