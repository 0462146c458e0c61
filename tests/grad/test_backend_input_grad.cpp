// The likelihood's input gradient on the backend through Tier 1 ops (core/grad/backend_input_grad.cpp) against the
// host tape (the reference, double): every plugin that runs here, 64b and 32b, on the example workspace, the
// validation cases (every interpolation code) and a sbottom model. The models are compiled without the plugins'
// fused likelihoods, so that the Tier 1 route runs on every plugin (test_fused_input_grad.cpp: the fused route).
#include <gtest/gtest.h>

#include <chrono>

#include "grad_support.hpp"
#include "hfcore/loader.hpp"
#include "plugin_support.hpp"

namespace hf::test {
namespace {

ModelOptions tier1_only() {
    ModelOptions o;
    o.prefer_fused = false;
    return o;
}

struct Config {
    std::string plugin;
    Precision precision;
};

std::string config_name(const testing::TestParamInfo<Config>& info) {
    return info.param.plugin + (info.param.precision == Precision::f64 ? "_64b" : "_32b");
}

class BackendInputGrad : public testing::TestWithParam<Config> {
protected:
    // Backend against tape at a point off the kinks; returns the worst of the four relative differences.
    double compare(const std::string& name, const std::string& histosys = "", const std::string& normsys = "") {
        GradCase c = load_grad_case(name);
        if (!histosys.empty()) c.spec.settings.set("histosys", parse_interpcode(histosys));
        if (!normsys.empty()) c.spec.settings.set("normsys", parse_interpcode(normsys));
        LoadOptions lo;
        lo.precision = GetParam().precision;
        const Model model(c.spec, load_backend(GetParam().plugin, lo), tier1_only());
        const auto pars = off_kink_point(model);
        const auto tape = grad::twice_nll_gradient(c.spec, model, pars, c.main_data, grad::Engine::host_tape);
        const auto dev = grad::twice_nll_gradient(c.spec, model, pars, c.main_data, grad::Engine::backend);
        EXPECT_EQ(tape.engine, grad::Engine::host_tape);
        EXPECT_EQ(dev.engine, grad::Engine::backend);
        EXPECT_EQ(dev.route, "tier-1 ops");
        const double tol = GetParam().precision == Precision::f64 ? 1e-12 : 1e-4;
        const double v = std::abs(dev.value - tape.value) / std::abs(tape.value);
        const double di = norm_rel(dev.d_inputs, tape.d_inputs);
        const double dp = norm_rel(dev.d_pars, tape.d_pars);
        const double dm = norm_rel(dev.d_main_data, tape.d_main_data);
        const std::string what = name + " " + histosys + normsys + " on " + model.backend()->description();
        EXPECT_LE(v, tol) << what << " value " << dev.value << " vs " << tape.value;
        EXPECT_LE(di, tol) << what << " d_inputs";
        EXPECT_LE(dp, tol) << what << " d_pars";
        EXPECT_LE(dm, tol) << what << " d_main_data";
        const double worst = std::max({v, di, dp, dm});
        measured(what + " backend vs tape (rel. to largest)", worst);
        measured(what + " d_inputs backend vs tape (rel. per component above 1e-6 of the largest)",
                 component_rel(dev.d_inputs, tape.d_inputs));
        return worst;
    }
    void SetUp() override { HF_REQUIRE_PLUGIN(GetParam().plugin); }
};

TEST_P(BackendInputGrad, ExampleWorkspace) { compare("example"); }

TEST_P(BackendInputGrad, ValidationCases) {
    HF_REQUIRE_SHARED();
    for (const char* name : {"1bin_lumi", "1bin_normsys", "1bin_shapesys", "2bin_2channel", "2bin_histosys",
                             "2bin_2channel_couplednorm", "2bin_2channel_coupledhistosys",
                             "2bin_2channel_coupledshapefactor", "shapesys_nuisparfilter"})
        compare(name);
}

TEST_P(BackendInputGrad, EveryInterpolationCode) {
    HF_REQUIRE_SHARED();
    for (const char* histosys : {"code0", "code2", "code4p"})
        for (const char* normsys : {"code1", "code4"}) {
            compare("2bin_2channel_coupledhistosys", histosys, normsys);
            compare("1bin_normsys", histosys, normsys);
        }
}

TEST_P(BackendInputGrad, Sbottom) {
    HF_REQUIRE_SHARED();
    compare("sbottom_regionA_1300_205_60");
}

// One evaluation downloads its four results (value, d/d inputs, d/d pars, d/d main data) and nothing else.
TEST_P(BackendInputGrad, DownloadsOnlyTheResults) {
    const GradCase c = load_grad_case("example");
    LoadOptions lo;
    lo.precision = GetParam().precision;
    const Model model(c.spec, load_backend(GetParam().plugin, lo), tier1_only());
    model.backend()->reset_transfers();
    (void)grad::twice_nll_gradient(c.spec, model, off_kink_point(model), c.main_data, grad::Engine::backend);
    EXPECT_EQ(model.backend()->transfers().downloads, 4u);
}

INSTANTIATE_TEST_SUITE_P(Plugins, BackendInputGrad,
                         testing::Values(Config{"cpu", Precision::f64}, Config{"cpu", Precision::f32},
                                         Config{"opencl", Precision::f64}, Config{"opencl", Precision::f32},
                                         Config{"cuda", Precision::f64}, Config{"cuda", Precision::f32}),
                         config_name);

}  // namespace
}  // namespace hf::test
