// The cuda plugin's Tier 1 ops behind PluginBackend (core validated shapes and dtypes): each launches its kernels
// (kernels.hpp) on the backend's stream; gather checks its indices by their known range, else on the device.
#include "backend.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <initializer_list>
#include <utility>
#include <vector>

#include "kernels.hpp"

namespace hf::cuda {

// The launchers take the hf enums' values as plain ints: every value of every mirrored enum is checked.
template <class E>
constexpr bool same_codes(std::initializer_list<std::pair<E, int>> pairs) {
    for (const auto& [e, code] : pairs)
        if (static_cast<int>(e) != code) return false;
    return true;
}
static_assert(same_codes<DType>({{DType::f32, kF32}, {DType::f64, kF64}, {DType::i32, kI32}, {DType::i64, kI64},
                                 {DType::boolean, kBool}}));
static_assert(same_codes<UnaryOp>({{UnaryOp::neg, kNeg}, {UnaryOp::abs, kAbs}, {UnaryOp::exp, kExp},
                                   {UnaryOp::log, kLog}, {UnaryOp::sqrt, kSqrt}, {UnaryOp::square, kSquare},
                                   {UnaryOp::sign, kSign}, {UnaryOp::floor, kFloor}, {UnaryOp::lgamma, kLgamma},
                                   {UnaryOp::erf, kErf}, {UnaryOp::erfinv, kErfinv},
                                   {UnaryOp::normal_cdf, kNormalCdf}, {UnaryOp::normal_ppf, kNormalPpf},
                                   {UnaryOp::isfinite, kIsfinite}, {UnaryOp::logical_not, kLogicalNot}}));
static_assert(same_codes<BinaryOp>({{BinaryOp::add, kAdd}, {BinaryOp::sub, kSub}, {BinaryOp::mul, kMul},
                                    {BinaryOp::div, kDiv}, {BinaryOp::pow, kPow}, {BinaryOp::minimum, kMinimum},
                                    {BinaryOp::maximum, kMaximum}, {BinaryOp::xlogy, kXlogy}, {BinaryOp::lt, kLt},
                                    {BinaryOp::le, kLe}, {BinaryOp::gt, kGt}, {BinaryOp::ge, kGe},
                                    {BinaryOp::eq, kEq}, {BinaryOp::ne, kNe},
                                    {BinaryOp::logical_and, kLogicalAnd}, {BinaryOp::logical_or, kLogicalOr}}));
static_assert(same_codes<ReduceOp>({{ReduceOp::sum, kSum}, {ReduceOp::prod, kProd}, {ReduceOp::max, kMax},
                                    {ReduceOp::min, kMin}}));
static_assert(same_codes<RandomDist>({{RandomDist::uniform, kUniform}, {RandomDist::normal, kNormal},
                                      {RandomDist::poisson, kPoisson}}));

namespace {

Bcast to_bcast(const BroadcastPlan& plan) {
    Bcast b;
    b.ndim = plan.ndim;
    b.trivial = plan.trivial ? 1 : 0;
    for (int d = 0; d < plan.ndim; ++d) {
        b.shape[d] = plan.out_shape[d];
        for (int k = 0; k < 3; ++k) b.stride[k][d] = plan.strides[k][d];
    }
    return b;
}

}  // namespace

// ---------------------------------------------------------------- elementwise

void CudaBackend::k_unary(UnaryOp op, const Tensor& x, Tensor& out) {
    activate();
    if (!launch_unary(stream_, static_cast<int>(op), code(x.dtype()), dev_ptr(x), dev_ptr(out), out.size()))
        throw ShapeError(std::string("cuda: ") + op_name(op) + " is not defined for " + dtype_name(x.dtype()));
    check_launch(op_name(op));
}

void CudaBackend::k_binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out, const BroadcastPlan& plan) {
    activate();
    if (a.dtype() != b.dtype())
        throw ShapeError(std::string("cuda: ") + op_name(op) + ": operand dtypes differ");
    if (!launch_binary(stream_, static_cast<int>(op), code(a.dtype()), dev_ptr(a), dev_ptr(b), dev_ptr(out),
                       out.size(), to_bcast(plan)))
        throw ShapeError(std::string("cuda: binary op ") + op_name(op) + " is unknown");
    check_launch(op_name(op));
}

