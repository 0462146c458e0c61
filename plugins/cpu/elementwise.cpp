// Elementwise kernels of the cpu plugin: fill, arange, cast, unary and binary maps with broadcasting, where.
// The only translation unit that includes xtensor (seconds of compile time each): contiguous floating-point
// maps go through xt::adapt over the storage so that xsimd vectorises exp/log/sqrt; broadcast loops are plain
// loops over the core's plans. xsimd compiles for the build's baseline instruction set, without the run-time
// vector levels of simd.cpp (docs/decisions/host-vector-levels.md).
#include "hf_scalar_ops.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>

#include "backend.hpp"
#include "special.hpp"

namespace hf::cpu {
namespace {

using i64 = std::int64_t;

template <class T>
auto adapt1(T* p, i64 n) {
    return xt::adapt(p, static_cast<std::size_t>(n), xt::no_ownership(),
                     std::array<std::size_t, 1>{static_cast<std::size_t>(n)});
}

template <class T, class U>
void cast_loop(const T* x, U* o, i64 n) {
    for (i64 i = 0; i < n; ++i) o[i] = convert<U>(x[i]);
}

// Writes a typed buffer into `out` whatever out's dtype is.
template <class T>
void store_as(const T* v, Tensor& out) {
    dispatch(out.dtype(), [&](auto to) {
        using U = typename decltype(to)::type;
        cast_loop(v, data_of<U>(out), out.size());
    });
}

// Visits the output of a broadcast plan one innermost row at a time:
// body(out_offset, operand offsets, row length, operand strides along the row).
template <int NOps, class Body>
void for_each_row(const BroadcastPlan& p, Body&& body) {
    std::array<i64, NOps> off{}, st{};
    if (p.ndim == 0) {
        body(i64{0}, off, i64{1}, st);
        return;
    }
    const int nd = p.ndim;
    const i64 len = p.out_shape[nd - 1];
    i64 rows = 1;
    for (int d = 0; d < nd - 1; ++d) rows *= p.out_shape[d];
    if (len == 0 || rows == 0) return;
    for (int k = 0; k < NOps; ++k) st[k] = p.strides[k][nd - 1];
    std::array<i64, BroadcastPlan::kMaxDims> idx{};
    for (i64 r = 0; r < rows; ++r) {
        body(r * len, off, len, st);
        for (int d = nd - 2; d >= 0; --d) {
            ++idx[d];
            for (int k = 0; k < NOps; ++k) off[k] += p.strides[k][d];
            if (idx[d] < p.out_shape[d]) break;
            for (int k = 0; k < NOps; ++k) off[k] -= p.strides[k][d] * p.out_shape[d];
            idx[d] = 0;
        }
    }
}

template <class TA, class TB, class U, class F>
void binary_loop(const TA* a, const TB* b, U* o, const BroadcastPlan& p, i64 total, F f) {
    if (p.trivial) {
        for (i64 i = 0; i < total; ++i) o[i] = f(a[i], b[i]);
        return;
    }
    for_each_row<2>(p, [&](i64 oo, const std::array<i64, 2>& off, i64 n, const std::array<i64, 2>& st) {
        const TA* pa = a + off[0];
        const TB* pb = b + off[1];
        U* po = o + oo;
        if (st[0] == 1 && st[1] == 1) {
            for (i64 i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
        } else if (st[0] == 1 && st[1] == 0) {
            const TB bv = *pb;
            for (i64 i = 0; i < n; ++i) po[i] = f(pa[i], bv);
        } else if (st[0] == 0 && st[1] == 1) {
            const TA av = *pa;
            for (i64 i = 0; i < n; ++i) po[i] = f(av, pb[i]);
        } else {
            for (i64 i = 0; i < n; ++i) po[i] = f(pa[i * st[0]], pb[i * st[1]]);
        }
    });
}

// ---------------------------------------------------------------- unary

template <class T>
double apply_unary_double(UnaryOp op, double v) {
    switch (op) {
        case UnaryOp::neg: return -v;
        case UnaryOp::abs: return std::fabs(v);
        case UnaryOp::exp: return std::exp(v);
        case UnaryOp::log: return std::log(v);
        case UnaryOp::sqrt: return std::sqrt(v);
        case UnaryOp::square: return v * v;
        case UnaryOp::sign: return std::isnan(v) ? v : static_cast<double>((v > 0) - (v < 0));
        case UnaryOp::floor: return std::floor(v);
        case UnaryOp::lgamma: return special::lgamma(v);
        case UnaryOp::erf: return std::erf(v);
        case UnaryOp::erfinv: return special::erfinv(v);
        case UnaryOp::normal_cdf: return special::normal_cdf(v);
        case UnaryOp::normal_ppf: return special::normal_ppf(v);
        case UnaryOp::isfinite: return std::isfinite(v) ? 1.0 : 0.0;
        case UnaryOp::logical_not: return v == 0 ? 1.0 : 0.0;
    }
    return v;
}

template <class T>
void unary_float(UnaryOp op, const T* x, T* o, i64 n) {
    auto xa = adapt1(x, n);
    auto xo = adapt1(o, n);
    switch (op) {
        case UnaryOp::neg: xt::noalias(xo) = -xa; return;
        case UnaryOp::abs: xt::noalias(xo) = xt::abs(xa); return;
        case UnaryOp::exp: xt::noalias(xo) = xt::exp(xa); return;
        case UnaryOp::log: xt::noalias(xo) = xt::log(xa); return;
        case UnaryOp::sqrt: xt::noalias(xo) = xt::sqrt(xa); return;
        case UnaryOp::square: xt::noalias(xo) = xa * xa; return;
        case UnaryOp::floor: xt::noalias(xo) = xt::floor(xa); return;
        case UnaryOp::erf:
            for (i64 i = 0; i < n; ++i) o[i] = std::erf(x[i]);
            return;
        default:
            // Special functions in double, rounded once.
            for (i64 i = 0; i < n; ++i) o[i] = static_cast<T>(apply_unary_double<T>(op, static_cast<double>(x[i])));
            return;
    }
}

template <class T>
void unary_int(UnaryOp op, const T* x, T* o, i64 n) {
    switch (op) {
        case UnaryOp::neg: for (i64 i = 0; i < n; ++i) o[i] = static_cast<T>(-x[i]); return;
        case UnaryOp::abs: for (i64 i = 0; i < n; ++i) o[i] = static_cast<T>(x[i] < 0 ? -x[i] : x[i]); return;
        case UnaryOp::square: for (i64 i = 0; i < n; ++i) o[i] = static_cast<T>(x[i] * x[i]); return;
        case UnaryOp::sign: for (i64 i = 0; i < n; ++i) o[i] = static_cast<T>((x[i] > 0) - (x[i] < 0)); return;
        case UnaryOp::floor: std::copy(x, x + n, o); return;
        default:
            for (i64 i = 0; i < n; ++i) o[i] = convert<T>(apply_unary_double<T>(op, static_cast<double>(x[i])));
            return;
    }
}

// ---------------------------------------------------------------- binary

using hf::shared::int_pow;

bool is_comparison(BinaryOp op) {
    switch (op) {
        case BinaryOp::lt: case BinaryOp::le: case BinaryOp::gt: case BinaryOp::ge:
        case BinaryOp::eq: case BinaryOp::ne: case BinaryOp::logical_and: case BinaryOp::logical_or:
            return true;
        default:
            return false;
    }
}

// Arithmetic ops: T, T -> T.
template <class T>
void binary_arith(BinaryOp op, const T* a, const T* b, T* o, const BroadcastPlan& p, i64 total) {
    using B = std::uint8_t;
    if constexpr (std::is_floating_point_v<T>) {
        if (p.trivial && total > 0) {
            auto xa = adapt1(a, total), xb = adapt1(b, total);
            auto xo = adapt1(o, total);
            switch (op) {
                case BinaryOp::add: xt::noalias(xo) = xa + xb; return;
                case BinaryOp::sub: xt::noalias(xo) = xa - xb; return;
                case BinaryOp::mul: xt::noalias(xo) = xa * xb; return;
                case BinaryOp::div: xt::noalias(xo) = xa / xb; return;
                default: break;
            }
        }
        switch (op) {
            case BinaryOp::add: return binary_loop(a, b, o, p, total, [](T x, T y) { return x + y; });
            case BinaryOp::sub: return binary_loop(a, b, o, p, total, [](T x, T y) { return x - y; });
            case BinaryOp::mul: return binary_loop(a, b, o, p, total, [](T x, T y) { return x * y; });
            case BinaryOp::div: return binary_loop(a, b, o, p, total, [](T x, T y) { return x / y; });
            case BinaryOp::pow: return binary_loop(a, b, o, p, total, [](T x, T y) { return std::pow(x, y); });
            case BinaryOp::minimum: return binary_loop(a, b, o, p, total, [](T x, T y) { return nan_min(x, y); });
            case BinaryOp::maximum: return binary_loop(a, b, o, p, total, [](T x, T y) { return nan_max(x, y); });
            case BinaryOp::xlogy:
                // scipy's xlogy: 0 where x == 0, except that a NaN y stays NaN
                return binary_loop(a, b, o, p, total,
                                   [](T x, T y) { return x == T(0) && y == y ? T(0) : x * std::log(y); });
            default: break;
        }
    } else if constexpr (std::is_same_v<T, B>) {
        // bool arithmetic as numpy: + is or, * is and; everything else through 0/1 integers.
        switch (op) {
            case BinaryOp::add: case BinaryOp::maximum:
                return binary_loop(a, b, o, p, total, [](B x, B y) { return B((x | y) != 0); });
            case BinaryOp::mul: case BinaryOp::minimum:
                return binary_loop(a, b, o, p, total, [](B x, B y) { return B((x & y) != 0); });
            case BinaryOp::sub:
                return binary_loop(a, b, o, p, total, [](B x, B y) { return B(x != y); });
            case BinaryOp::pow:
                return binary_loop(a, b, o, p, total, [](B x, B y) { return B(x != 0 || y == 0); });
            case BinaryOp::div:
                return binary_loop(a, b, o, p, total, [](B x, B y) { return B(x != 0 && y != 0); });
            case BinaryOp::xlogy:
                return binary_loop(a, b, o, p, total, [](B, B) { return B(0); });
            default: break;
        }
    } else {
        switch (op) {
            case BinaryOp::add: return binary_loop(a, b, o, p, total, [](T x, T y) { return T(x + y); });
            case BinaryOp::sub: return binary_loop(a, b, o, p, total, [](T x, T y) { return T(x - y); });
            case BinaryOp::mul: return binary_loop(a, b, o, p, total, [](T x, T y) { return T(x * y); });
            case BinaryOp::div:  // floor division (numpy //); division by zero gives 0 as numpy does
                return binary_loop(a, b, o, p, total, [](T x, T y) {
                    if (y == 0) return T(0);
                    if (y == -1) return T(-x);
                    T q = static_cast<T>(x / y);
                    return static_cast<T>((x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q);
                });
            case BinaryOp::pow: return binary_loop(a, b, o, p, total, [](T x, T y) { return int_pow(x, y); });
            case BinaryOp::minimum: return binary_loop(a, b, o, p, total, [](T x, T y) { return std::min(x, y); });
            case BinaryOp::maximum: return binary_loop(a, b, o, p, total, [](T x, T y) { return std::max(x, y); });
            case BinaryOp::xlogy:
                return binary_loop(a, b, o, p, total, [](T x, T y) {
                    return x == 0 ? T(0) : convert<T>(static_cast<double>(x) * std::log(static_cast<double>(y)));
                });
            default: break;
        }
    }
    throw ShapeError(std::string("cpu: binary op ") + op_name(op) + " is not arithmetic");
}

// Comparisons and logical ops: T, T -> bool.
template <class T>
void binary_compare(BinaryOp op, const T* a, const T* b, std::uint8_t* o, const BroadcastPlan& p, i64 total) {
    using B = std::uint8_t;
    switch (op) {
        case BinaryOp::lt: return binary_loop(a, b, o, p, total, [](T x, T y) { return B(x < y); });
        case BinaryOp::le: return binary_loop(a, b, o, p, total, [](T x, T y) { return B(x <= y); });
        case BinaryOp::gt: return binary_loop(a, b, o, p, total, [](T x, T y) { return B(x > y); });
        case BinaryOp::ge: return binary_loop(a, b, o, p, total, [](T x, T y) { return B(x >= y); });
        case BinaryOp::eq: return binary_loop(a, b, o, p, total, [](T x, T y) { return B(x == y); });
        case BinaryOp::ne: return binary_loop(a, b, o, p, total, [](T x, T y) { return B(x != y); });
        case BinaryOp::logical_and:
            return binary_loop(a, b, o, p, total, [](T x, T y) { return B(x != T(0) && y != T(0)); });
        case BinaryOp::logical_or:
            return binary_loop(a, b, o, p, total, [](T x, T y) { return B(x != T(0) || y != T(0)); });
        default: break;
    }
    throw ShapeError(std::string("cpu: binary op ") + op_name(op) + " is not a comparison");
}

template <class T>
void binary_same(BinaryOp op, const T* a, const T* b, Tensor& out, const BroadcastPlan& p) {
    const i64 total = out.size();
    if (is_comparison(op)) {
        if (out.dtype() == DType::boolean) return binary_compare(op, a, b, data_of<std::uint8_t>(out), p, total);
        std::vector<std::uint8_t> tmp(static_cast<std::size_t>(total));
        binary_compare(op, a, b, tmp.data(), p, total);
        return store_as(tmp.data(), out);
    }
    dispatch(out.dtype(), [&](auto to) {
        using U = typename decltype(to)::type;
        if constexpr (std::is_same_v<U, T>) {
            binary_arith(op, a, b, data_of<T>(out), p, total);
        } else {
            std::vector<T> tmp(static_cast<std::size_t>(total));
            binary_arith(op, a, b, tmp.data(), p, total);
            store_as(tmp.data(), out);
        }
    });
}

}  // namespace

void CpuBackend::k_fill(Tensor& out, double value) {
    dispatch(out.dtype(), [&](auto to) {
        using U = typename decltype(to)::type;
        U* o = data_of<U>(out);
        std::fill(o, o + out.size(), convert<U>(value));
    });
}

void CpuBackend::k_arange(Tensor& out) {
    dispatch(out.dtype(), [&](auto to) {
        using U = typename decltype(to)::type;
        U* o = data_of<U>(out);
        for (i64 i = 0, n = out.size(); i < n; ++i) o[i] = convert<U>(i);
    });
}

void CpuBackend::k_cast(const Tensor& x, Tensor& out) {
    dispatch(x.dtype(), [&](auto tx) {
        using T = typename decltype(tx)::type;
        store_as(data_of<T>(x), out);
    });
}

// ---------------------------------------------------------------- elementwise

void CpuBackend::k_unary(UnaryOp op, const Tensor& x, Tensor& out) {
    const i64 n = x.size();
    dispatch(x.dtype(), [&](auto tx) {
        using T = typename decltype(tx)::type;
        const T* px = data_of<T>(x);
        if (op == UnaryOp::isfinite || op == UnaryOp::logical_not) {
            std::vector<std::uint8_t> tmp;
            std::uint8_t* o = out.dtype() == DType::boolean ? data_of<std::uint8_t>(out)
                                                            : (tmp.resize(static_cast<std::size_t>(n)), tmp.data());
            for (i64 i = 0; i < n; ++i) {
                if (op == UnaryOp::logical_not) o[i] = px[i] == T(0);
                else if constexpr (std::is_floating_point_v<T>) o[i] = std::isfinite(px[i]);
                else o[i] = 1;
            }
            if (!tmp.empty()) store_as(tmp.data(), out);
            return;
        }
        dispatch(out.dtype(), [&](auto to) {
            using U = typename decltype(to)::type;
            U* po = data_of<U>(out);
            if constexpr (std::is_same_v<T, U> && std::is_floating_point_v<T>) {
                if (n > 0) unary_float(op, px, po, n);
            } else if constexpr (std::is_same_v<T, U> && !is_bool_v<T>) {
                unary_int(op, px, po, n);
            } else {
                for (i64 i = 0; i < n; ++i)
                    po[i] = convert<U>(apply_unary_double<T>(op, static_cast<double>(px[i])));
            }
        });
    });
}

void CpuBackend::k_binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out, const BroadcastPlan& plan) {
    if (a.dtype() != b.dtype()) {
        auto va = as_vector<double>(a), vb = as_vector<double>(b);
        return binary_same<double>(op, va.data(), vb.data(), out, plan);
    }
    dispatch(a.dtype(), [&](auto ta) {
        using T = typename decltype(ta)::type;
        binary_same<T>(op, data_of<T>(a), data_of<T>(b), out, plan);
    });
}

void CpuBackend::k_where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out,
                         const BroadcastPlan& plan) {
    std::vector<std::uint8_t> cbuf;
    const std::uint8_t* c = nullptr;
    if (cond.dtype() == DType::boolean) {
        c = data_of<std::uint8_t>(cond);
    } else {
        cbuf = as_vector<std::uint8_t>(cond);
        c = cbuf.data();
    }
    dispatch(out.dtype(), [&](auto to) {
        using U = typename decltype(to)::type;
        std::vector<U> abuf, bbuf;
        const U* pa = a.dtype() == out.dtype() ? data_of<U>(a) : (abuf = as_vector<U>(a), abuf.data());
        const U* pb = b.dtype() == out.dtype() ? data_of<U>(b) : (bbuf = as_vector<U>(b), bbuf.data());
        U* o = data_of<U>(out);
        if (plan.trivial) {
            for (i64 i = 0, n = out.size(); i < n; ++i) o[i] = c[i] ? pa[i] : pb[i];
            return;
        }
        for_each_row<3>(plan, [&](i64 oo, const std::array<i64, 3>& off, i64 n, const std::array<i64, 3>& st) {
            for (i64 i = 0; i < n; ++i)
                o[oo + i] = c[off[0] + i * st[0]] ? pa[off[1] + i * st[1]] : pb[off[2] + i * st[2]];
        });
    });
}

}  // namespace hf::cpu
