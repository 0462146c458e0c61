// The analytic gradient of logpdf against finite differences (64b), and the fused kernels against the Tier 1
// fallback (logpdf, gradient, expected data), on every reference workspace.
#include <cmath>

#include "model_fixture.hpp"

namespace hf::test {
namespace {

class ModelGradient : public ::testing::TestWithParam<std::string> {};

// The likelihood is smooth on the scale of the parameter itself (interpolations, products, Poisson terms);
// Gaussian constraints are quadratic, so any step is exact for them.
std::vector<double> step_sizes(const std::vector<double>& x) {
    std::vector<double> h(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) h[i] = 1e-4 * std::max(std::abs(x[i]), 1.0);
    return h;
}

// What float rounding alone can make a difference quotient wrong by: the terms of logpdf that round (main
// counts, |logpdf| itself, and for a Poisson-constrained parameter tau * par) times a few ulps, over the step.
std::vector<double> noise_floor(const Model& m, const std::vector<double>& x, const std::vector<double>& data,
                                double logpdf, const std::vector<double>& h) {
    double scale = std::abs(logpdf);
    for (std::int64_t b = 0; b < m.n_main(); ++b) scale += std::abs(data[b]);
    std::vector<double> floor(x.size());
    for (const auto& ps : m.parameter_sets())
        for (std::int64_t i = 0; i < ps.n; ++i) {
            std::size_t k = static_cast<std::size_t>(ps.offset + i);
            double s = scale + (ps.constraint == "poisson" ? ps.factors[i] * std::abs(x[k]) : 0.0);
            floor[k] = 8 * 2.22e-16 * s / h[k];
        }
    return floor;
}

TEST_P(ModelGradient, AnalyticMatchesFiniteDifferences) {
    HF_REQUIRE_SHARED();
    Fixture f = load_fixture(GetParam());
    Model m(f.spec, load_backend("cpu"));
    const BoundLikelihood bound = m.bind(m.backend()->from_host(f.data));
    const auto& points = f.doc["points"].as_array();
    const std::int64_t P = m.n_pars();
    // Point 0 is the suggested init: alpha = 0 sits on the kink of code0/code1, so only the random points.
    for (std::size_t k = 1; k < points.size(); ++k) {
        auto x = numbers(points[k]["pars"]);
        std::vector<double> grad;
        double lp0 = bound.logpdf(x, &grad);
        auto h = step_sizes(x);
        auto floor = noise_floor(m, x, f.data, lp0, h);
        // Richardson-extrapolated central differences, all 4P evaluations in one batch.
        std::vector<double> batch;
        for (std::int64_t i = 0; i < P; ++i)
            for (double s : {1.0, -1.0, 2.0, -2.0}) {
                auto y = x;
                y[i] += s * h[i];
                batch.insert(batch.end(), y.begin(), y.end());
            }
        auto lp = logpdf_points(m, batch, 4 * P, f.data);
        for (std::int64_t i = 0; i < P; ++i) {
            double d1 = lp[4 * i] - lp[4 * i + 1], d2 = lp[4 * i + 2] - lp[4 * i + 3];
            double fd = (8 * d1 - d2) / (12 * h[i]);
            EXPECT_TRUE(close(grad[i], fd, 1e-6, 1e-8 + floor[i]))
                << f.name << " point " << k << " d/d " << m.par_names()[i] << ": analytic " << grad[i] << " fd " << fd
                << " (rounding floor " << floor[i] << ")";
        }
    }
}

TEST_P(ModelGradient, FusedMatchesFallback) {
    HF_REQUIRE_SHARED();
    Fixture f = load_fixture(GetParam());
    auto backend = load_backend("cpu");
    Model fused(f.spec, backend);
    ModelOptions o;
    o.prefer_fused = false;
    Model fallback(f.spec, backend, o);
    expect_fused_matches_fallback(fused, fallback, f, {1e-12, 1e-12, 1e-10, 1e-9, 1e-12, 1e-12});
}

INSTANTIATE_TEST_SUITE_P(AllFixtures, ModelGradient, ::testing::ValuesIn(fixture_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace hf::test
