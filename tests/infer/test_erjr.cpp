// The ATLAS 3L eRJR likelihoods (66 signal points, 69 parameters, shapesys widths down to 2e-6): every fit
// converges to a minimum at least as low as pyhf's (default scipy and Minuit), CLs at mu = 1 agrees with pyhf +
// Minuit (validity flag ignored; itself good to ~1e-2), and `hfcore scan --upper-limit` runs on all 66.
#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>

#include "infer_support.hpp"

namespace hf::test {
namespace {

// pyhf's logpdf on these models rounds to ~1e-3 (n log(lam) - lam - lgamma(n + 1) with aux data n ~ 1e11 is a
// difference of terms of 1e12), so pyhf's fits - Minuit's included - resolve q_A only to a few 1e-3. The
// expected CLs depend on q_A alone (median: CLs = 2 Phi(-sqrt(q_A))), so q_A is compared with that noise
// allowed, and CLs within 1e-2 relative only where q_A is large enough for that noise not to matter.
double q_asimov_from_median(double cls_median) {
    const double s = infer::normal_isf(0.5 * cls_median);
    return s * s;
}

// Agreement with pyhf + Minuit over the 66 points (each printed as "[ agreement ]"). The CLs and q_A differences
// are pyhf's own noise (its logpdf rounds to ~1e-3 here, see above), not hfcore's, which reproduces to ~1e-10:
// so those tolerances sit just above the measured figure instead of 10x it.
// hfcore's minimum is below pyhf's best at every point (by 3.1e-4 at least)
constexpr double kNllAbove = 0.0;
// hfcore's twice_nll at pyhf's best-fit point against pyhf's value there: pyhf's own rounding on these models
// (tests/reference/README.md: up to 1.9e-3 in logpdf at the fixture points, so 3.8e-3 in twice_nll); measured
// 2.3e-3 at pyhf's best fits.
constexpr double kNllAtPyhfPoint = 4e-3;
// hfcore's minimum at or below its own twice_nll at pyhf's best-fit point (less than this above it: the fit's
// convergence).
constexpr double kDescent = 1e-6;
constexpr double kQAsimovAbs = 5e-3;         // |q_A - pyhf+Minuit|: measured 3.4e-3
constexpr double kClsObsRel = 1e-2;          // CLs_obs where q_A > 0.1: measured 8.7e-3 (ERJR_500p0_100p0)
constexpr double kClsExpRel = 1e-2;          // CLs_exp where q_A > 0.1: measured 7.7e-3 (ERJR_110p0_70p0)
constexpr double kClsUnresolvedAbs = 2e-2;   // CLs_obs where q_A < 0.1 (10 points, absolute): measured 1.6e-2
// Upper limits at 4 points (rtol 1e-4 on both sides): about 2x the measured figure, for the same reason.
constexpr double kLimitObsRel = 5e-4;        // measured 2.4e-4
constexpr double kLimitExpRel = 2e-3;        // measured 1.0e-3

TEST(Erjr, FitsAndClsOnAllPoints) {
    HF_REQUIRE_SHARED();
    auto backend = load_backend("cpu");
    const auto t0 = std::chrono::steady_clock::now();
    double worst_nll = -1e300, worst_obs = 0, worst_exp = 0, worst_qa = 0, worst_unresolved = 0;
    std::string worst_nll_at, worst_obs_at, worst_exp_at;
    std::ostringstream lower, unresolved;
    int n = 0, n_lower = 0;
    double worst_at_point = 0;
    for (const auto& name : erjr_points()) {
        const auto& e = erjr_expected()["points"][name];
        auto p = load_erjr(name, backend);
        ASSERT_EQ(p.model->n_pars(), static_cast<std::int64_t>(e["par_names"].as_array().size())) << name;
        auto fit = infer::fit(*p.model, p.data);
        EXPECT_TRUE(fit.converged) << name << ": " << fit.reason;
        const double pyhf_default = e["default"]["mle"]["twice_nll"].as_double();
        const double pyhf_minuit = e["minuit"]["mle"]["twice_nll"].as_double();
        const double best_pyhf = std::min(pyhf_default, pyhf_minuit);
        const double d = fit.twice_nll - best_pyhf;
        EXPECT_LE(d, kNllAbove) << name << ": twice_nll " << fit.twice_nll << " pyhf " << best_pyhf;
        if (d > worst_nll) worst_nll = d, worst_nll_at = name;
        // hfcore's minimum lower than pyhf's splits into the two likelihoods' difference at pyhf's best-fit point
        // (pyhf's rounding, bounded) and hfcore's descent below that point on its own likelihood (>= 0). A
        // likelihood lower than pyhf's fails the first; a fit that reports a minimum it did not reach, the second.
        const auto& pyhf_fit = pyhf_default <= pyhf_minuit ? e["default"]["mle"] : e["minuit"]["mle"];
        const double at_pyhf_point = -2.0 * p.model->logpdf(numbers(pyhf_fit["bestfit"]), p.data);
        EXPECT_LE(std::abs(at_pyhf_point - best_pyhf), kNllAtPyhfPoint)
            << name << ": hfcore's twice_nll at pyhf's best fit " << at_pyhf_point << ", pyhf's " << best_pyhf;
        worst_at_point = std::max(worst_at_point, std::abs(at_pyhf_point - best_pyhf));
        EXPECT_LE(fit.twice_nll, at_pyhf_point + kDescent)
            << name << ": the fit's minimum is above its own likelihood at pyhf's best fit";
        if (d < -1e-3) {
            ++n_lower;
            lower << " " << name << " (" << d << ", of which " << fit.twice_nll - at_pyhf_point << " descent)";
        }

        auto h = infer::hypotest(1.0, *p.model, p.data);
        EXPECT_TRUE(h.converged) << name;
        const auto& ref = e["minuit_ignore_validity"];
        auto exp = numbers(ref["CLs_exp"]);
        const double qA_ref = q_asimov_from_median(exp[2]);
        EXPECT_NEAR(h.q_asimov, qA_ref, kQAsimovAbs) << name << ": q_A";
        worst_qa = std::max(worst_qa, std::abs(h.q_asimov - qA_ref));
        const bool resolved = qA_ref > 0.1;
        const double ro = rel(h.obs, ref["CLs_obs"].as_double());
        if (resolved) {
            EXPECT_LE(ro, kClsObsRel) << name << ": CLs_obs " << h.obs << " pyhf+Minuit " << ref["CLs_obs"].as_double();
            if (ro > worst_obs) worst_obs = ro, worst_obs_at = name;
        } else {
            const double da = std::abs(h.obs - ref["CLs_obs"].as_double());
            EXPECT_LE(da, kClsUnresolvedAbs) << name << " (q_A " << qA_ref << ")";
            worst_unresolved = std::max(worst_unresolved, da);
            unresolved << " " << name;
        }
        for (int i = 0; i < 5; ++i) {
            const double re = rel(h.exp[i], exp[i]);
            if (resolved) {
                EXPECT_LE(re, kClsExpRel) << name << ": CLs_exp[" << i << "] " << h.exp[i] << " pyhf+Minuit " << exp[i];
                if (re > worst_exp) worst_exp = re, worst_exp_at = name;
            }
        }
        ++n;
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(n, 66);
    std::printf("eRJR: %d points in %.1f s; lower than pyhf by more than 1e-3 at %d:%s; q_A < 0.1 at:%s\n", n, secs,
                n_lower, lower.str().c_str(), unresolved.str().c_str());
    report_agreement("eRJR " + worst_nll_at, "twice_nll - min(pyhf default, Minuit)", worst_nll, kNllAbove);
    report_agreement("eRJR", "|twice_nll at pyhf's best fit - pyhf's|", worst_at_point, kNllAtPyhfPoint);
    report_agreement("eRJR", "|q_A - pyhf+Minuit|", worst_qa, kQAsimovAbs);
    report_agreement("eRJR " + worst_obs_at, "CLs_obs (rel, q_A > 0.1)", worst_obs, kClsObsRel);
    report_agreement("eRJR " + worst_exp_at, "CLs_exp (rel, q_A > 0.1)", worst_exp, kClsExpRel);
    report_agreement("eRJR", "CLs_obs (abs, q_A < 0.1)", worst_unresolved, kClsUnresolvedAbs);
}

// pyhf + Minuit upper limits exist for four points (rtol 1e-4, Minuit flags ignored).
TEST(Erjr, UpperLimitsAgreeWithMinuit) {
    HF_REQUIRE_SHARED();
    auto backend = load_backend("cpu");
    int checked = 0;
    double worst_obs = 0, worst_exp = 0;
    for (const auto& name : erjr_points()) {
        const auto* ul = erjr_expected()["points"][name]["minuit_ignore_validity"].find("upper_limit");
        if (!ul) continue;
        auto p = load_erjr(name, backend);
        infer::Toms748Options t;
        t.rtol = 1e-4;
        auto r = infer::upper_limit(*p.model, p.data, t);
        const double d_obs = rel(r.obs, (*ul)["obs"].as_double());
        EXPECT_LE(d_obs, kLimitObsRel) << name << " obs " << r.obs;
        worst_obs = std::max(worst_obs, d_obs);
        auto exp = numbers((*ul)["exp"]);
        for (int i = 0; i < 5; ++i) {
            EXPECT_LE(rel(r.exp[i], exp[i]), kLimitExpRel) << name << " exp[" << i << "] " << r.exp[i];
            worst_exp = std::max(worst_exp, rel(r.exp[i], exp[i]));
        }
        ++checked;
    }
    EXPECT_EQ(checked, 4);
    report_agreement("eRJR", "observed limits (rel)", worst_obs, kLimitObsRel);
    report_agreement("eRJR", "expected limits (rel)", worst_exp, kLimitExpRel);
}

// The CLI over all 66 patch files, with upper limits, in two threads.
TEST(Erjr, ScanWithUpperLimitsCompletes) {
    HF_REQUIRE_SHARED();
    std::string cmd = std::string(HFCORE_CLI_PATH) + " scan " + (erjr_dir() / "BkgOnly.json").string();
    for (const auto& name : erjr_points()) {
        cmd += ' ';
        cmd += (erjr_dir() / erjr_expected()["points"][name]["patch_file"].as_string()).string();
    }
    cmd += " --upper-limit --threads 2 2>&1";
    const auto t0 = std::chrono::steady_clock::now();
    FILE* pipe = popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string out;
    char buf[65536];
    while (std::size_t k = fread(buf, 1, sizeof buf, pipe)) out.append(buf, k);
    const int rc = pclose(pipe);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_EQ(rc, 0) << out.substr(0, 4000);
    auto doc = json::parse(out, "hfcore scan output");
    const auto& results = doc["results"].as_array();
    ASSERT_EQ(results.size(), 66u);
    for (const auto& r : results) {
        const std::string name = r["name"].as_string();
        EXPECT_FALSE(r.find("error")) << name;
        ASSERT_TRUE(r.find("upper_limit")) << name << (r.find("upper_limit_error") ? r["upper_limit_error"].as_string() : "");
        EXPECT_TRUE(r["converged"].as_bool()) << name;
        const double obs = r["upper_limit"]["obs"].as_double();
        EXPECT_TRUE(obs > 0 && std::isfinite(obs)) << name;
        // CLs at mu = 1 below 0.05 <=> the limit below 1.
        EXPECT_EQ(r["CLs_obs"].as_double() < 0.05, obs < 1.0) << name;
    }
    EXPECT_EQ(doc["summary"]["n_errors"].as_double(), 0.0);
    std::printf("eRJR: hfcore scan --upper-limit, 66 points, 2 threads: %.1f s\n", secs);
}

}  // namespace
}  // namespace hf::test
