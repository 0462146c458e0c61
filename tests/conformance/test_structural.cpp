// Reductions, shape and indexing ops, casts, creation and matmul on every backend.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "conformance.hpp"

using hf::DType;
using hf::ReduceOp;
using hf::Shape;
using hf::Tensor;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

class Structural : public hf::conf::Conformance {};

// Reference reduction of x (shape s) over axis.
std::vector<double> ref_reduce(ReduceOp op, const std::vector<double>& x, const Shape& s, int axis) {
    std::int64_t outer = 1, inner = 1;
    for (int i = 0; i < axis; ++i) outer *= s[i];
    for (std::size_t i = axis + 1; i < s.size(); ++i) inner *= s[i];
    const std::int64_t n = s[axis];
    std::vector<double> out;
    for (std::int64_t a = 0; a < outer; ++a)
        for (std::int64_t i = 0; i < inner; ++i) {
            long double r = op == ReduceOp::sum ? 0 : op == ReduceOp::prod ? 1 : op == ReduceOp::max ? -kInf : kInf;
            for (std::int64_t j = 0; j < n; ++j) {
                double v = x[(a * n + j) * inner + i];
                if (std::isnan(v) && (op == ReduceOp::max || op == ReduceOp::min)) r = kNaN;
                else if (op == ReduceOp::sum) r += v;
                else if (op == ReduceOp::prod) r *= v;
                else if (!std::isnan(static_cast<double>(r))) r = op == ReduceOp::max ? std::max<long double>(r, v) : std::min<long double>(r, v);
            }
            out.push_back(static_cast<double>(r));
        }
    return out;
}

TEST_P(Structural, ReduceEveryAxisEveryOp) {
    const Shape s{2, 3, 4};
    std::vector<double> x = rounded(hf::conf::values(24, 0.5, 1.5, 11));
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::max, ReduceOp::min})
        for (int axis = -3; axis < 3; ++axis)
            for (bool keep : {false, true}) {
                const int a = axis < 0 ? axis + 3 : axis;
                Shape es = s;
                if (keep) es[a] = 1;
                else es.erase(es.begin() + a);
                auto out = b().reduce(op, up(x, s), axis, keep);
                EXPECT_EQ(out.shape(), es);
                EXPECT_TRUE(hf::conf::all_close(down(out), expect_rounded(ref_reduce(op, x, s, a), fdt()), 4 * rel()))
                    << hf::op_name(op) << " axis " << axis;
            }
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::max, ReduceOp::min}) {
        auto all = b().reduce_all(op, up(x, s));
        EXPECT_EQ(all.shape(), Shape{});
        auto e = ref_reduce(op, x, {24}, 0);
        EXPECT_TRUE(hf::conf::all_close(down(all), expect_rounded(e, fdt()), 4 * rel())) << hf::op_name(op);
    }
}

TEST_P(Structural, ReduceEmptyAndSizeOne) {
    auto empty = up({}, {2, 0, 3});
    EXPECT_EQ(down(b().reduce(ReduceOp::sum, empty, 1)), std::vector<double>(6, 0.0));
    EXPECT_EQ(down(b().reduce(ReduceOp::prod, empty, 1)), std::vector<double>(6, 1.0));
    EXPECT_EQ(b().reduce(ReduceOp::sum, empty, 0).shape(), (Shape{0, 3}));
    EXPECT_EQ(down(b().reduce_all(ReduceOp::sum, empty)), std::vector<double>{0.0});
    EXPECT_THROW(b().reduce(ReduceOp::max, empty, 1), hf::ShapeError);
    EXPECT_THROW(b().reduce_all(ReduceOp::min, empty), hf::ShapeError);
    EXPECT_THROW(b().reduce(ReduceOp::sum, empty, 3), hf::ShapeError);
    auto one = up({2.5}, {1, 1});
    EXPECT_EQ(down(b().reduce(ReduceOp::max, one, 0)), std::vector<double>{2.5});
    EXPECT_EQ(down(b().reduce_all(ReduceOp::prod, up({-3.0}, {}))), std::vector<double>{-3.0});
}

TEST_P(Structural, ReduceNanAndInf) {
    auto x = up({1.0, kNaN, 3.0, 1.0, kInf, 2.0}, {2, 3});
    auto mx = down(b().reduce(ReduceOp::max, x, 1));
    EXPECT_TRUE(std::isnan(mx[0]));
    EXPECT_EQ(mx[1], kInf);
    auto mn = down(b().reduce(ReduceOp::min, x, 1));
    EXPECT_TRUE(std::isnan(mn[0]));
    EXPECT_EQ(mn[1], 1.0);
    auto sm = down(b().reduce(ReduceOp::sum, x, 1));
    EXPECT_TRUE(std::isnan(sm[0]));
    EXPECT_EQ(sm[1], kInf);
}

