// White-box test of detail::OwnFisher, a batched fit's own curvature (core/infer/minimize/own_fisher.hpp), and of the
// batch's fixed curvature taken from it (inverse_hessian.hpp): at Asimov data generated where it is taken, the
// Fisher information is the Hessian of the NLL, so its inverse must undo the finite-difference Hessian of the
// problem (Problem::hessian) on every free component, and on a subset of them when others are held at their
// bounds. What each says of a step's curvature (the quadratic form of its inverse, by which the batched fitter
// scales it) must be that of the inverse it applies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "hfcore/backend.hpp"
#include "hfcore/plugin/likelihood.hpp"
#include "infer/minimize/inverse_hessian.hpp"
#include "infer/minimize/own_fisher.hpp"
#include "infer/minimize/problem.hpp"
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
// finite-difference Hessian plus the floor OwnFisher gives parameters without a constraint.
// apply(free, q): q <- (H_FF)^-1 q_F, as the curvature under test gives it.
std::vector<double> floored_hessian(const AtAsimov& a) {
    const std::size_t n = a.p.nfree();
    const PackedLikelihood& pk = packed_likelihood(*a.c.model);
    std::vector<double> h = a.hessian;
    for (std::size_t i = 0; i < n; ++i) {
        const int par = a.p.free[i];
        const bool constrained = std::count(pk.gauss_par.begin(), pk.gauss_par.end(), par) +
                                     std::count(pk.pois_par.begin(), pk.pois_par.end(), par) > 0;
        if (!constrained) h[i * n + i] += infer::detail::OwnFisher::kMinCurvature;
    }
    return h;
}

// What an apply() did to v, checked against the Hessian: H_FF applied = v_F and the held components 0. Returns
// max |H_FF applied - v_F| / max |v_F|, so an apply() that left v as it was (or scaled it) gives a large value.
double apply_residual(const AtAsimov& a, const std::vector<char>& free, const std::vector<double>& v,
                      const std::vector<double>& applied) {
    const std::size_t n = a.p.nfree();
    const std::vector<double> h = floored_hessian(a);
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!free[i]) {
            if (applied[i] != 0.0) return HUGE_VAL;
            continue;
        }
        double hq = 0;
        for (std::size_t j = 0; j < n; ++j) hq += free[j] ? h[i * n + j] * applied[j] : 0.0;
        worst = std::max(worst, std::fabs(hq - v[i]));
        scale = std::max(scale, std::fabs(v[i]));
    }
    return worst / scale;
}

