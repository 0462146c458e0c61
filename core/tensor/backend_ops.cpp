// The checked ops of Backend: operands on this backend, dtypes, axes and broadcasting validated and the result
// shape computed here, then the plugin's kernel (PluginBackend) does the arithmetic into the allocated result.
#include "hfcore/backend.hpp"

#include <algorithm>

#include "broadcast.hpp"
#include "hfcore/plugin/backend.hpp"

namespace hf {

namespace {

int normalize_axis(int axis, int ndim, const char* op) {
    int a = axis < 0 ? axis + ndim : axis;
    if (a < 0 || a >= ndim)
        throw ShapeError(std::string(op) + ": axis " + std::to_string(axis) + " out of range for " +
                         std::to_string(ndim) + "-d tensor");
    return a;
}

std::int64_t prod(const Shape& s, std::size_t begin, std::size_t end) {
    std::int64_t p = 1;
    for (std::size_t i = begin; i < end; ++i) p *= s[i];
    return p;
}

void require_same_dtype(const Tensor& a, const Tensor& b, const char* op) {
    if (a.dtype() != b.dtype())
        throw ShapeError(std::string(op) + ": dtypes differ (" + dtype_name(a.dtype()) + " and " +
                         dtype_name(b.dtype()) + "); cast one explicitly");
}

void require_float(const Tensor& x, const char* op) {
    if (!is_floating(x.dtype()))
        throw ShapeError(std::string(op) + ": needs a floating-point tensor, got " + dtype_name(x.dtype()));
}

bool is_comparison(BinaryOp op) {
    return op == BinaryOp::lt || op == BinaryOp::le || op == BinaryOp::gt || op == BinaryOp::ge ||
           op == BinaryOp::eq || op == BinaryOp::ne;
}

}  // namespace

Tensor Backend::unary(UnaryOp op, const Tensor& x) {
    check_owner(x, op_name(op));
    DType out_dtype = x.dtype();
    switch (op) {
        case UnaryOp::neg:
        case UnaryOp::abs:
        case UnaryOp::square:
        case UnaryOp::sign:
            if (x.dtype() == DType::boolean) throw ShapeError(std::string(op_name(op)) + ": not defined for bool");
            break;
        case UnaryOp::isfinite: out_dtype = DType::boolean; break;
        case UnaryOp::logical_not:
            if (x.dtype() != DType::boolean) throw ShapeError("logical_not: needs a bool tensor");
            break;
        default: require_float(x, op_name(op));
    }
    Tensor out = empty(out_dtype, x.shape());
    if (out.size() > 0) kernels().k_unary(op, x, out);
    return out;
}

Tensor Backend::binary(BinaryOp op, const Tensor& a, const Tensor& b) {
    check_owner(a, op_name(op));
    check_owner(b, op_name(op));
    require_same_dtype(a, b, op_name(op));
    DType out_dtype = a.dtype();
    if (is_comparison(op)) {
        out_dtype = DType::boolean;
    } else if (op == BinaryOp::logical_and || op == BinaryOp::logical_or) {
        if (a.dtype() != DType::boolean) throw ShapeError(std::string(op_name(op)) + ": needs bool tensors");
    } else if (op == BinaryOp::pow || op == BinaryOp::xlogy) {
        require_float(a, op_name(op));
    } else if (a.dtype() == DType::boolean) {
        throw ShapeError(std::string(op_name(op)) + ": not defined for bool");
    }
    Shape shape = detail::broadcast_shapes({a.shape(), b.shape()}, op_name(op));
    Tensor out = empty(out_dtype, shape);
    if (out.size() > 0) kernels().k_binary(op, a, b, out, detail::make_broadcast_plan(shape, {a.shape(), b.shape()}));
    return out;
}

Tensor Backend::where(const Tensor& cond, const Tensor& a, const Tensor& b) {
    check_owner(cond, "where");
    check_owner(a, "where");
    check_owner(b, "where");
    if (cond.dtype() != DType::boolean) throw ShapeError("where: condition must be bool");
    require_same_dtype(a, b, "where");
    Shape shape = detail::broadcast_shapes({cond.shape(), a.shape(), b.shape()}, "where");
    Tensor out = empty(a.dtype(), shape);
    if (out.size() > 0)
        kernels().k_where(cond, a, b, out, detail::make_broadcast_plan(shape, {cond.shape(), a.shape(), b.shape()}));
    return out;
}

Tensor Backend::reduce(ReduceOp op, const Tensor& x, int axis, bool keepdims) {
    check_owner(x, op_name(op));
    if (x.dtype() == DType::boolean) throw ShapeError(std::string(op_name(op)) + ": cast bool first");
    int a = normalize_axis(axis, x.ndim(), op_name(op));
    const Shape& s = x.shape();
    std::int64_t outer = prod(s, 0, a), n = s[a], inner = prod(s, a + 1, s.size());
    if (n == 0 && (op == ReduceOp::max || op == ReduceOp::min))
        throw ShapeError(std::string(op_name(op)) + ": reduction over an empty axis has no identity");
    Shape out_shape = s;
    if (keepdims)
        out_shape[a] = 1;
    else
        out_shape.erase(out_shape.begin() + a);
    Tensor out = empty(x.dtype(), out_shape);
    if (out.size() > 0) kernels().k_reduce(op, x, outer, n, inner, out);
    return out;
}

Tensor Backend::reduce_all(ReduceOp op, const Tensor& x) {
    check_owner(x, op_name(op));
    if (x.dtype() == DType::boolean) throw ShapeError(std::string(op_name(op)) + ": cast bool first");
    if (x.size() == 0 && (op == ReduceOp::max || op == ReduceOp::min))
        throw ShapeError(std::string(op_name(op)) + ": reduction of an empty tensor has no identity");
    Tensor out = empty(x.dtype(), Shape{});
    kernels().k_reduce(op, x, 1, x.size(), 1, out);
    return out;
}

Tensor Backend::transpose(const Tensor& x, const std::vector<int>& perm) {
    check_owner(x, "transpose");
    if (static_cast<int>(perm.size()) != x.ndim())
        throw ShapeError("transpose: permutation of " + std::to_string(perm.size()) + " axes for a " +
                         std::to_string(x.ndim()) + "-d tensor");
    std::vector<int> seen(perm.size(), 0);
    Shape out_shape(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) {
        if (perm[i] < 0 || perm[i] >= x.ndim() || seen[perm[i]]++)
            throw ShapeError("transpose: not a permutation");
        out_shape[i] = x.shape()[perm[i]];
    }
    Tensor out = empty(x.dtype(), out_shape);
    if (out.size() > 0) kernels().k_transpose(x, perm, out);
    return out;
}

Tensor Backend::concat(const std::vector<Tensor>& xs, int axis) {
    if (xs.empty()) throw ShapeError("concat: no tensors");
    for (auto& x : xs) check_owner(x, "concat");
    const Tensor& first = xs.front();
    if (first.ndim() == 0) throw ShapeError("concat: cannot concatenate 0-d tensors (use stack)");
    int a = normalize_axis(axis, first.ndim(), "concat");
    Shape out_shape = first.shape();
    out_shape[a] = 0;
    for (auto& x : xs) {
        require_same_dtype(first, x, "concat");
        bool ok = x.ndim() == first.ndim();
        for (int i = 0; ok && i < x.ndim(); ++i) ok = (i == a) || x.shape()[i] == first.shape()[i];
        if (!ok) throw ShapeError("concat: shapes " + shape_str(first.shape()) + " and " + shape_str(x.shape()) +
                                  " differ outside axis " + std::to_string(a));
        out_shape[a] += x.shape()[a];
    }
    Tensor out = empty(first.dtype(), out_shape);
    if (out.size() > 0) kernels().k_concat(xs, prod(out_shape, 0, a), out);
    return out;
}

Tensor Backend::stack(const std::vector<Tensor>& xs, int axis) {
    if (xs.empty()) throw ShapeError("stack: no tensors");
    int nd = xs.front().ndim() + 1;
    int a = normalize_axis(axis, nd, "stack");
    std::vector<Tensor> expanded;
    for (auto& x : xs) {
        check_owner(x, "stack");
        if (x.shape() != xs.front().shape()) throw ShapeError("stack: tensors of different shapes");
        Shape s = x.shape();
        s.insert(s.begin() + a, 1);
        expanded.push_back(x.reshape(s));
    }
    return concat(expanded, a);
}

Tensor Backend::gather(const Tensor& x, const Tensor& index, int axis) {
    check_owner(x, "gather");
    check_owner(index, "gather");
    if (index.dtype() != DType::i64 || index.ndim() != 1)
        throw ShapeError("gather: index must be a 1-D i64 tensor");
    int a = normalize_axis(axis, x.ndim(), "gather");
    const Shape& s = x.shape();
    Shape out_shape = s;
    out_shape[a] = index.size();
    Tensor out = empty(x.dtype(), out_shape);
    if (out.size() > 0) kernels().k_gather(x, index, prod(s, 0, a), s[a], prod(s, a + 1, s.size()), out);
    return out;
}

Tensor Backend::masked_select(const Tensor& x, const Tensor& mask) {
    check_owner(x, "masked_select");
    check_owner(mask, "masked_select");
    if (mask.dtype() != DType::boolean) throw ShapeError("masked_select: mask must be bool");
    if (mask.shape() != x.shape())
        throw ShapeError("masked_select: mask " + shape_str(mask.shape()) + " for tensor " + shape_str(x.shape()));
    return kernels().k_masked_select(x, mask);
}

Tensor Backend::sort(const Tensor& x, int axis) {
    check_owner(x, "sort");
    if (x.dtype() == DType::boolean) throw ShapeError("sort: cast bool first");
    int a = normalize_axis(axis, x.ndim(), "sort");
    const Shape& s = x.shape();
    Tensor out = empty(x.dtype(), s);
    if (out.size() > 0) kernels().k_sort(x, prod(s, 0, a), s[a], prod(s, a + 1, s.size()), out);
    return out;
}

Tensor Backend::matmul(const Tensor& a_in, const Tensor& b_in) {
    check_owner(a_in, "matmul");
    check_owner(b_in, "matmul");
    require_same_dtype(a_in, b_in, "matmul");
    require_float(a_in, "matmul");
    if (a_in.ndim() == 0 || b_in.ndim() == 0) throw ShapeError("matmul: 0-d operand");
    // numpy: a 1-D left operand is a row vector, a 1-D right operand a column vector; both squeezed after.
    bool squeeze_m = a_in.ndim() == 1, squeeze_n = b_in.ndim() == 1;
    Tensor a = squeeze_m ? a_in.reshape({1, a_in.dim(0)}) : a_in;
    Tensor b = squeeze_n ? b_in.reshape({b_in.dim(0), 1}) : b_in;
    std::int64_t m = a.dim(-2), k = a.dim(-1), k2 = b.dim(-2), n = b.dim(-1);
    if (k != k2)
        throw ShapeError("matmul: inner dimensions differ: " + shape_str(a_in.shape()) + " x " + shape_str(b_in.shape()));
    Shape a_batch(a.shape().begin(), a.shape().end() - 2), b_batch(b.shape().begin(), b.shape().end() - 2);
    Shape batch = detail::broadcast_shapes({a_batch, b_batch}, "matmul");
    std::int64_t nb = numel(batch);
    bool a_batched = numel(a_batch) == nb && nb > 1, b_batched = numel(b_batch) == nb && nb > 1;
    // Leading dims that broadcast partially (e.g. [2,1] with [1,3]) are materialised once.
    if (numel(a_batch) != nb && numel(a_batch) != 1) {
        Shape full = batch;
        full.push_back(m);
        full.push_back(k);
        a = binary(BinaryOp::add, a, this->full(full, 0.0, a.dtype()));
        a_batched = true;
    }
    if (numel(b_batch) != nb && numel(b_batch) != 1) {
        Shape full = batch;
        full.push_back(k);
        full.push_back(n);
        b = binary(BinaryOp::add, b, this->full(full, 0.0, b.dtype()));
        b_batched = true;
    }
    if (nb > 1 && numel(a_batch) == nb) a_batched = true;
    if (nb > 1 && numel(b_batch) == nb) b_batched = true;
    Shape out_shape = batch;
    if (!squeeze_m) out_shape.push_back(m);
    if (!squeeze_n) out_shape.push_back(n);
    Tensor out = empty(a.dtype(), out_shape);
    if (out.size() > 0) kernels().k_matmul(a, b, nb, m, k, n, a_batched, b_batched, out);
    return out;
}

Tensor Backend::random_uniform(const Shape& shape, std::uint64_t seed, std::uint64_t offset) {
    Tensor out = empty(float_dtype(), shape);
    if (out.size() > 0) kernels().k_random(RandomDist::uniform, Tensor(), seed, offset, out);
    return out;
}

Tensor Backend::random_normal(const Shape& shape, std::uint64_t seed, std::uint64_t offset) {
    Tensor out = empty(float_dtype(), shape);
    if (out.size() > 0) kernels().k_random(RandomDist::normal, Tensor(), seed, offset, out);
    return out;
}

Tensor Backend::random_poisson(const Tensor& rate, std::uint64_t seed, std::uint64_t offset) {
    check_owner(rate, "random_poisson");
    require_float(rate, "random_poisson");
    Tensor out = empty(rate.dtype(), rate.shape());
    if (out.size() > 0) kernels().k_random(RandomDist::poisson, rate, seed, offset, out);
    return out;
}

}  // namespace hf