TEST_P(Structural, SumsAreAccurate) {
    // 2^20 copies of 0.1: a naive float accumulation is off by about 1e-2 relative; pairwise or compensated
    // summation stays near the rounding of the inputs.
    const std::int64_t n = 1 << 20;
    const double v = hf::conf::round_to(0.1, fdt());
    auto s = down(b().reduce_all(ReduceOp::sum, b().full({n}, 0.1)))[0];
    EXPECT_NEAR(s / (v * static_cast<double>(n)), 1.0, f32() ? 1e-6 : 1e-13);
    // Along an outer axis too (strided accumulation).
    auto cols = down(b().reduce(ReduceOp::sum, b().full({n / 4, 4}, 0.1), 0));
    for (double c : cols) EXPECT_NEAR(c / (v * static_cast<double>(n / 4)), 1.0, f32() ? 1e-6 : 1e-13);
    // Mixed magnitudes.
    std::vector<double> mixed;
    for (int i = 0; i < 1000; ++i) mixed.push_back(i % 2 ? 1e4 : 1e-3);
    mixed = rounded(mixed);
    long double e = 0;
    for (double m : mixed) e += m;
    EXPECT_NEAR(down(b().reduce_all(ReduceOp::sum, up(mixed, {1000})))[0] / static_cast<double>(e), 1.0,
                f32() ? 1e-6 : 1e-14);
}

TEST_P(Structural, IntegerReductionsAreExact) {
    std::vector<double> x = {1, 2, 3, 4, 5, 6};
    for (DType t : {DType::i32, DType::i64}) {
        auto tx = up_as(x, {2, 3}, t);
        auto s = b().reduce(ReduceOp::sum, tx, 1);
        EXPECT_EQ(s.dtype(), t);
        EXPECT_EQ(down(s), (std::vector<double>{6, 15}));
        EXPECT_EQ(down(b().reduce(ReduceOp::prod, tx, 0)), (std::vector<double>{4, 10, 18}));
        EXPECT_EQ(down(b().reduce(ReduceOp::max, tx, 0)), (std::vector<double>{4, 5, 6}));
        EXPECT_EQ(down(b().reduce_all(ReduceOp::min, tx)), (std::vector<double>{1}));
    }
    EXPECT_THROW(b().reduce_all(ReduceOp::sum, up_as({1, 0}, {2}, DType::boolean)), hf::ShapeError);
}

// Reference transpose of a row-major tensor.
std::vector<double> ref_transpose(const std::vector<double>& x, const Shape& s, const std::vector<int>& perm) {
    const std::size_t nd = s.size();
    Shape os(nd);
    for (std::size_t i = 0; i < nd; ++i) os[i] = s[perm[i]];
    std::vector<std::int64_t> xs(nd, 1);
    for (std::size_t d = nd; d-- > 1;) xs[d - 1] = xs[d] * s[d];
    std::vector<double> out;
    const std::int64_t n = hf::numel(os);
    std::vector<std::int64_t> idx(nd);
    for (std::int64_t k = 0; k < n; ++k) {
        std::int64_t r = k, off = 0;
        for (std::size_t d = nd; d-- > 0;) {
            idx[d] = r % os[d];
            r /= os[d];
        }
        for (std::size_t d = 0; d < nd; ++d) off += idx[d] * xs[perm[d]];
        out.push_back(x[off]);
    }
    return out;
}

TEST_P(Structural, TransposeEveryPermutation) {
    for (Shape s : {Shape{2, 3, 4}, Shape{1, 5, 1}, Shape{3, 0, 2}}) {
        std::vector<double> x(static_cast<std::size_t>(hf::numel(s)));
        std::iota(x.begin(), x.end(), 0.0);
        std::vector<int> perm = {0, 1, 2};
        do {
            for (DType t : {fdt(), DType::i64, DType::i32}) {
                auto out = b().transpose(up_as(x, s, t), perm);
                Shape es{s[perm[0]], s[perm[1]], s[perm[2]]};
                EXPECT_EQ(out.shape(), es);
                EXPECT_EQ(out.dtype(), t);
                EXPECT_EQ(down(out), ref_transpose(x, s, perm)) << hf::shape_str(s);
            }
        } while (std::next_permutation(perm.begin(), perm.end()));
    }
    std::vector<double> big(64 * 48);
    std::iota(big.begin(), big.end(), 0.0);
    EXPECT_EQ(down(b().transpose(up(big, {64, 48}), {1, 0})), ref_transpose(big, {64, 48}, {1, 0}));
    EXPECT_EQ(down(b().transpose(up({7.0}, {}), {})), std::vector<double>{7.0});
    EXPECT_THROW(b().transpose(up(big, {64, 48}), {0, 0}), hf::ShapeError);
    auto bools = b().transpose(up_as({1, 0, 0, 1, 1, 0}, {2, 3}, DType::boolean), {1, 0});
    EXPECT_EQ(down(bools), (std::vector<double>{1, 1, 0, 1, 0, 0}));
}

