// 32b backends: the same CLs as 64b within 1e-3 on the validation cases (fits in scaled variables on the
// analytic gradient converge in single precision too).
#include "infer_support.hpp"

namespace hf::test {
namespace {

class Precision32 : public ::testing::TestWithParam<std::string> {};

TEST_P(Precision32, ClsAgreesWith64b) {
    HF_REQUIRE_SHARED();
    Case c64 = load_case(GetParam(), "64b");
    Case c32 = load_case(GetParam(), "32b");
    ASSERT_EQ(c32.model->backend()->precision(), Precision::f32);
    auto r64 = infer::hypotest(c64.mu_test(), *c64.model, c64.data, case_options(c64));
    auto r32 = infer::hypotest(c32.mu_test(), *c32.model, c32.data, case_options(c32));
    EXPECT_TRUE(r32.converged);
    EXPECT_LE(rel(r32.obs, r64.obs), 1e-3) << "32b " << r32.obs << " 64b " << r64.obs;
    for (int i = 0; i < 5; ++i)
        EXPECT_LE(std::abs(r32.exp[i] - r64.exp[i]), 1e-3 * r64.exp[i] + 1e-9)
            << "exp[" << i << "] 32b " << r32.exp[i] << " 64b " << r64.exp[i];
}

INSTANTIATE_TEST_SUITE_P(Cases, Precision32, ::testing::ValuesIn(asymptotic_cases()));

}  // namespace
}  // namespace hf::test
