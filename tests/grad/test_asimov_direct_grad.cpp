// q_A's direct term on the backend: the partial of twice_nll at the Asimov data held fixed plus the vector-Jacobian
// product of the expected data (main and aux) with the cotangent d twice_nll / d data
// (FusedLikelihood::expected_data_vjp), against the host tape (the reference): the VJP itself (white box, several
// points and cotangents), and the hypotest's gradients (q_A, CLs_exp, CLs_obs) by each engine. The finite
// differences of refits that check the gradients themselves are test_profile_grad.cpp's.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "grad/evaluate.hpp"
#include "grad/fused_input_grad.hpp"
#include "grad/structure.hpp"
#include "grad_support.hpp"
#include "hfcore/loader.hpp"
#include "plugin_support.hpp"

namespace hf::test {
namespace {

// Backend against tape, relative to each result's largest component: they differ by rounding only.
constexpr double kTol = 1e-10;

ModelSpec with_codes(ModelSpec spec, const std::string& histosys, const std::string& normsys) {
    spec.settings.set("histosys", parse_interpcode(histosys));
    spec.settings.set("normsys", parse_interpcode(normsys));
    return spec;
}

// d (c . expected data) / d (inputs, pars) on the tape.
std::pair<std::vector<double>, std::vector<double>> tape_vjp(const grad_detail::Structure& s,
                                                             const std::vector<double>& y0,
                                                             const std::vector<double>& pars,
                                                             const std::vector<double>& c_main,
                                                             const std::vector<double>& c_aux) {
    using namespace grad_detail;
    TapeScope scope;
    std::vector<Var> y, p;
    for (double v : y0) y.push_back(Var::input(v));
    for (double v : pars) p.push_back(Var::input(v));
    const auto m = expected_main(s, y.data(), p.data());
    const auto a = expected_aux(s, y.data(), p.data());
    Var sum(0.0);
    for (std::size_t b = 0; b < m.size(); ++b) sum = sum + c_main[b] * m[b];
    for (std::size_t i = 0; i < a.size(); ++i) sum = sum + c_aux[i] * a[i];
    const auto adj = scope.tape.backward(sum.id);
    auto of = [&](const std::vector<Var>& v) {
        std::vector<double> out(v.size(), 0.0);
        for (std::size_t i = 0; i < v.size(); ++i)
            if (v[i].id >= 0) out[i] = adj[static_cast<std::size_t>(v[i].id)];
        return out;
    };
    return {of(y), of(p)};
}

// The plugin's VJP mapped to the inputs against the tape's, at off_kink_point with the interpolated parameters'
// offsets scaled (7: the exponential and linear branches), cotangents of both signs on every datum.
double vjp_against_tape(const ModelSpec& spec, const Model& model) {
    const auto s = grad_detail::trace_structure(spec, model);
    const auto y = grad::flatten_inputs(spec);
    const auto init = model.suggested_init(), off = off_kink_point(model);
    const auto bounds = model.suggested_bounds();
    std::vector<double> c_main(static_cast<std::size_t>(s.n_main)), c_aux(static_cast<std::size_t>(s.n_aux));
    for (std::size_t b = 0; b < c_main.size(); ++b) c_main[b] = std::sin(1.0 + 0.7 * static_cast<double>(b));
    for (std::size_t a = 0; a < c_aux.size(); ++a) c_aux[a] = std::cos(2.0 + 0.9 * static_cast<double>(a));
    double worst = 0;
    for (double scale : {1.0, 7.0}) {
        auto p = off;
        for (std::size_t i = 0; i < p.size(); ++i)
            if (init[i] == 0.0) p[i] = std::clamp(scale * off[i], bounds[i].first, bounds[i].second);
        const auto got = grad_detail::FusedInputGradient(model, s, y).expected_data_vjp(p, c_main, c_aux);
        EXPECT_TRUE(got.has_value()) << model.implementation();
        if (!got) return 1.0;
        const auto [ref_in, ref_par] = tape_vjp(s, y, p, c_main, c_aux);
        worst = std::max({worst, norm_rel(got->d_inputs, ref_in), norm_rel(got->d_pars, ref_par)});
    }
    return worst;
}

TEST(AsimovDirectGrad, ExpectedDataVjpEveryInterpolationCode) {
    const GradCase c = load_grad_case("example");
    for (const char* histosys : {"code0", "code2", "code4p"})
        for (const char* normsys : {"code1", "code4"}) {
            const ModelSpec spec = with_codes(c.spec, histosys, normsys);
            const double worst = vjp_against_tape(spec, Model(spec, load_backend("cpu")));
            EXPECT_LE(worst, kTol) << histosys << " " << normsys;
            measured(std::string("example ") + histosys + " " + normsys + " expected-data VJP, cpu vs tape", worst);
        }
    LoadOptions o32;
    o32.precision = Precision::f32;
    const double worst32 = vjp_against_tape(c.spec, Model(c.spec, load_backend("cpu", o32)));
    EXPECT_LE(worst32, 1e-4);
    measured("example expected-data VJP, cpu 32b vs tape", worst32);
}

// The hypotest's gradients by the backend engine (q_A's direct term on `route_prefix`) against the host tape's.
double hypotest_against_tape(const ModelSpec& spec, const Model& model, const std::vector<double>& main_data,
                             double mu, const std::string& route_prefix) {
    const auto tape = grad::hypotest_gradient(mu, spec, model, main_data, {}, grad::Engine::host_tape);
    const auto got = grad::hypotest_gradient(mu, spec, model, main_data);
    EXPECT_EQ(got.status, grad::Status::ok) << got.reason;
    EXPECT_EQ(tape.route_asimov, "host tape");
    EXPECT_EQ(got.route_asimov.rfind(route_prefix, 0), 0u) << got.route_asimov;
    if (got.status != grad::Status::ok || tape.status != grad::Status::ok) return 1.0;
    return std::max({norm_rel(got.d_q_asimov, tape.d_q_asimov), norm_rel(got.d_exp[2], tape.d_exp[2]),
                     norm_rel(got.d_exp[0], tape.d_exp[0]), norm_rel(got.d_obs, tape.d_obs),
                     norm_rel(got.d_exp_data[2], tape.d_exp_data[2])});
}

TEST(AsimovDirectGrad, HypotestExampleEveryInterpolationCode) {
    const GradCase c = load_grad_case("example");
    for (const char* histosys : {"code0", "code4p"})
        for (const char* normsys : {"code1", "code4"}) {
            const ModelSpec spec = with_codes(c.spec, histosys, normsys);
            const double worst =
                hypotest_against_tape(spec, Model(spec, load_backend("cpu")), c.main_data, 1.0, "fused: cpu fused");
            EXPECT_LE(worst, kTol) << histosys << " " << normsys;
            measured(std::string("example ") + histosys + " " + normsys + " hypotest gradients, fused vs tape", worst);
        }
}

TEST(AsimovDirectGrad, HypotestValidationCasesAndSbottom) {
    HF_REQUIRE_SHARED();
    for (const char* name : {"1bin_shapesys", "2bin_2channel_coupledhistosys", "sbottom_regionA_1300_205_60"}) {
        const GradCase c = load_grad_case(name);
        const double worst = hypotest_against_tape(c.spec, Model(c.spec, load_backend("cpu")), c.main_data, 1.0,
                                                   "fused: cpu fused");
        EXPECT_LE(worst, kTol) << name;
        measured(std::string(name) + " hypotest gradients, fused vs tape", worst);
    }
}

// q0 (the Asimov fit at mu = 1) takes the same route.
TEST(AsimovDirectGrad, HypotestQ0) {
    const GradCase c = load_grad_case("example");
    infer::HypotestOptions o;
    o.test_stat = infer::TestStat::q0;
    const Model model(c.spec, load_backend("cpu"));
    const auto tape = grad::hypotest_gradient(0.0, c.spec, model, c.main_data, o, grad::Engine::host_tape);
    const auto got = grad::hypotest_gradient(0.0, c.spec, model, c.main_data, o);
    ASSERT_EQ(got.status, grad::Status::ok) << got.reason;
    EXPECT_EQ(got.route_asimov.rfind("fused: cpu fused", 0), 0u) << got.route_asimov;
    EXPECT_LE(norm_rel(got.d_exp[2], tape.d_exp[2]), kTol);
    EXPECT_LE(norm_rel(got.d_q_asimov, tape.d_q_asimov), kTol);
}

// Core's fallback likelihood offers no reverse pass: q_A's direct term stays on the host tape, q_obs's partial
// runs on Tier 1 ops.
TEST(AsimovDirectGrad, HostTapeWhereNotOffered) {
    const GradCase c = load_grad_case("example");
    ModelOptions no_fused;
    no_fused.prefer_fused = false;
    const Model model(c.spec, load_backend("cpu"), no_fused);
    const double mu = 3.0;  // q_obs > 0: its partial is evaluated
    const auto g = grad::hypotest_gradient(mu, c.spec, model, c.main_data);
    ASSERT_EQ(g.status, grad::Status::ok) << g.reason;
    ASSERT_GT(g.q_obs, 0.0);
    EXPECT_EQ(g.route_asimov, "host tape");
    EXPECT_EQ(g.route_obs, "tier-1 ops");
    const auto fused = grad::hypotest_gradient(mu, c.spec, Model(c.spec, load_backend("cpu")), c.main_data);
    EXPECT_EQ(fused.route_obs.rfind("fused: cpu fused", 0), 0u) << fused.route_obs;
    EXPECT_LE(norm_rel(g.d_exp[2], fused.d_exp[2]), 1e-8);
    EXPECT_LE(norm_rel(g.d_obs, fused.d_obs), 1e-8);
}

// The opencl plugin's kernels (PoCL here) and cuda's: at 64b the VJP and the hypotest's gradients, at 32b the VJP
// to float rounding (as the input gradient's 32b checks, test_fused_input_grad.cpp).
void check_gpu_plugin(const std::string& plugin) {
    const GradCase c = load_grad_case("example");
    LoadOptions o32;
    o32.precision = Precision::f32;
    const double vjp32 = vjp_against_tape(c.spec, Model(c.spec, load_backend(plugin, o32)));
    EXPECT_LE(vjp32, 1e-4) << plugin << " 32b";
    measured("example " + plugin + " 32b expected-data VJP vs tape", vjp32);
    for (const auto& [histosys, normsys] : {std::pair{"code4p", "code4"}, std::pair{"code0", "code1"}}) {
        const ModelSpec spec = with_codes(c.spec, histosys, normsys);
        const Model model(spec, load_backend(plugin));
        const std::string what = std::string("example ") + histosys + " " + normsys + " " + plugin;
        const double vjp = vjp_against_tape(spec, model);
        EXPECT_LE(vjp, kTol) << what;
        measured(what + " expected-data VJP vs tape", vjp);
        const double hyp = hypotest_against_tape(spec, model, c.main_data, 1.0, "fused: " + plugin + " fused");
        EXPECT_LE(hyp, kTol) << what;
        measured(what + " hypotest gradients, fused vs tape", hyp);
    }
}

TEST(AsimovDirectGrad, OpenCL) {
    HF_REQUIRE_PLUGIN("opencl");
    check_gpu_plugin("opencl");
}

TEST(AsimovDirectGrad, Cuda) {
    HF_REQUIRE_PLUGIN("cuda");
    check_gpu_plugin("cuda");
}

}  // namespace
}  // namespace hf::test