TEST_P(Structural, ConcatAndStack) {
    auto a = up({1, 2, 3, 4, 5, 6}, {2, 3});
    auto c = up({7, 8}, {2, 1});
    auto e = up({}, {2, 0});
    auto cat1 = b().concat({a, c, e}, 1);
    EXPECT_EQ(cat1.shape(), (Shape{2, 4}));
    EXPECT_EQ(down(cat1), (std::vector<double>{1, 2, 3, 7, 4, 5, 6, 8}));
    auto cat0 = b().concat({a, up({9, 10, 11}, {1, 3})}, -2);
    EXPECT_EQ(cat0.shape(), (Shape{3, 3}));
    EXPECT_EQ(down(cat0), (std::vector<double>{1, 2, 3, 4, 5, 6, 9, 10, 11}));
    EXPECT_THROW(b().concat({a, c}, 0), hf::ShapeError);
    EXPECT_THROW(b().concat({a, up_as({1, 2, 3}, {1, 3}, DType::i64)}, 0), hf::ShapeError);

    auto s0 = b().stack({up({1, 2}, {2}), up({3, 4}, {2})}, 0);
    EXPECT_EQ(s0.shape(), (Shape{2, 2}));
    EXPECT_EQ(down(s0), (std::vector<double>{1, 2, 3, 4}));
    auto s1 = b().stack({up({1, 2}, {2}), up({3, 4}, {2}), up({5, 6}, {2})}, -1);
    EXPECT_EQ(s1.shape(), (Shape{2, 3}));
    EXPECT_EQ(down(s1), (std::vector<double>{1, 3, 5, 2, 4, 6}));
    auto scalars = b().stack({up({1}, {}), up({2}, {}), up({3}, {})}, 0);
    EXPECT_EQ(scalars.shape(), (Shape{3}));
    EXPECT_EQ(down(scalars), (std::vector<double>{1, 2, 3}));
    auto ints = b().stack({up_as({1, 2}, {2}, DType::i32), up_as({3, 4}, {2}, DType::i32)}, 1);
    EXPECT_EQ(ints.dtype(), DType::i32);
    EXPECT_EQ(down(ints), (std::vector<double>{1, 3, 2, 4}));
    EXPECT_THROW(b().stack({up({1, 2}, {2}), up({3}, {1})}, 0), hf::ShapeError);
}

TEST_P(Structural, GatherAlongAxesAndOutOfRange) {
    std::vector<double> x(24);
    std::iota(x.begin(), x.end(), 0.0);
    auto tx = up(x, {2, 3, 4});
    auto g1 = b().gather(tx, b().from_host_index({2, 0, 2}), 1);
    EXPECT_EQ(g1.shape(), (Shape{2, 3, 4}));
    std::vector<double> e1;
    for (int a = 0; a < 2; ++a)
        for (int j : {2, 0, 2})
            for (int i = 0; i < 4; ++i) e1.push_back(x[(a * 3 + j) * 4 + i]);
    EXPECT_EQ(down(g1), e1);
    auto g2 = b().gather(tx, b().from_host_index({3}), -1);
    EXPECT_EQ(g2.shape(), (Shape{2, 3, 1}));
    EXPECT_EQ(down(g2), (std::vector<double>{3, 7, 11, 15, 19, 23}));
    auto g0 = b().gather(up_as({5, 6, 7}, {3}, DType::i64), b().from_host_index({2, 1, 0, 0}), 0);
    EXPECT_EQ(down(g0), (std::vector<double>{7, 6, 5, 5}));
    auto ge = b().gather(tx, b().from_host_index({}), 0);
    EXPECT_EQ(ge.shape(), (Shape{0, 3, 4}));
    EXPECT_THROW(b().gather(tx, b().from_host_index({3}), 1), hf::ShapeError);
    EXPECT_THROW(b().gather(tx, b().from_host_index({-1}), 0), hf::ShapeError);
    EXPECT_THROW(b().gather(tx, b().from_host_index({0, 1, 100}), 2), hf::ShapeError);
    EXPECT_THROW(b().gather(tx, up({0.0}, {1}), 0), hf::ShapeError);
}

