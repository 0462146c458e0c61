// Gradients of profiled quantities (implicit differentiation at the fitted minima) against central differences
// of full refits with the inputs perturbed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "grad_support.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/infer.hpp"
#include "hfcore/infer_advanced.hpp"
#include "hfcore/loader.hpp"

namespace hf::test {
namespace {

// Measured: 4e-9 (example CLs_obs, CLs_exp), 2e-8 (sbottom CLs_exp); without the Asimov fit's implicit term
// the example's differ by 1e-1.
constexpr double kRelCls = 1e-4;

infer::HypotestOptions tight_options() {
    infer::HypotestOptions o;
    o.fit.tolerance = 1e-14;
    return o;
}

// The `n` inputs with the largest |g| (the ones a difference can check to 1e-4), never a discontinuity.
std::vector<std::size_t> largest(const std::vector<double>& g, const std::vector<grad::InputBlock>& layout,
                                 const std::vector<double>& y, std::size_t n) {
    std::vector<std::size_t> idx(g.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::erase_if(idx, [&](std::size_t i) { return at_discontinuity(layout, y, i); });
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return std::abs(g[a]) > std::abs(g[b]); });
    idx.resize(std::min(n, idx.size()));
    return idx;
}

// hfcore's hypotest with the spec's inputs replaced by z (the model compiled again, its own aux data).
infer::HypotestResult refit_hypotest(const GradCase& c, const std::vector<double>& z, double mu,
                                     const infer::HypotestOptions& options) {
    const Model m(grad::with_inputs(c.spec, z));
    return infer::hypotest(mu, m, with_model_aux(m, c.main_data), options);
}

TEST(ProfileGrad, HypotestExpectedAndObservedCls) {
    const GradCase c = load_grad_case("example");
    const Model model(c.spec);
    const double mu = 1.0;
    const auto g = grad::hypotest_gradient(mu, c.spec, model, c.main_data, tight_options());
    ASSERT_EQ(g.status, grad::Status::ok) << g.reason;
    const auto y = grad::flatten_inputs(c.spec);
    const auto layout = grad::input_layout(c.spec);
    auto cls = [&](const std::vector<double>& z, int which) {
        const auto r = refit_hypotest(c, z, mu, tight_options());
        return which < 0 ? r.obs : r.exp[static_cast<std::size_t>(which)];
    };
    EXPECT_NEAR(g.exp[2], cls(y, 2), 1e-12);
    double worst = 0;
    for (int which : {2, 0, -1}) {
        const auto& d = which < 0 ? g.d_obs : g.d_exp[static_cast<std::size_t>(which)];
        for (std::size_t i : largest(d, layout, y, 3)) {
            const double fd = central_difference([&](const std::vector<double>& z) { return cls(z, which); }, y, i, 1e-3);
            const double err = std::abs(fd - d[i]) / std::abs(d[i]);
            worst = std::max(worst, err);
            EXPECT_LE(err, kRelCls) << "which " << which << " input " << i << ": " << d[i] << " vs " << fd;
        }
    }
    measured("example CLs gradients against refits (rel)", worst);
}

// The observed main data enter q_obs and, through the Asimov fit, q_A. Measured: 5e-6.
TEST(ProfileGrad, WithRespectToTheData) {
    const GradCase c = load_grad_case("example");
    const Model model(c.spec);
    const auto g = grad::hypotest_gradient(1.0, c.spec, model, c.main_data, tight_options());
    ASSERT_EQ(g.status, grad::Status::ok) << g.reason;
    ASSERT_EQ(g.d_exp_data[2].size(), c.main_data.size());
    auto cls = [&](const std::vector<double>& n, bool expected) {
        const auto data = with_model_aux(model, n);
        const auto r = infer::hypotest(1.0, model, data, tight_options());
        return expected ? r.exp[2] : r.obs;
    };
    double worst = 0;
    for (bool expected : {true, false}) {
        const auto& d = expected ? g.d_exp_data[2] : g.d_obs_data;
        for (std::size_t i = 0; i < d.size(); ++i) {
            const double fd = central_difference([&](const std::vector<double>& n) { return cls(n, expected); },
                                                 c.main_data, i, 1e-3);
            worst = std::max(worst, std::abs(fd - d[i]) / std::abs(d[i]));
            EXPECT_LE(std::abs(fd - d[i]), kRelCls * std::abs(d[i]) + 1e-12) << "bin " << i << ": " << d[i] << " vs " << fd;
        }
    }
    measured("example CLs gradients with respect to the data against refits (rel)", worst);
}

TEST(ProfileGrad, DiscoveryP0) {
    const GradCase c = load_grad_case("example");
    const Model model(c.spec);
    auto o = tight_options();
    o.test_stat = infer::TestStat::q0;
    const auto g = grad::hypotest_gradient(0.0, c.spec, model, c.main_data, o);
    ASSERT_EQ(g.status, grad::Status::ok) << g.reason;
    const auto y = grad::flatten_inputs(c.spec);
    auto p0 = [&](const std::vector<double>& z, bool expected) {
        const auto r = refit_hypotest(c, z, 0.0, o);
        return expected ? r.exp[2] : r.obs;
    };
    for (bool expected : {true, false}) {
        const auto& d = expected ? g.d_exp[2] : g.d_obs;
        for (std::size_t i : largest(d, grad::input_layout(c.spec), y, 2)) {
            const double fd = central_difference([&](const std::vector<double>& z) { return p0(z, expected); }, y, i, 1e-3);
            EXPECT_LE(std::abs(fd - d[i]) / std::abs(d[i]), kRelCls) << "input " << i << ": " << d[i] << " vs " << fd;
        }
    }
}

TEST(ProfileGrad, ProfiledTwiceNll) {
    const GradCase c = load_grad_case("example");
    const Model model(c.spec);
    infer::FitOptions fo;
    fo.tolerance = 1e-14;
    const double mu = 0.5;
    for (const double* poi : {static_cast<const double*>(nullptr), &mu}) {
        const auto g = grad::profiled_twice_nll_gradient(c.spec, model, c.main_data, poi, {}, fo);
        ASSERT_EQ(g.status, grad::Status::ok) << g.reason;
        if (poi) {
            EXPECT_NE(std::find(g.held.begin(), g.held.end(), "mu"), g.held.end());
        }
        const auto y = grad::flatten_inputs(c.spec);
        auto value = [&](const std::vector<double>& z) {
            const Model m(grad::with_inputs(c.spec, z));
            const auto data = with_model_aux(m, c.main_data);
            return poi ? infer::fixed_poi_fit(*poi, m, data, {}, fo).twice_nll : infer::fit(m, data, {}, fo).twice_nll;
        };
        for (std::size_t i : largest(g.d_inputs, grad::input_layout(c.spec), y, 4)) {
            const double fd = central_difference(value, y, i, 1e-3);
            EXPECT_LE(std::abs(fd - g.d_inputs[i]) / std::abs(g.d_inputs[i]), 1e-6)
                << "input " << i << ": " << g.d_inputs[i] << " vs " << fd;
        }
    }
}

TEST(ProfileGrad, NotConvergedSaysSo) {
    const GradCase c = load_grad_case("example");
    const Model model(c.spec);
    auto o = tight_options();
    o.fit.max_eval = 2;
    o.fit.algorithm = infer::FitAlgorithm::lbfgs;
    infer::MinimizerControls unpolished;
    unpolished.polish = false;
    unpolished.basin_search = false;
    o.fit = infer::with_minimizer_controls(o.fit, unpolished);
    const auto g = grad::hypotest_gradient(1.0, c.spec, model, c.main_data, o);
    EXPECT_EQ(g.status, grad::Status::not_converged);
    EXPECT_FALSE(g.reason.empty());
    EXPECT_TRUE(g.d_obs.empty());
    EXPECT_TRUE(g.d_exp[2].empty());
}

// Two unconstrained normalisations of one sample: only their product is fitted, so the Hessian of the Asimov
// fit is singular on them.
TEST(ProfileGrad, SingularHessianSaysSo) {
    const char* text = R"({"channels": [{"name": "c", "samples": [
        {"name": "s", "data": [5.0, 3.0], "modifiers": [{"name": "mu", "type": "normfactor", "data": null}]},
        {"name": "b", "data": [50.0, 40.0], "modifiers": [{"name": "k1", "type": "normfactor", "data": null},
                                                          {"name": "k2", "type": "normfactor", "data": null}]}]}],
      "observations": [{"name": "c", "data": [52.0, 45.0]}],
      "measurements": [{"name": "m", "config": {"poi": "mu", "parameters": []}}], "version": "1.0.0"})";
    const Workspace ws = Workspace::load_string(text);
    const ModelSpec spec = ws.model_spec();
    const Model model(spec);
    const auto g = grad::hypotest_gradient(1.0, spec, model, ws.observed_main_data(spec));
    EXPECT_EQ(g.status, grad::Status::singular_hessian);
    EXPECT_NE(g.reason.find("not positive definite"), std::string::npos);
    EXPECT_TRUE(g.d_exp[2].empty());
}

