// d twice_nll / d inputs at a point against central differences of hfcore's own likelihood with the inputs
// perturbed and the model compiled again.
#include <gtest/gtest.h>

#include "grad_support.hpp"
#include "hfcore/errors.hpp"

namespace hf::test {
namespace {

// Measured: 3e-10 (example), 5e-8 (sbottom), below 1e-10 on the small validation cases.
constexpr double kRel = 1e-6;

void check_against_differences(const std::string& name, std::size_t max_checked) {
    const GradCase c = load_grad_case(name);
    const Model model(c.spec);
    const auto pars = off_kink_point(model);
    const auto g = grad::twice_nll_gradient(c.spec, model, pars, c.main_data);

    // The traced likelihood is the model's.
    const auto data = with_model_aux(model, c.main_data);
    EXPECT_NEAR(g.value, -2.0 * model.logpdf(pars, data), 1e-10 * std::abs(g.value));

    const auto y = grad::flatten_inputs(c.spec);
    ASSERT_EQ(g.d_inputs.size(), y.size());
    double scale = 0;
    for (double v : g.d_inputs) scale = std::max(scale, std::abs(v));
    ASSERT_GT(scale, 0.0);
    const auto layout = grad::input_layout(c.spec);
    double worst = 0;
    for (std::size_t i : spread_indices(y.size(), max_checked)) {
        if (at_discontinuity(layout, y, i)) {
            EXPECT_EQ(g.d_inputs[i], 0.0);
            continue;
        }
        const double fd = central_difference(
            [&](const std::vector<double>& z) { return refit_free_twice_nll(c.spec, z, pars, c.main_data); }, y, i,
            1e-3);
        // Relative to the component, floored at 1e-3 of the largest (an exact zero has no relative error).
        const double err = std::abs(fd - g.d_inputs[i]) / std::max(std::abs(g.d_inputs[i]), 1e-3 * scale);
        worst = std::max(worst, err);
        EXPECT_LE(err, kRel) << name << " input " << i << ": " << g.d_inputs[i] << " vs " << fd;
    }
    measured(name + " d twice_nll / d inputs (rel)", worst);
}

TEST(LikelihoodGrad, ExampleWorkspace) { check_against_differences("example", 1000); }

TEST(LikelihoodGrad, ValidationShapesys) {
    HF_REQUIRE_SHARED();
    check_against_differences("shapesys_nuisparfilter", 1000);
}

TEST(LikelihoodGrad, ValidationCoupledHistosys) {
    HF_REQUIRE_SHARED();
    check_against_differences("2bin_2channel_coupledhistosys", 1000);
}

TEST(LikelihoodGrad, Sbottom) {
    HF_REQUIRE_SHARED();
    check_against_differences("sbottom_regionA_1300_205_60", 150);
}

TEST(LikelihoodGrad, LogpdfIsMinusHalf) {
    const GradCase c = load_grad_case("example");
    const Model model(c.spec);
    const auto pars = off_kink_point(model);
    const auto a = grad::twice_nll_gradient(c.spec, model, pars, c.main_data);
    const auto b = grad::logpdf_gradient(c.spec, model, pars, c.main_data);
    EXPECT_DOUBLE_EQ(b.value, -0.5 * a.value);
    for (std::size_t i = 0; i < a.d_inputs.size(); ++i) EXPECT_DOUBLE_EQ(b.d_inputs[i], -0.5 * a.d_inputs[i]);
}

TEST(LikelihoodGrad, LayoutNamesEveryBlock) {
    const GradCase c = load_grad_case("example");
    const auto layout = grad::input_layout(c.spec);
    std::int64_t total = 0;
    for (const auto& b : layout) {
        EXPECT_EQ(b.offset, total);
        total += b.size;
    }
    EXPECT_EQ(total, static_cast<std::int64_t>(grad::flatten_inputs(c.spec).size()));
    EXPECT_EQ(layout.front().field, "data");
    const auto y = grad::flatten_inputs(c.spec);
    auto z = y;
    z[0] += 1.0;
    EXPECT_EQ(grad::flatten_inputs(grad::with_inputs(c.spec, z)), z);
    EXPECT_THROW(grad::with_inputs(c.spec, std::vector<double>(3)), InputError);
}

TEST(LikelihoodGrad, WrongSizesAreInputErrors) {
    const GradCase c = load_grad_case("example");
    const Model model(c.spec);
    EXPECT_THROW(grad::twice_nll_gradient(c.spec, model, {1.0}, c.main_data), InputError);
    EXPECT_THROW(grad::twice_nll_gradient(c.spec, model, model.suggested_init(), {1.0}), InputError);
}

}  // namespace
}  // namespace hf::test