TEST_P(Structural, MaskedSelect) {
    auto x = up({1, 2, 3, 4, 5, 6}, {2, 3});
    auto m = up_as({1, 0, 1, 0, 0, 1}, {2, 3}, DType::boolean);
    auto s = b().masked_select(x, m);
    EXPECT_EQ(s.shape(), Shape{3});
    EXPECT_EQ(down(s), (std::vector<double>{1, 3, 6}));
    auto none = b().masked_select(x, up_as(std::vector<double>(6, 0), {2, 3}, DType::boolean));
    EXPECT_EQ(none.shape(), Shape{0});
    auto si = b().masked_select(up_as({4, 5}, {2}, DType::i64), up_as({0, 1}, {2}, DType::boolean));
    EXPECT_EQ(si.dtype(), DType::i64);
    EXPECT_EQ(down(si), std::vector<double>{5});
    EXPECT_THROW(b().masked_select(x, up_as({1, 0}, {2}, DType::boolean)), hf::ShapeError);
}

TEST_P(Structural, SortAlongAxesNanLast) {
    auto x = up({3, 1, 2, kNaN, -1, 5}, {2, 3});
    auto s1 = down(b().sort(x, -1));
    EXPECT_EQ((std::vector<double>(s1.begin(), s1.begin() + 3)), (std::vector<double>{1, 2, 3}));
    EXPECT_EQ(s1[3], -1);
    EXPECT_EQ(s1[4], 5);
    EXPECT_TRUE(std::isnan(s1[5]));
    auto s0 = down(b().sort(up({3, 1, 2, 0, 5, -2}, {2, 3}), 0));
    EXPECT_EQ(s0, (std::vector<double>{0, 1, -2, 3, 5, 2}));
    std::vector<double> r = rounded(hf::conf::values(1000, -1e3, 1e3, 5));
    auto sr = down(b().sort(up(r, {1000})));
    std::sort(r.begin(), r.end());
    EXPECT_EQ(sr, r);
    EXPECT_EQ(down(b().sort(up_as({3, -4, 1}, {3}, DType::i32))), (std::vector<double>{-4, 1, 3}));
    EXPECT_EQ(b().sort(up({}, {0})).shape(), Shape{0});
}

TEST_P(Structural, CastBetweenAllDtypes) {
    auto x = up({-1.7, -0.0, 0.5, 2.9, 100.0}, {5});
    EXPECT_EQ(down(b().cast(x, DType::i32)), (std::vector<double>{-1, 0, 0, 2, 100}));
    EXPECT_EQ(down(b().cast(x, DType::i64)), (std::vector<double>{-1, 0, 0, 2, 100}));
    EXPECT_EQ(down(b().cast(x, DType::boolean)), (std::vector<double>{1, 0, 1, 1, 1}));
    auto other = b().cast(x, f32() ? DType::f64 : DType::f32);
    EXPECT_EQ(other.dtype(), f32() ? DType::f64 : DType::f32);
    EXPECT_EQ(down(other), expect_rounded(down(x), DType::f32));
    auto bools = up_as({1, 0, 1}, {3}, DType::boolean);
    EXPECT_EQ(down(b().cast(bools, fdt())), (std::vector<double>{1, 0, 1}));
    EXPECT_EQ(down(b().cast(bools, DType::i64)), (std::vector<double>{1, 0, 1}));
    auto i = up_as({-3, 0, 7}, {3}, DType::i64);
    EXPECT_EQ(down(b().cast(i, DType::i32)), (std::vector<double>{-3, 0, 7}));
    EXPECT_EQ(down(b().cast(i, fdt())), (std::vector<double>{-3, 0, 7}));
    EXPECT_EQ(down(b().cast(i, DType::boolean)), (std::vector<double>{1, 0, 1}));
    EXPECT_EQ(b().cast(up({}, {0, 2}), DType::i32).shape(), (Shape{0, 2}));
    auto nan_to_bool = down(b().cast(up({kNaN}, {1}), DType::boolean));
    EXPECT_EQ(nan_to_bool, std::vector<double>{1});  // numpy: NaN is truthy
}