void CudaBackend::k_where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out,
                          const BroadcastPlan& plan) {
    activate();
    launch_where(stream_, code(out.dtype()), dev_ptr(cond), dev_ptr(a), dev_ptr(b), dev_ptr(out), out.size(),
                 to_bcast(plan));
    check_launch("where");
}

// ---------------------------------------------------------------- reductions

void CudaBackend::reduce_into(ReduceOp op, DType dt, const void* x, std::int64_t outer, std::int64_t n,
                              std::int64_t inner, void* out) {
    activate();
    if (dt == DType::boolean) throw ShapeError(std::string("cuda: ") + op_name(op) + ": cast bool first");
    if (outer * inner == 0) return;
    if (n == 0) {
        launch_fill(stream_, code(dt), out, outer * inner, op == ReduceOp::prod ? 1.0 : 0.0);
        check_launch(op_name(op));
        return;
    }
    // Each pass replaces n by its number of tiles; every output is a balanced tree over its inputs.
    const void* cur = x;
    std::int64_t cur_n = n;
    Tensor held;  // the previous pass's output, alive until the next pass is enqueued
    for (;;) {
        const std::int64_t tile = reduce_tile(cur_n, inner);
        const std::int64_t tiles = (cur_n + tile - 1) / tile;
        if (tiles == 1) {
            launch_reduce_pass(stream_, static_cast<int>(op), code(dt), cur, outer, cur_n, inner, out);
            check_launch(op_name(op));
            return;
        }
        Tensor next = empty(dt, Shape{outer * tiles * inner});
        launch_reduce_pass(stream_, static_cast<int>(op), code(dt), cur, outer, cur_n, inner, dev_ptr(next));
        check_launch(op_name(op));
        held = next;
        cur = dev_ptr(held);
        cur_n = tiles;
    }
}

void CudaBackend::k_reduce(ReduceOp op, const Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner,
                           Tensor& out) {
    if (x.dtype() != out.dtype())
        throw ShapeError(std::string("cuda: ") + op_name(op) + ": result dtype must equal the input's");
    reduce_into(op, x.dtype(), dev_ptr(x), outer, n, inner, dev_ptr(out));
}

// ---------------------------------------------------------------- shape and indexing

void CudaBackend::k_transpose(const Tensor& x, const std::vector<int>& perm, Tensor& out) {
    activate();
    const int nd = x.ndim();
    std::vector<std::int64_t> in_stride(nd);
    std::int64_t s = 1;
    for (int d = nd - 1; d >= 0; --d) {
        in_stride[d] = s;
        s *= x.shape()[d];
    }
    // Output dims with their input strides; size-1 dims dropped, neighbours that stay neighbours merged.
    std::vector<std::int64_t> shape, stride;
    for (int i = 0; i < nd; ++i) {
        const std::int64_t extent = x.shape()[perm[i]], st = in_stride[perm[i]];
        if (extent == 1) continue;
        if (!shape.empty() && stride.back() == st * extent) {
            shape.back() *= extent;
            stride.back() = st;
        } else {
            shape.push_back(extent);
            stride.push_back(st);
        }
    }
    if (shape.size() > static_cast<std::size_t>(kMaxDims))
        throw ShapeError("cuda: transpose of more than 8 non-contiguous dimensions");
    Permute p;
    p.ndim = static_cast<int>(shape.size());
    for (int d = 0; d < p.ndim; ++d) {
        p.shape[d] = shape[d];
        p.in_stride[d] = stride[d];
    }
    launch_transpose(stream_, static_cast<int>(dtype_size(x.dtype())), dev_ptr(x), dev_ptr(out), p);
    check_launch("transpose");
}

void CudaBackend::k_concat(const std::vector<Tensor>& xs, std::int64_t outer, Tensor& out) {
    activate();
    const std::int64_t out_inner = out.size() / outer;
    const int es = static_cast<int>(dtype_size(out.dtype()));
    std::int64_t offset = 0;
    for (const Tensor& x : xs) {
        const std::int64_t inner = x.size() / outer;
        if (inner > 0) {
            launch_copy_rows(stream_, es, dev_ptr(x), outer, inner, dev_ptr(out), out_inner, offset);
            check_launch("concat");
        }
        offset += inner;
    }
}