template <class Apply>
double worst_residual(AtAsimov& a, const std::vector<char>& free, Apply&& apply) {
    const std::size_t n = a.p.nfree();
    const std::vector<double> h = floored_hessian(a);
    double worst = 0;
    for (std::size_t j = 0; j < n; ++j) {
        if (!free[j]) continue;
        // q = H_FF e_j, then F^-1 q should be e_j
        std::vector<double> q(n, 0.0);
        for (std::size_t i = 0; i < n; ++i) q[i] = free[i] ? h[i * n + j] : 0.0;
        EXPECT_TRUE(apply(free, q));
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

auto applier(infer::detail::OwnFisher& f) {
    return [&f](const std::vector<char>& free, std::vector<double>& q) { return f.apply(free.data(), q.data()); };
}

}  // namespace

TEST(OwnFisher, InvertsTheHessianAtAsimovData) {
    HF_REQUIRE_SHARED();
    for (const char* name : {"sbottom_regionA_1300_205_60", "shapesys_nuisparfilter"}) {
        AtAsimov a = at_asimov(name);
        auto taken = infer::detail::OwnFisher::at(*a.c.model, a.p, {&a.y});
        ASSERT_EQ(taken.size(), 1u);
        ASSERT_FALSE(taken[0].empty()) << name;
        std::vector<char> all(a.p.nfree(), 1);
        const double worst = worst_residual(a, all, applier(taken[0]));
        std::printf("[ agreement ] %s: Fisher^-1 (finite-difference Hessian) e_j - e_j, worst %.2e\n", name, worst);
        EXPECT_LT(worst, 1e-7) << name;
    }
}

TEST(OwnFisher, HeldComponentsStayZeroAndTheRestInvertTheirBlock) {
    HF_REQUIRE_SHARED();
    AtAsimov a = at_asimov("sbottom_regionA_1300_205_60");
    auto taken = infer::detail::OwnFisher::at(*a.c.model, a.p, {&a.y});
    ASSERT_FALSE(taken[0].empty());
    std::vector<char> some(a.p.nfree(), 1);
    for (std::size_t i = 0; i < some.size(); i += 3) some[i] = 0;
    const double worst = worst_residual(a, some, applier(taken[0]));
    std::printf("[ agreement ] a third held: worst %.2e\n", worst);
    EXPECT_LT(worst, 1e-7);
    // and back to every component free: the factor follows the mask
    std::vector<char> all(a.p.nfree(), 1);
    EXPECT_LT(worst_residual(a, all, applier(taken[0])), 1e-7);
}

// The batch's fixed curvature on a plugin with a native Jacobian is the same Fisher information: the problems with
// every component free apply it in Woodbury form, four at a time (apply_many), the others through the dense
// inverse and a Schur complement over the held components (apply); both must invert the Hessian. sbottom (6 bins,
// 64 parameters) takes the Woodbury form; the shapesys case (a parameter per bin) the dense product.
TEST(InverseHessian, FromTheFisherInformationInvertsTheHessianAtAsimovData) {
    HF_REQUIRE_SHARED();
    for (const char* name : {"sbottom_regionA_1300_205_60", "shapesys_nuisparfilter"}) {
        AtAsimov a = at_asimov(name);
        ASSERT_TRUE(a.c.model->native_jacobian()) << "the cpu plugin's Jacobian";
        auto h0 = infer::detail::InverseHessian::at_asimov(*a.c.model, a.p, a.y);
        ASSERT_FALSE(h0.empty()) << name;
        const std::size_t n = a.p.nfree();
        std::vector<char> all(n, 1), some(n, 1);
        for (std::size_t i = 1; i < n; i += 4) some[i] = 0;
        // three problems in one apply_many call: two with every component free (Woodbury), one with some held
        auto many = [&](const std::vector<char>& free, std::vector<double>& q) {
            std::vector<double> q2 = q, q3 = q;
            std::vector<char> applied;
            h0.apply_many({all.data(), free.data(), all.data()}, {q2.data(), q.data(), q3.data()}, applied);
            return applied.size() == 3 && applied[0] && applied[1] && applied[2];
        };
        const double worst_all = worst_residual(a, all, many);
        const double worst_some = worst_residual(a, some, many);
        std::printf("[ agreement ] %s: fixed curvature H^-1 (finite-difference Hessian) e_j - e_j, worst %.2e "
                    "(every component free), %.2e (a quarter held)\n",
                    name, worst_all, worst_some);
        EXPECT_LT(worst_all, 1e-7) << name;
        EXPECT_LT(worst_some, 1e-7) << name;
    }
}

namespace {

// A vector with every component nonzero, of varying sign and size.
std::vector<double> probe(std::size_t n, double phase) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = std::sin(0.9 * static_cast<double>(i) + phase) * (1.0 + 0.1 * (i % 5));
    return v;
}

double masked_dot(const std::vector<double>& a, const std::vector<double>& b, const std::vector<char>& free) {
    double s = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) s += free[i] ? a[i] * b[i] : 0.0;
    return s;
}

}  // namespace