TEST_P(Structural, ArangeAndFull) {
    for (DType t : {DType::i64, DType::i32, DType::f64, DType::f32}) {
        auto a = b().arange(5, t);
        EXPECT_EQ(a.dtype(), t);
        EXPECT_EQ(down(a), (std::vector<double>{0, 1, 2, 3, 4}));
        EXPECT_EQ(b().arange(0, t).shape(), Shape{0});
    }
    EXPECT_EQ(down(b().full({2, 2}, 1.5)), std::vector<double>(4, 1.5));
    EXPECT_EQ(b().full({2, 2}, 1.5).dtype(), fdt());
    EXPECT_EQ(down(b().full({3}, 7, DType::i32)), std::vector<double>(3, 7));
    EXPECT_EQ(down(b().full({3}, 1, DType::boolean)), std::vector<double>(3, 1));
    EXPECT_EQ(down(b().full({}, -2.0)), std::vector<double>{-2.0});
    EXPECT_EQ(b().full({0, 4}, 1.0).size(), 0);
    auto inf = down(b().full({1}, kInf));
    EXPECT_EQ(inf[0], kInf);
}

// Reference batched matmul with broadcast leading dims (numpy semantics, 1-D operands promoted and squeezed).
hf::conf::HostTensor ref_matmul(hf::conf::HostTensor a, hf::conf::HostTensor c) {
    const bool sq_m = a.shape.size() == 1, sq_n = c.shape.size() == 1;
    if (sq_m) a.shape.insert(a.shape.begin(), 1);
    if (sq_n) c.shape.push_back(1);
    const std::int64_t m = a.shape[a.shape.size() - 2], k = a.shape.back(), n = c.shape.back();
    Shape ab(a.shape.begin(), a.shape.end() - 2), cb(c.shape.begin(), c.shape.end() - 2);
    Shape batch = hf::conf::broadcast_shape({ab, cb});
    const std::int64_t nb = hf::numel(batch);
    hf::conf::HostTensor out;
    std::vector<std::int64_t> idx(batch.size());
    for (std::int64_t q = 0; q < nb; ++q) {
        std::int64_t r = q;
        for (std::size_t d = batch.size(); d-- > 0;) {
            idx[d] = r % batch[d];
            r /= batch[d];
        }
        const std::int64_t ao = hf::conf::broadcast_index(ab, batch, idx) * m * k;
        const std::int64_t co = hf::conf::broadcast_index(cb, batch, idx) * k * n;
        for (std::int64_t i = 0; i < m; ++i)
            for (std::int64_t j = 0; j < n; ++j) {
                long double s = 0;
                for (std::int64_t p = 0; p < k; ++p) s += a.v[ao + i * k + p] * c.v[co + p * n + j];
                out.v.push_back(static_cast<double>(s));
            }
    }
    out.shape = batch;
    if (!sq_m) out.shape.push_back(m);
    if (!sq_n) out.shape.push_back(n);
    return out;
}

TEST_P(Structural, MatmulBatchedAndBroadcast) {
    const std::vector<std::pair<Shape, Shape>> cases = {
        {{3, 4}, {4, 5}},       {{4}, {4, 5}},       {{3, 4}, {4}},          {{4}, {4}},
        {{2, 3, 4}, {2, 4, 5}}, {{2, 3, 4}, {4, 5}}, {{4}, {2, 4, 5}},       {{3, 4}, {2, 4, 5}},
        {{2, 1, 3, 4}, {3, 4, 2}}, {{1, 1}, {1, 1}}, {{3, 0}, {0, 2}},       {{0, 3}, {3, 2}},
        {{2, 3, 2}, {1, 2, 3}}, {{64, 33}, {33, 17}},
    };
    int seed = 100;
    for (const auto& [sa, sc] : cases) {
        hf::conf::HostTensor a{rounded(hf::conf::values(hf::numel(sa), -1, 1, ++seed)), sa};
        hf::conf::HostTensor c{rounded(hf::conf::values(hf::numel(sc), -1, 1, ++seed)), sc};
        auto ref = ref_matmul(a, c);
        auto out = b().matmul(up(a), up(c));
        EXPECT_EQ(out.shape(), ref.shape) << hf::shape_str(sa) << " x " << hf::shape_str(sc);
        // Dot products of up to 33 terms in [-1, 1]: absolute error bound of k ulp.
        EXPECT_TRUE(hf::conf::all_close(down(out), ref.v, 0, (f32() ? 4e-6 : 1e-14) * 33))
            << hf::shape_str(sa) << " x " << hf::shape_str(sc);
    }
    EXPECT_THROW(b().matmul(up({1, 2, 3}, {3}), up({1, 2}, {2})), hf::ShapeError);
    EXPECT_THROW(b().matmul(up({1}, {}), up({1}, {1})), hf::ShapeError);
}

HF_CONFORMANCE_SUITE(Structural);

}  // namespace