// A sbottom model (histosys, normsys, staterror, lumi; POI at its bound in the free fit): the median expected
// CLs against refits at its two most sensitive inputs.
TEST(ProfileGrad, SbottomExpectedCls) {
    HF_REQUIRE_SHARED();
    const GradCase c = load_grad_case("sbottom_regionA_1300_205_60");
    const Model model(c.spec);
    const double mu = 1.0;
    const auto g = grad::hypotest_gradient(mu, c.spec, model, c.main_data, tight_options());
    ASSERT_EQ(g.status, grad::Status::ok) << g.reason;
    const auto y = grad::flatten_inputs(c.spec);
    auto cls = [&](const std::vector<double>& z) { return refit_hypotest(c, z, mu, tight_options()).exp[2]; };
    double worst = 0;
    for (std::size_t i : largest(g.d_exp[2], grad::input_layout(c.spec), y, 2)) {
        const double fd = central_difference(cls, y, i, 1e-3);
        const double err = std::abs(fd - g.d_exp[2][i]) / std::abs(g.d_exp[2][i]);
        worst = std::max(worst, err);
        EXPECT_LE(err, kRelCls) << "input " << i << ": " << g.d_exp[2][i] << " vs " << fd;
    }
    measured("sbottom CLs_exp gradient against refits (rel)", worst);
}

