// Asymptotic CLs (p0 for q0) on pyhf's validation cases and the sbottom regression models.
//
// Two references: pyhf with tight fits (tests/reference/infer/validation_tight.json), matched within each case's
// own tolerance; and the numbers in expected.json from pyhf's default fit, whose SLSQP stops 1e-9..1e-7 above
// the minimum and so moves CLs by up to ~1e-4 relative - matched within the case's tolerance plus that
// measured optimizer error |default - tight|.
#include <cmath>

#include "infer_support.hpp"

namespace hf::test {
namespace {

struct Tolerance {
    double obs_rel = 0, exp_rel = 0, exp_abs = 0, abs = 0;
};

// The case's tolerance as the pyhf test applies it: a number is relative; {obs_rel, exp_rtol, exp_atol} and
// {atol, rtol} as named.
Tolerance case_tolerance(const json::Value& t) {
    Tolerance tol;
    if (t.is_number()) {
        tol.obs_rel = tol.exp_rel = t.as_double();
        tol.exp_abs = 1e-12;
    } else if (t.find("obs_rel")) {
        tol.obs_rel = t["obs_rel"].as_double();
        tol.exp_rel = t["exp_rtol"].as_double();
        tol.exp_abs = t["exp_atol"].as_double();
    } else {
        tol.obs_rel = tol.exp_rel = t["rtol"].as_double();
        tol.abs = tol.exp_abs = t["atol"].as_double();
    }
    return tol;
}

class ValidationCls : public ::testing::TestWithParam<std::string> {};

TEST_P(ValidationCls, MatchesPyhf) {
    HF_REQUIRE_SHARED();
    Case c = load_case(GetParam());
    const auto& tight = tight_reference()["cases"][c.name];
    const auto& dflt = c.expected["pyhf"];
    const Tolerance tol = case_tolerance(c.expected["tolerance"]);
    auto r = infer::hypotest(c.mu_test(), *c.model, c.data, case_options(c));
    EXPECT_TRUE(r.converged);

    const double t_obs = tight["CLs_obs"].as_double(), d_obs = dflt["CLs_obs"].as_double();
    EXPECT_LE(std::abs(r.obs - t_obs), tol.abs + tol.obs_rel * std::abs(t_obs))
        << "obs " << r.obs << " vs pyhf (tight fits) " << t_obs << ", rel " << rel(r.obs, t_obs);
    EXPECT_LE(std::abs(r.obs - d_obs), tol.abs + tol.obs_rel * std::abs(d_obs) + 1.01 * std::abs(d_obs - t_obs))
        << "obs " << r.obs << " vs pyhf (default fits) " << d_obs;
    auto t_exp = numbers(tight["CLs_exp"]), d_exp = numbers(dflt["CLs_exp"]);
    for (int i = 0; i < 5; ++i) {
        EXPECT_LE(std::abs(r.exp[i] - t_exp[i]), tol.exp_abs + tol.exp_rel * std::abs(t_exp[i]))
            << "exp[" << i << "] " << r.exp[i] << " vs pyhf (tight fits) " << t_exp[i] << ", rel " << rel(r.exp[i], t_exp[i]);
        EXPECT_LE(std::abs(r.exp[i] - d_exp[i]),
                  tol.exp_abs + tol.exp_rel * std::abs(d_exp[i]) + 1.01 * std::abs(d_exp[i] - t_exp[i]))
            << "exp[" << i << "] " << r.exp[i] << " vs pyhf (default fits) " << d_exp[i];
    }
    // The tail probabilities behind the ratio (q0: CLb is the p-value of the b-only distribution at q0's
    // median, pyhf stores it too).
    if (c.test_stat() != infer::TestStat::q0) {
        EXPECT_NEAR(r.CLsb_obs / r.CLb_obs, r.CLs_obs, 1e-15);
        EXPECT_LE(rel(r.CLb_obs, dflt["CLb_obs"].as_double()), 1e-3);
        EXPECT_LE(rel(r.CLsb_obs, dflt["CLsb_obs"].as_double()), 1e-3);
    }
    EXPECT_LE(rel(r.q_obs, dflt["q_obs"].as_double()), 1e-3) << "raw observed test statistic";
    EXPECT_LE(rel(r.q_asimov, dflt["q_asimov"].as_double()), 1e-3) << "Asimov test statistic";
}

INSTANTIATE_TEST_SUITE_P(Cases, ValidationCls, ::testing::ValuesIn(cls_cases()));

// The five fits of the asymptotic calculator land where pyhf's do.
TEST(ValidationCls, CalculatorFitsMatchPyhf) {
    HF_REQUIRE_SHARED();
    Case c = load_case("2bin_2channel");
    infer::AsymptoticCalculator calc(*c.model, c.data, case_options(c));
    const double t = calc.teststatistic(c.mu_test());
    EXPECT_NEAR(t, c.expected["pyhf"]["teststat_calculator"].as_double(), 1e-4);
    const auto& fp = c.expected["pyhf"]["fitted_pars"];
    const auto& d = calc.details();
    auto check = [&](const std::vector<double>& ours, const char* key) {
        auto ref = numbers(fp[key]);
        ASSERT_EQ(ours.size(), ref.size());
        for (std::size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(ours[i], ref[i], 2e-3) << key << "[" << i << "]";
    };
    check(d.asimov_pars, "asimov_pars");
    check(d.free_fit_to_data, "free_fit_to_data");
    check(d.free_fit_to_asimov, "free_fit_to_asimov");
    check(d.fixed_poi_fit_to_data, "fixed_poi_fit_to_data");
    check(d.fixed_poi_fit_to_asimov, "fixed_poi_fit_to_asimov");
    auto p = calc.pvalues(t);
    EXPECT_NEAR(p[2], c.expected["pyhf"]["CLs_obs"].as_double(), 1e-4);
}

// q with the POI bounded at zero logs pyhf's warning; qtilde does not.
TEST(ValidationCls, TestStatisticBoundWarnings) {
    HF_REQUIRE_SHARED();
    Case c = load_case("1bin_shapesys");
    auto q = infer::test_statistic(infer::TestStat::q, 1.0, *c.model, c.data);
    EXPECT_EQ(q.warnings.size(), 1u);
    auto qt = infer::test_statistic(infer::TestStat::qtilde, 1.0, *c.model, c.data);
    EXPECT_TRUE(qt.warnings.empty());
    EXPECT_NEAR(q.value, c.expected["pyhf"]["q_obs"].as_double(), 1e-6);
    // t and t~ are the unclipped versions: equal to q where mu-hat <= mu.
    auto t = infer::test_statistic(infer::TestStat::t, 1.0, *c.model, c.data);
    EXPECT_NEAR(t.value, q.value, 1e-9);
    auto q0 = infer::test_statistic(infer::TestStat::q0, 1.0, *c.model, c.data);
    EXPECT_EQ(q0.warnings.size(), 1u);  // "Setting mu=0"
    EXPECT_EQ(q0.fixed_fit.bestfit[c.model->poi_index()], 0.0);
}

}  // namespace
}  // namespace hf::test
