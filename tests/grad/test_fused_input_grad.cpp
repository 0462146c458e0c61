// The fused route of the likelihood's input gradient: the cpu plugin's reverse-mode terms by the packed arrays
// (FusedLikelihood::input_gradient), mapped by core to the spec's inputs (core/grad/fused_input_grad.cpp), against
// the host tape (the reference) at 64b: every modifier kind and interpolation code, histosys bins the packer
// leaves out, K > 1 points in one call (white box), the Tier 1 route, with the same answers, where a likelihood
// does not offer the entry (core's fallback likelihood), and the opencl (PoCL here) and cuda plugins' kernels.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "grad/fused_input_grad.hpp"
#include "grad/structure.hpp"
#include "grad_support.hpp"
#include "hfcore/loader.hpp"
#include "hfcore/plugin/likelihood.hpp"
#include "plugin_support.hpp"

namespace hf::test {
namespace {

// Fused against tape, relative to each result's largest component; the two differ by rounding only (measured
// about 1e-15 to 1e-13, the tape summing in another order).
constexpr double kTol = 1e-10;

bool is_fused_cpu(const std::string& route) { return route.rfind("fused: cpu fused", 0) == 0; }

ModelSpec with_codes(ModelSpec spec, const std::string& histosys, const std::string& normsys) {
    if (!histosys.empty()) spec.settings.set("histosys", parse_interpcode(histosys));
    if (!normsys.empty()) spec.settings.set("normsys", parse_interpcode(normsys));
    return spec;
}

// The worst relative difference of value, d/d inputs, d/d pars and d/d main data of a against b.
double worst_difference(const grad::LikelihoodGradient& a, const grad::LikelihoodGradient& b) {
    return std::max({std::abs(a.value - b.value) / std::abs(b.value), norm_rel(a.d_inputs, b.d_inputs),
                     norm_rel(a.d_pars, b.d_pars), norm_rel(a.d_main_data, b.d_main_data)});
}

// The automatic engine on the cpu plugin (the fused route) against the tape at a point off the kinks.
void check_against_tape(const ModelSpec& spec, const std::vector<double>& main_data, const std::string& what) {
    const Model model(spec, load_backend("cpu"));
    const auto pars = off_kink_point(model);
    const auto tape = grad::twice_nll_gradient(spec, model, pars, main_data, grad::Engine::host_tape);
    const auto fused = grad::twice_nll_gradient(spec, model, pars, main_data);
    EXPECT_EQ(fused.engine, grad::Engine::backend) << what;
    EXPECT_TRUE(is_fused_cpu(fused.route)) << what << ": ran " << fused.route;
    const double worst = worst_difference(fused, tape);
    EXPECT_LE(worst, kTol) << what;
    measured(what + " fused vs tape (rel. to largest)", worst);
    measured(what + " d_inputs fused vs tape (rel. per component above 1e-6 of the largest)",
             component_rel(fused.d_inputs, tape.d_inputs));
}

TEST(FusedInputGrad, RunsOnCpuAndNamesItsRoute) {
    const GradCase c = load_grad_case("example");
    const Model model(c.spec, load_backend("cpu"));
    const auto g = grad::twice_nll_gradient(c.spec, model, model.suggested_init(), c.main_data);
    EXPECT_EQ(g.route, std::string("fused: ") + model.implementation());
    const auto tape = grad::twice_nll_gradient(c.spec, model, model.suggested_init(), c.main_data,
                                               grad::Engine::host_tape);
    EXPECT_EQ(tape.route, "host tape");
}

// example.json has every modifier kind: histosys, lumi, normfactor, normsys, shapefactor, shapesys, staterror.
TEST(FusedInputGrad, ExampleWorkspaceEveryInterpolationCode) {
    const GradCase c = load_grad_case("example");
    for (const char* histosys : {"code0", "code2", "code4p"})
        for (const char* normsys : {"code1", "code4"})
            check_against_tape(with_codes(c.spec, histosys, normsys), c.main_data,
                               std::string("example ") + histosys + " " + normsys);
}

TEST(FusedInputGrad, ValidationCases) {
    HF_REQUIRE_SHARED();
    for (const char* name : {"1bin_lumi", "1bin_normsys", "1bin_shapesys", "2bin_2channel", "2bin_histosys",
                             "2bin_2channel_couplednorm", "2bin_2channel_coupledshapefactor", "shapesys_nuisparfilter"}) {
        const GradCase c = load_grad_case(name);
        check_against_tape(c.spec, c.main_data, name);
    }
    const GradCase c = load_grad_case("2bin_2channel_coupledhistosys");
    for (const char* histosys : {"code0", "code2", "code4p"})
        for (const char* normsys : {"code1", "code4"})
            check_against_tape(with_codes(c.spec, histosys, normsys), c.main_data,
                               std::string(c.name) + " " + histosys + " " + normsys);
}

TEST(FusedInputGrad, Sbottom) {
    HF_REQUIRE_SHARED();
    const GradCase c = load_grad_case("sbottom_regionA_1300_205_60");
    check_against_tape(c.spec, c.main_data, c.name);
    check_against_tape(with_codes(c.spec, "code0", "code1"), c.main_data, c.name + " code0 code1");
}

// A histosys bin whose templates equal its nominal is left out of the packed likelihood, but its templates have a
// gradient; core supplies it from the element's nominal term.
TEST(FusedInputGrad, HistosysBinsLeftOutOfThePackedLikelihood) {
    GradCase c = load_grad_case("example");
    std::size_t histosys_bins = 0, flattened = 0;
    for (auto& ch : c.spec.channels)
        for (auto& s : ch.samples)
            for (auto& m : s.modifiers)
                if (m.type == ModifierType::histosys) {
                    histosys_bins += s.data.size();
                    m.hi_data[0] = m.lo_data[0] = s.data[0];
                    ++flattened;
                }
    ASSERT_GT(flattened, 0u);
    for (const char* histosys : {"code0", "code2", "code4p"}) {
        const ModelSpec spec = with_codes(c.spec, histosys, "");
        const Model model(spec, load_backend("cpu"));
        EXPECT_EQ(packed_likelihood(model).delta_par.size(), histosys_bins - flattened);
        check_against_tape(spec, c.main_data, std::string("example, flat histosys bins, ") + histosys);
    }
}

// Points in one call (white box: grad_detail::backend_twice_nll), off_kink_point with the interpolated parameters'
// offsets scaled by `scales` (7 and more: |alpha| > 1, the exponential and linear branches), each against the
// tape; the route must begin with `route_prefix`. Returns the worst difference.
double points_against_tape(const ModelSpec& spec, const Model& model, const std::vector<double>& scales,
                           const std::vector<double>& main_data, const std::string& route_prefix) {
    const auto init = model.suggested_init(), off = off_kink_point(model);
    const auto bounds = model.suggested_bounds();
    const std::size_t P = init.size();
    std::vector<double> all;
    std::vector<std::vector<double>> points;
    for (double scale : scales) {
        auto p = off;
        for (std::size_t i = 0; i < P; ++i)
            if (init[i] == 0.0)  // the interpolated parameters
                p[i] = std::clamp(scale * off[i], bounds[i].first, bounds[i].second);
        points.push_back(p);
        all.insert(all.end(), p.begin(), p.end());
    }
    const auto s = grad_detail::trace_structure(spec, model);
    std::string route;
    const auto K = static_cast<std::int64_t>(points.size());
    const auto r = grad_detail::backend_twice_nll(model, s, grad::flatten_inputs(spec), all, K, main_data, &route);
    EXPECT_EQ(route.rfind(route_prefix, 0), 0u) << route;
    const std::size_t n_in = static_cast<std::size_t>(s.n_inputs), N = main_data.size();
    double worst = 0;
    for (std::size_t k = 0; k < points.size(); ++k) {
        const auto tape = grad::twice_nll_gradient(spec, model, points[k], main_data, grad::Engine::host_tape);
        grad::LikelihoodGradient got{r.value[k],
                                     grad::Engine::backend,
                                     {r.d_inputs.begin() + k * n_in, r.d_inputs.begin() + (k + 1) * n_in},
                                     {r.d_pars.begin() + k * P, r.d_pars.begin() + (k + 1) * P},
                                     {r.d_main.begin() + k * N, r.d_main.begin() + (k + 1) * N},
                                     route};
        worst = std::max(worst, worst_difference(got, tape));
    }
    return worst;
}

// K = 4 points in one call on cpu, each against the tape.
TEST(FusedInputGrad, ManyPointsInOneCall) {
    const GradCase c = load_grad_case("example");
    for (const auto& [histosys, normsys] : {std::pair{"code4p", "code4"}, std::pair{"code0", "code1"}}) {
        const ModelSpec spec = with_codes(c.spec, histosys, normsys);
        const Model model(spec, load_backend("cpu"));
        const double worst = points_against_tape(spec, model, {1.0, 7.0, -6.0, 9.0}, c.main_data, "fused: cpu fused");
        EXPECT_LE(worst, kTol) << histosys << " " << normsys;
        measured(std::string("example ") + histosys + " " + normsys + ", 4 points fused vs tape", worst);
    }
}

// Where the likelihood does not offer the entry the Tier 1 route runs, with the fused route's answers.
TEST(FusedInputGrad, TierOneWhereNotOffered) {
    const GradCase c = load_grad_case("example");
    const ModelSpec spec = with_codes(c.spec, "code4p", "code4");
    const Model fused_model(spec, load_backend("cpu"));
    const auto pars = off_kink_point(fused_model);
    const auto fused = grad::twice_nll_gradient(spec, fused_model, pars, c.main_data);
    ASSERT_TRUE(is_fused_cpu(fused.route)) << fused.route;

    ModelOptions no_fused;
    no_fused.prefer_fused = false;
    const Model fallback_model(spec, load_backend("cpu"), no_fused);
    const auto fallback = grad::twice_nll_gradient(spec, fallback_model, pars, c.main_data);
    EXPECT_EQ(fallback.route, "tier-1 ops");
    EXPECT_LE(worst_difference(fallback, fused), kTol);
    measured("example tier-1 (cpu, core's fallback likelihood) vs fused", worst_difference(fallback, fused));
}

// A GPU plugin's kernels against the tape: 64b to rounding, 32b to float rounding (as the Tier 1 route's 32b check,
// test_backend_input_grad.cpp), K = 2 points in one call, three pairs of interpolation codes.
void check_gpu_plugin(const std::string& plugin) {
    const GradCase ex = load_grad_case("example");
    for (Precision precision : {Precision::f64, Precision::f32}) {
        LoadOptions lo;
        lo.precision = precision;
        const double tol = precision == Precision::f64 ? kTol : 1e-4;
        for (const auto& [histosys, normsys] : {std::pair{"code4p", "code4"}, std::pair{"code0", "code1"},
                                                 std::pair{"code2", "code4"}}) {
            const ModelSpec spec = with_codes(ex.spec, histosys, normsys);
            const Model model(spec, load_backend(plugin, lo));
            const std::string what = std::string("example ") + histosys + " " + normsys + " " + plugin + " " +
                                     (precision == Precision::f64 ? "64b" : "32b");
            const auto worst = points_against_tape(spec, model, {1.0, 7.0}, ex.main_data, "fused: " + plugin + " fused");
            EXPECT_LE(worst, tol) << what;
            measured(what + " fused vs tape, 2 points", worst);
        }
    }
}

// plugins/opencl/kernels/input_grad.cl (PoCL here).
TEST(FusedInputGrad, OpenCL) {
    HF_REQUIRE_PLUGIN("opencl");
    check_gpu_plugin("opencl");
}

// plugins/cuda/likelihood.cu's input_grad_kernel.
TEST(FusedInputGrad, Cuda) {
    HF_REQUIRE_PLUGIN("cuda");
    check_gpu_plugin("cuda");
}

// The same kernels compiled for a device without fp64 (HFCORE_OPENCL_DISABLE_FP64: every sum in float).
TEST(FusedInputGrad, OpenCLWithoutFp64) {
    HF_REQUIRE_PLUGIN("opencl");
    struct HideFp64 {
        HideFp64() { ::setenv("HFCORE_OPENCL_DISABLE_FP64", "1", 1); }
        ~HideFp64() { ::unsetenv("HFCORE_OPENCL_DISABLE_FP64"); }
    } hide;
    const GradCase ex = load_grad_case("example");
    LoadOptions lo;
    lo.precision = Precision::f32;
    const Model model(ex.spec, load_backend("opencl", lo));
    const double worst = points_against_tape(ex.spec, model, {1.0, 7.0}, ex.main_data, "fused: opencl fused");
    EXPECT_LE(worst, 1e-4);
    measured("example opencl 32b without fp64, fused vs tape, 2 points", worst);
}

}  // namespace
}  // namespace hf::test