// The Asimov fit's Hessian comes from the engine's batched gradients at 64b and from exact host sweeps at 32b
// (where the device's rounding would swamp a difference): both routes give the same gradient up to the 32b fits'
// own precision (measured 1.7e-3; leaving out the Hessian's term moves these gradients by 1e-1).
TEST(ProfileGrad, BothHessianRoutesAgree) {
    const GradCase c = load_grad_case("example");
    LoadOptions o32;
    o32.precision = Precision::f32;
    const Model m64(c.spec, load_backend("cpu"));
    const Model m32(c.spec, load_backend("cpu", o32));
    const auto g64 = grad::hypotest_gradient(1.0, c.spec, m64, c.main_data);
    const auto g32 = grad::hypotest_gradient(1.0, c.spec, m32, c.main_data);
    ASSERT_EQ(g64.status, grad::Status::ok) << g64.reason;
    ASSERT_EQ(g32.status, grad::Status::ok) << g32.reason;
    const auto y = grad::flatten_inputs(c.spec);
    double worst = 0;
    for (std::size_t i : largest(g64.d_exp[2], grad::input_layout(c.spec), y, 10)) {
        const double err = std::abs(g32.d_exp[2][i] - g64.d_exp[2][i]) / std::abs(g64.d_exp[2][i]);
        worst = std::max(worst, err);
        EXPECT_LE(err, 1e-2) << "input " << i << ": " << g32.d_exp[2][i] << " (32b) vs " << g64.d_exp[2][i];
    }
    measured("example CLs_exp gradient, 32b host-sweep Hessian against 64b engine Hessian (rel)", worst);
}

// K models differing in their yields in one call, on two threads: each result equals the call for that model alone
// (the same arithmetic, whichever thread ran it); one main-data vector for all or one per model; bad lengths named.
TEST(ProfileGrad, BatchOfModelsEqualsOneByOne) {
    const GradCase c = load_grad_case("example");
    const Model model(c.spec);
    const auto y0 = grad::flatten_inputs(c.spec);
    std::vector<std::vector<double>> inputs;
    for (int k = 0; k < 6; ++k) {
        auto y = y0;
        for (std::size_t i = 0; i < y.size(); ++i) y[i] *= 1.0 + 0.02 * std::sin(1.0 + k + 0.3 * static_cast<double>(i));
        inputs.push_back(y);
    }
    const auto batch = grad::hypotest_gradients(1.0, c.spec, model, inputs, {c.main_data}, {}, 2);
    ASSERT_EQ(batch.size(), inputs.size());
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        const auto spec_k = grad::with_inputs(c.spec, inputs[k]);
        const auto one = grad::hypotest_gradient(1.0, spec_k, Model(spec_k), c.main_data);
        ASSERT_EQ(batch[k].status, grad::Status::ok) << batch[k].reason;
        EXPECT_EQ(batch[k].exp, one.exp) << k;
        EXPECT_EQ(batch[k].d_exp[2], one.d_exp[2]) << k;
        EXPECT_EQ(batch[k].d_obs, one.d_obs) << k;
    }
    EXPECT_NE(batch[0].exp[2], batch[1].exp[2]);
    const std::vector<std::vector<double>> per_model(inputs.size(), c.main_data);
    const auto again = grad::hypotest_gradients(1.0, c.spec, model, inputs, per_model, {}, 1);
    for (std::size_t k = 0; k < inputs.size(); ++k) EXPECT_EQ(again[k].d_exp[2], batch[k].d_exp[2]) << k;
    auto bad = inputs;
    bad[3].pop_back();
    EXPECT_THROW(
        {
            try {
                grad::hypotest_gradients(1.0, c.spec, model, bad, {c.main_data});
            } catch (const InputError& e) {
                EXPECT_NE(std::string(e.what()).find("inputs[3]"), std::string::npos) << e.what();
                throw;
            }
        },
        InputError);
    EXPECT_THROW(grad::hypotest_gradients(1.0, c.spec, model, inputs, {c.main_data, c.main_data}), InputError);
}

}  // namespace
}  // namespace hf::test
