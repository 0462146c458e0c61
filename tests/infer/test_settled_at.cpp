// White-box test of detail::settled_at (core/infer/minimize/basin_search.cpp): when a descent from another start (a
// single fit's given start, a toy's second descent) has settled at the minimum its problem already has and may stop
// there.
#include <gtest/gtest.h>

#include "hfcore/backend.hpp"
#include "infer/minimize/basin_search.hpp"
#include "infer/minimize/problem.hpp"
#include "infer_support.hpp"

using namespace hf;
using namespace hf::test;

namespace {

// The coupled-histosys validation case's problem (every parameter free) and a minimum inside every bound.
struct AMinimum {
    Case c;
    infer::detail::Problem p;
    std::vector<double> known;
};

AMinimum a_minimum() {
    AMinimum s{load_case("2bin_2channel_coupledhistosys"), {}, {}};
    const infer::FitConfig cfg = infer::FitConfig{}.resolved(*s.c.model);
    s.p = infer::detail::make_problem(*s.c.model, Tensor(), cfg);
    s.known.assign(s.p.nfree(), 0.0);
    for (std::size_t i = 0; i < s.known.size(); ++i) s.known[i] = std::clamp(0.1, s.p.lo[i], s.p.hi[i]);
    return s;
}

}  // namespace

// Inside the bounds: within 0.3 of every component once the projected gradient is below 1, not farther or faster.
TEST(SettledAt, WithinReachOfAMinimumInsideItsBounds) {
    HF_REQUIRE_SHARED();
    const AMinimum s = a_minimum();
    ASSERT_GE(s.p.nfree(), 2u);
    auto y = s.known;
    y[0] += 0.2;
    EXPECT_TRUE(infer::detail::settled_at(s.p, y, 0.5, s.known, {}));
    EXPECT_FALSE(infer::detail::settled_at(s.p, y, 1.5, s.known, {})) << "still falling fast";
    y[0] = s.known[0] + 0.4;
    EXPECT_FALSE(infer::detail::settled_at(s.p, y, 0.5, s.known, {})) << "0.4 away";
}

// A known minimum with a component at its bound: only within 0.05 (a descent may still leave the bound for a
// lower minimum; eRJR's staterror gammas at zero).
TEST(SettledAt, NarrowReachWhereTheKnownMinimumIsAtABound) {
    HF_REQUIRE_SHARED();
    AMinimum s = a_minimum();
    s.known[1] = s.p.lo[1];
    auto y = s.known;
    y[0] += 0.2;
    EXPECT_FALSE(infer::detail::settled_at(s.p, y, 0.5, s.known, {}));
    y[0] = s.known[0] + 0.04;
    EXPECT_TRUE(infer::detail::settled_at(s.p, y, 0.5, s.known, {}));
}

// A multimodal parameter across zero from the known minimum's value is not settled there unless within 0.05.
TEST(SettledAt, MultimodalParametersStayOnTheMinimumsSide) {
    HF_REQUIRE_SHARED();
    AMinimum s = a_minimum();
    const std::vector<std::size_t> multimodal = {0};
    s.known[0] = 0.1;
    auto y = s.known;
    y[0] = -0.1;
    EXPECT_FALSE(infer::detail::settled_at(s.p, y, 0.5, s.known, multimodal)) << "crossed zero";
    EXPECT_TRUE(infer::detail::settled_at(s.p, y, 0.5, s.known, {})) << "the same point, not multimodal";
    s.known[0] = 0.02;
    y[0] = -0.02;
    EXPECT_TRUE(infer::detail::settled_at(s.p, y, 0.5, s.known, multimodal)) << "within 0.05 across zero";
}