void CudaBackend::k_gather(const Tensor& x, const Tensor& index, std::int64_t outer, std::int64_t n,
                           std::int64_t inner, Tensor& out) {
    activate();
    const std::int64_t m = index.size();
    const auto& ist = PluginBackend::storage_as<CudaStorage>(index);
    if (m > 0 && ist.range_known()) {
        if (ist.range_lo() < 0 || ist.range_hi() >= n)
            throw ShapeError("gather: index " + std::to_string(ist.range_lo() < 0 ? ist.range_lo() : ist.range_hi()) +
                             " out of range [0, " + std::to_string(n) + ")");
    } else if (m > 0) {
        // Indices computed on the device: count the bad ones there and read the count back (8 bytes, counted).
        Tensor bad = empty(DType::i64, Shape{1});
        launch_fill(stream_, kI64, dev_ptr(bad), 1, 0.0);
        launch_index_check(stream_, dev_ptr_as<std::int64_t>(index), m, n, dev_ptr_as<std::int64_t>(bad));
        check_launch("gather");
        std::int64_t nbad = 0;
        check(cudaMemcpyAsync(&nbad, dev_ptr(bad), sizeof nbad, cudaMemcpyDeviceToHost, stream_), "gather");
        check(cudaStreamSynchronize(stream_), "gather");
        count_download(sizeof nbad);
        if (nbad > 0)
            throw ShapeError("gather: " + std::to_string(nbad) + " of " + std::to_string(m) +
                             " indices out of range [0, " + std::to_string(n) + ")");
    }
    launch_gather(stream_, static_cast<int>(dtype_size(x.dtype())), dev_ptr(x), dev_ptr_as<std::int64_t>(index),
                  outer, n, m, inner, dev_ptr(out));
    check_launch("gather");
}

Tensor CudaBackend::k_masked_select(const Tensor& x, const Tensor& mask) {
    activate();
    const std::int64_t n = x.size();
    if (n == 0) return empty(x.dtype(), Shape{0});
    const std::int64_t blocks = select_blocks(n);
    Tensor counts = empty(DType::i64, Shape{blocks + 1});
    launch_select_count(stream_, dev_ptr_as<std::uint8_t>(mask), n, dev_ptr_as<std::int64_t>(counts));
    launch_select_scan(stream_, dev_ptr_as<std::int64_t>(counts), blocks);
    check_launch("masked_select");
    // The result's length lives on the device: one 8-byte download (counted) is unavoidable.
    std::int64_t total = 0;
    check(cudaMemcpyAsync(&total, dev_ptr_as<std::int64_t>(counts) + blocks, sizeof total, cudaMemcpyDeviceToHost,
                          stream_),
          "masked_select");
    check(cudaStreamSynchronize(stream_), "masked_select");
    count_download(sizeof total);
    Tensor out = empty(x.dtype(), Shape{total});
    if (total > 0) {
        launch_select_write(stream_, static_cast<int>(dtype_size(x.dtype())), dev_ptr(x),
                            dev_ptr_as<std::uint8_t>(mask), n, dev_ptr_as<std::int64_t>(counts), dev_ptr(out));
        check_launch("masked_select");
    }
    return out;
}

void CudaBackend::k_sort(const Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner, Tensor& out) {
    activate();
    if (x.dtype() == DType::boolean) throw ShapeError("cuda: sort: cast bool first");
    const std::int64_t P = sort_padded(n);
    Tensor work;
    if (P > kSortSharedMax) work = empty(x.dtype(), Shape{outer * inner * P});
    launch_sort(stream_, code(x.dtype()), dev_ptr(x), outer, n, inner, dev_ptr(out),
                work.defined() ? dev_ptr(work) : nullptr);
    check_launch("sort");
}

// ---------------------------------------------------------------- random numbers

void CudaBackend::k_random(RandomDist dist, const Tensor& rate, std::uint64_t seed, std::uint64_t offset,
                           Tensor& out) {
    activate();
    if (!is_floating(out.dtype())) throw ShapeError("cuda: random numbers are drawn into floating tensors only");
    const void* lam = nullptr;
    if (dist == RandomDist::poisson) {
        if (!rate.defined() || rate.size() != out.size() || rate.dtype() != out.dtype())
            throw ShapeError("cuda: random_poisson needs a rate tensor of the output's size and dtype");
        lam = dev_ptr(rate);
    }
    launch_random(stream_, static_cast<int>(dist), code(out.dtype()), lam, seed, offset, dev_ptr(out), out.size());
    check_launch("random");
}

}  // namespace hf::cuda
