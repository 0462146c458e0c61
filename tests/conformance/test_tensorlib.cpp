// pyhf's tensorlib vocabulary is expressible on every backend: one test per operation, composed from Backend
// methods through hf::tl (include/hfcore/tensorlib.hpp). Expected numbers are numpy / pyhf 0.7.6 (numpy
// backend) outputs for the same inputs.
#include <cmath>
#include <limits>

#include "conformance.hpp"
#include "hfcore/tensorlib.hpp"

namespace tl = hf::tl;
using hf::BinaryOp;
using hf::DType;
using hf::Shape;
using hf::Tensor;

namespace {

class Tensorlib : public hf::conf::Conformance {
protected:
    Tensor T(const std::vector<double>& v, const Shape& s) { return tl::astensor(b(), v, s); }
    Tensor T(const std::vector<double>& v) { return tl::astensor(b(), v); }
    ::testing::AssertionResult eq(const Tensor& t, const std::vector<double>& e, const Shape& s, double tol = -1) {
        if (t.shape() != s) return ::testing::AssertionFailure() << "shape " << hf::shape_str(t.shape()) << ", expected " << hf::shape_str(s);
        return hf::conf::all_close(down(t), e, tol < 0 ? 4 * rel() : tol, tol < 0 ? 4 * rel() : tol);
    }
};

TEST_P(Tensorlib, Astensor) {
    auto t = T({1, 2, 3, 4, 5, 6}, {2, 3});
    EXPECT_EQ(t.dtype(), fdt());
    EXPECT_TRUE(eq(t, {1, 2, 3, 4, 5, 6}, {2, 3}));
    EXPECT_TRUE(eq(T({7}), {7}, {1}));
    EXPECT_TRUE(eq(T({}, {0}), {}, {0}));
}

TEST_P(Tensorlib, OnesAndZeros) {
    EXPECT_TRUE(eq(tl::ones(b(), {2, 2}), {1, 1, 1, 1}, {2, 2}));
    EXPECT_TRUE(eq(tl::zeros(b(), {3}), {0, 0, 0}, {3}));
    EXPECT_TRUE(eq(tl::ones(b(), {}), {1}, {}));
}

TEST_P(Tensorlib, SumAndProduct) {
    auto x = T({1, 2, 3, 4}, {2, 2});
    EXPECT_TRUE(eq(tl::sum(x), {10}, {}));
    EXPECT_TRUE(eq(tl::sum(x, 0), {4, 6}, {2}));
    EXPECT_TRUE(eq(tl::sum(x, -1), {3, 7}, {2}));
    EXPECT_TRUE(eq(tl::product(x, 0), {3, 8}, {2}));
}

TEST_P(Tensorlib, AbsPowerSqrtDivideLogExp) {
    auto x = T({-2, 0.5, 3}, {3});
    EXPECT_TRUE(eq(tl::abs(x), {2, 0.5, 3}, {3}));
    EXPECT_TRUE(eq(tl::power(T({2, 9}), T({3, 0.5})), {8, 3}, {2}));
    EXPECT_TRUE(eq(tl::sqrt(T({4, 2})), {2, std::sqrt(2.0)}, {2}));
    EXPECT_TRUE(eq(tl::divide(T({1, 3}), T({4, -2})), {0.25, -1.5}, {2}));
    EXPECT_TRUE(eq(tl::log(T({1, std::exp(2.0)})), {0, 2}, {2}));
    EXPECT_TRUE(eq(tl::exp(T({0, 1})), {1, std::exp(1.0)}, {2}));
    // Broadcast divide by a scalar, as pyhf does with normalisations.
    EXPECT_TRUE(eq(tl::divide(T({2, 4, 6}, {3}), T({2}, {})), {1, 2, 3}, {3}));
}

TEST_P(Tensorlib, Percentile) {
    // numpy.percentile([[1,2,3,4],[5,6,7,9]], 30, axis=-1) -> [1.9, 5.9]
    auto x = T({1, 2, 3, 4, 5, 6, 7, 9}, {2, 4});
    EXPECT_TRUE(eq(tl::percentile(x, 30), {1.9, 5.9}, {2}));
    EXPECT_TRUE(eq(tl::percentile(T({4, 1, 3, 2}), 50), {2.5}, {}));
    EXPECT_TRUE(eq(tl::percentile(T({4, 1, 3, 2}), 100), {4}, {}));
    EXPECT_TRUE(eq(tl::percentile(T({4, 1, 3, 2}), 0), {1}, {}));
}

TEST_P(Tensorlib, StackConcatenateTile) {
    auto a = T({1, 2}), c = T({3, 4});
    EXPECT_TRUE(eq(tl::stack({a, c}), {1, 2, 3, 4}, {2, 2}));
    EXPECT_TRUE(eq(tl::stack({a, c}, 1), {1, 3, 2, 4}, {2, 2}));
    EXPECT_TRUE(eq(tl::concatenate({a, c, a}), {1, 2, 3, 4, 1, 2}, {6}));
    // pyhf tile(x, (2, 1)) of [[1,2],[3,4]] -> [[1,2],[3,4],[1,2],[3,4]]
    EXPECT_TRUE(eq(tl::tile(T({1, 2, 3, 4}, {2, 2}), 2), {1, 2, 3, 4, 1, 2, 3, 4}, {4, 2}));
}

TEST_P(Tensorlib, Where) {
    auto x = T({-1, 2, -3, 4});
    auto pos = tl::cmp(BinaryOp::gt, x, 0.0);
    EXPECT_EQ(pos.dtype(), DType::boolean);
    EXPECT_TRUE(eq(tl::where(pos, x, tl::zeros(b(), {})), {0, 2, 0, 4}, {4}));
}

TEST_P(Tensorlib, ReshapeRavelTranspose) {
    auto x = T({1, 2, 3, 4, 5, 6}, {2, 3});
    EXPECT_TRUE(eq(tl::reshape(x, {3, 2}), {1, 2, 3, 4, 5, 6}, {3, 2}));
    EXPECT_TRUE(eq(tl::reshape(x, {-1}), {1, 2, 3, 4, 5, 6}, {6}));
    EXPECT_TRUE(eq(tl::ravel(tl::transpose(x)), {1, 4, 2, 5, 3, 6}, {6}));
    EXPECT_TRUE(eq(tl::transpose(x), {1, 4, 2, 5, 3, 6}, {3, 2}));
    EXPECT_THROW(tl::reshape(x, {4}), hf::ShapeError);
}

TEST_P(Tensorlib, EinsumContractionsViaMatmul) {
    // einsum('ij,jk->ik') and einsum('i,ij->j') (pyhf's sum over modifiers and samples)
    auto a = T({1, 2, 3, 4}, {2, 2}), c = T({5, 6, 7, 8}, {2, 2});
    EXPECT_TRUE(eq(tl::matmul(a, c), {19, 22, 43, 50}, {2, 2}));
    EXPECT_TRUE(eq(tl::matmul(T({1, 2}), T({5, 6, 1, 7, 8, 2}, {2, 3})), {19, 22, 5}, {3}));
    // einsum('kij,kj->ki'): batched matrix-vector as a batched matmul with a trailing unit dim.
    auto m = T({1, 0, 0, 1, 2, 0, 0, 2}, {2, 2, 2}), v = T({3, 4, 5, 6}, {2, 2, 1});
    EXPECT_TRUE(eq(tl::matmul(m, v).reshape({2, 2}), {3, 4, 10, 12}, {2, 2}));
}

TEST_P(Tensorlib, GatherAndBooleanMask) {
    auto x = T({10, 20, 30, 40});
    EXPECT_TRUE(eq(tl::gather(x, b().from_host_index({3, 0, 0})), {40, 10, 10}, {3}));
    auto mask = tl::cmp(BinaryOp::ge, x, 25.0);
    EXPECT_TRUE(eq(tl::boolean_mask(x, mask), {30, 40}, {2}));
}

TEST_P(Tensorlib, Clip) {
    EXPECT_TRUE(eq(tl::clip(T({-2, 0.5, 3}), -1, 1), {-1, 0.5, 1}, {3}));
}

TEST_P(Tensorlib, ErfErfinvNormalCdf) {
    EXPECT_TRUE(eq(tl::erf(T({-0.5, 0, 0.9})), {-0.5204998778130465, 0, 0.7969082124228322}, {3}));
    EXPECT_TRUE(eq(tl::erfinv(T({-0.5, 0, 0.9})), {-0.4769362762044699, 0, 1.1630871536766743}, {3}));
    EXPECT_TRUE(eq(tl::normal_cdf(T({-1, 0, 2.5})), {0.15865525393145707, 0.5, 0.9937903346742238}, {3}));
}

TEST_P(Tensorlib, PoissonAndNormalLogpdf) {
    // pyhf.tensorlib.poisson_logpdf / normal_logpdf (numpy backend)
    auto n = T({0, 1, 5, 10.5, 100}), lam = T({1, 2, 5.5, 10, 90});
    EXPECT_TRUE(eq(tl::poisson_logpdf(n, lam),
                   {-1.0, -1.3068528194400546, -1.7637512815899195, -2.11485700012976, -3.7584085225369677}, {5}));
    EXPECT_TRUE(eq(tl::normal_logpdf(T({0, 1, -2}), T({0.5, 1, 1}), T({1, 2, 0.5})),
                   {-1.0439385332046727, -1.6120857137646178, -18.225791352644723}, {3}));
}

TEST_P(Tensorlib, Outer) {
    EXPECT_TRUE(eq(tl::outer(T({1, 2}), T({3, 4, 5})), {3, 4, 5, 6, 8, 10}, {2, 3}));
}

TEST_P(Tensorlib, Isfinite) {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    auto f = tl::isfinite(T({1, inf, nan, -inf}));
    EXPECT_EQ(f.dtype(), DType::boolean);
    EXPECT_EQ(down(f), (std::vector<double>{1, 0, 0, 0}));
}

HF_CONFORMANCE_SUITE(Tensorlib);

}  // namespace