TEST(OwnFisher, ItsFormIsThatOfTheInverseItApplies) {
    HF_REQUIRE_SHARED();
    AtAsimov a = at_asimov("sbottom_regionA_1300_205_60");
    auto taken = infer::detail::OwnFisher::at(*a.c.model, a.p, {&a.y});
    ASSERT_FALSE(taken[0].empty());
    const std::size_t n = a.p.nfree();
    std::vector<char> all(n, 1), some(n, 1);
    for (std::size_t i = 0; i < n; i += 3) some[i] = 0;
    for (const auto* free : {&all, &some}) {
        const std::vector<double> v = probe(n, 0.3), q0 = probe(n, 1.1);
        std::vector<double> applied = v, q = q0, q_alone = q0;
        ASSERT_TRUE(taken[0].apply(free->data(), applied.data()));
        // what it returned true for: applied = (H_FF)^-1 v_F
        EXPECT_LT(apply_residual(a, *free, v, applied), 1e-7);
        double form = 0.0;
        ASSERT_TRUE(taken[0].apply_with_form(free->data(), q.data(), v.data(), form));
        ASSERT_TRUE(taken[0].apply(free->data(), q_alone.data()));
        const double want = masked_dot(v, applied, *free);
        EXPECT_GT(form, 0.0);
        EXPECT_NEAR(form, want, 1e-10 * std::fabs(want));
        for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(q[i], q_alone[i]) << "component " << i;
    }
}

// Four problems with every component free (one pass over the Woodbury form, or the dense product for the
// shapesys case) and one with a quarter held (through apply's Schur complement), in one apply_many call.
TEST(InverseHessian, ItsFormsAreThoseOfTheInverseItApplies) {
    HF_REQUIRE_SHARED();
    for (const char* name : {"sbottom_regionA_1300_205_60", "shapesys_nuisparfilter"}) {
        AtAsimov a = at_asimov(name);
        auto h0 = infer::detail::InverseHessian::at_asimov(*a.c.model, a.p, a.y);
        ASSERT_FALSE(h0.empty()) << name;
        const std::size_t n = a.p.nfree();
        std::vector<char> all(n, 1), some(n, 1);
        for (std::size_t i = 1; i < n; i += 4) some[i] = 0;
        std::vector<std::vector<double>> v;
        std::vector<const char*> free;
        std::vector<const double*> vp;
        for (int t = 0; t < 5; ++t) {
            v.push_back(probe(n, 0.7 * t));
            free.push_back(t == 2 ? some.data() : all.data());
        }
        for (const auto& x : v) vp.push_back(x.data());
        // the products of apply_many with forms are those without, bit for bit
        std::vector<std::vector<double>> q(5, probe(n, 2.0)), q_alone = q;
        std::vector<double*> qp, qp_alone;
        for (int t = 0; t < 5; ++t) {
            qp.push_back(q[t].data());
            qp_alone.push_back(q_alone[t].data());
        }
        vp[4] = nullptr;  // no form wanted for the last one
        std::vector<char> applied, applied_alone;
        std::vector<double> forms;
        h0.apply_many(free, qp, applied, vp, &forms);
        h0.apply_many(free, qp_alone, applied_alone);
        ASSERT_EQ(forms.size(), 5u);
        for (int t = 0; t < 5; ++t) {
            ASSERT_TRUE(applied[t] && applied_alone[t]) << name << ", vector " << t;
            for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(q[t][i], q_alone[t][i]) << name << ", vector " << t;
            if (t == 4) {
                EXPECT_TRUE(std::isnan(forms[t]));
                continue;
            }
            std::vector<double> mv = v[t];
            ASSERT_TRUE(h0.apply(free[t], mv.data()));
            EXPECT_LT(apply_residual(a, t == 2 ? some : all, v[t], mv), 1e-7) << name << ", vector " << t;
            const double want = masked_dot(v[t], mv, t == 2 ? some : all);
            EXPECT_GT(forms[t], 0.0) << name << ", vector " << t;
            EXPECT_NEAR(forms[t], want, 1e-10 * std::fabs(want)) << name << ", vector " << t;
        }
    }
}
