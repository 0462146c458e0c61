// White-box test of detail::LocalFisher, a batched fit's own curvature (core/infer/local_fisher.hpp): at Asimov
// data generated where it is taken, the Fisher information is the Hessian of the NLL, so its inverse must undo
// the finite-difference Hessian of the problem (Problem::hessian) on every free component, and on a subset of
// them when others are held at their bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "hfcore/backend.hpp"
#include "hfcore/plugin/likelihood.hpp"
#include "infer/local_fisher.hpp"
#include "infer/problem.hpp"
#include "infer_support.hpp"

using namespace hf;
using namespace hf::test;

namespace {

struct AtAsimov {
    Case c;
    infer::detail::Problem p;
    std::vector<double> y;
    std::vector<double> hessian;  // [F, F]
};

// sbottom regionA (histosys, normsys code4, staterror, lumi; Gaussian and no Poisson constraints) or the
// shapesys_nuisparfilter case (shapesys: Poisson constraints), away from the init.
AtAsimov at_asimov(const std::string& name) {
    AtAsimov a{load_case(name), {}, {}, {}};
    const Model& m = *a.c.model;
    auto x = m.suggested_init();
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] += 0.03 * std::sin(1.7 * static_cast<double>(i) + 0.4) * std::max(1.0, std::fabs(x[i]));
    x[m.poi_index()] = 0.7;
    // fixed parameters back at their values (the problem's), so that the data are Asimov data where it stands
    const auto cfg = infer::FitConfig::suggested(m).resolved(m);
    const auto shape = infer::detail::make_problem(m, Tensor(), cfg);
    x = shape.to_x(shape.to_y(x));
    a.p = infer::detail::make_problem(m, m.backend()->from_host(m.expected_data(x)), cfg);
    a.y = a.p.to_y(x);
    a.hessian = a.p.hessian(a.y);
    return a;
}

// The largest |F^-1 (H e_j) - e_j| over the free components j (held ones must come out 0), where H is the
// finite-difference Hessian plus the floor LocalFisher gives parameters without a constraint.
double worst_residual(AtAsimov& a, infer::detail::LocalFisher& f, const std::vector<char>& free) {
    const std::size_t n = a.p.nfree();
    const PackedLikelihood& pk = packed_likelihood(*a.c.model);
    std::vector<double> h = a.hessian;
    for (std::size_t i = 0; i < n; ++i) {
        const int par = a.p.free[i];
        const bool constrained = std::count(pk.gauss_par.begin(), pk.gauss_par.end(), par) +
                                     std::count(pk.pois_par.begin(), pk.pois_par.end(), par) > 0;
        if (!constrained) h[i * n + i] += infer::detail::LocalFisher::kMinCurvature;
    }
    double worst = 0;
    for (std::size_t j = 0; j < n; ++j) {
        if (!free[j]) continue;
        // q = H_FF e_j, then F^-1 q should be e_j
        std::vector<double> q(n, 0.0);
        for (std::size_t i = 0; i < n; ++i) q[i] = free[i] ? h[i * n + j] : 0.0;
        EXPECT_TRUE(f.apply(free.data(), q.data()));
        for (std::size_t i = 0; i < n; ++i) {
            const double want = free[i] && i == j ? 1.0 : 0.0;
            if (!free[i]) {
                EXPECT_EQ(q[i], 0.0) << "held component " << i;
            }
            worst = std::max(worst, std::fabs(q[i] - want));
        }
    }
    return worst;
}

}  // namespace

TEST(LocalFisher, InvertsTheHessianAtAsimovData) {
    HF_REQUIRE_SHARED();
    for (const char* name : {"sbottom_regionA_1300_205_60", "shapesys_nuisparfilter"}) {
        AtAsimov a = at_asimov(name);
        auto taken = infer::detail::LocalFisher::at(*a.c.model, a.p, {&a.y});
        ASSERT_EQ(taken.size(), 1u);
        ASSERT_FALSE(taken[0].empty()) << name;
        std::vector<char> all(a.p.nfree(), 1);
        const double worst = worst_residual(a, taken[0], all);
        std::printf("[ agreement ] %s: Fisher^-1 (finite-difference Hessian) e_j - e_j, worst %.2e\n", name, worst);
        EXPECT_LT(worst, 1e-7) << name;
    }
}

TEST(LocalFisher, HeldComponentsStayZeroAndTheRestInvertTheirBlock) {
    HF_REQUIRE_SHARED();
    AtAsimov a = at_asimov("sbottom_regionA_1300_205_60");
    auto taken = infer::detail::LocalFisher::at(*a.c.model, a.p, {&a.y});
    ASSERT_FALSE(taken[0].empty());
    std::vector<char> some(a.p.nfree(), 1);
    for (std::size_t i = 0; i < some.size(); i += 3) some[i] = 0;
    const double worst = worst_residual(a, taken[0], some);
    std::printf("[ agreement ] a third held: worst %.2e\n", worst);
    EXPECT_LT(worst, 1e-7);
    // and back to every component free: the factor follows the mask
    std::vector<char> all(a.p.nfree(), 1);
    EXPECT_LT(worst_residual(a, taken[0], all), 1e-7);
}
