// Tier 1 kernels of the cpu plugin. The only translation unit that includes xtensor (seconds of compile time
// each): contiguous floating-point elementwise maps go through xt::adapt over the storage so that xsimd
// vectorises exp/log/sqrt; broadcast loops, reductions and indexing are plain loops over the core's plans.
#include "hf_scalar_ops.hpp"
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>

#include "cpu_backend.hpp"
#include "cpu_special.hpp"

namespace hf::cpu {
namespace {

using i64 = std::int64_t;

template <class T>
auto adapt1(T* p, i64 n) {
    return xt::adapt(p, static_cast<std::size_t>(n), xt::no_ownership(),
                     std::array<std::size_t, 1>{static_cast<std::size_t>(n)});
}

// Copies any tensor into a vector of U (dtype-mismatched operands take this slow but simple path).
template <class U>
std::vector<U> as_vector(const Tensor& t) {
    std::vector<U> v(static_cast<std::size_t>(t.size()));
    dispatch(t.dtype(), [&](auto tt) {
        using T = typename decltype(tt)::type;
        const T* p = data_of<T>(t);
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = convert<U>(p[i]);
    });
    return v;
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

// numpy's maximum/minimum: NaN wins.
template <class T>
T nan_max(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (a != a) return a;
        if (b != b) return b;
    }
    return a < b ? b : a;
}
template <class T>
T nan_min(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (a != a) return a;
        if (b != b) return b;
    }
    return b < a ? b : a;
}

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

// ---------------------------------------------------------------- reductions

// Pairwise sum of n values at stride s: error grows as log(n) instead of n.
template <class T>
double pairwise_sum(const T* x, i64 n, i64 s) {
    if (n <= 64) {
        double acc[4] = {0, 0, 0, 0};
        i64 i = 0;
        for (; i + 4 <= n; i += 4) {
            acc[0] += static_cast<double>(x[i * s]);
            acc[1] += static_cast<double>(x[(i + 1) * s]);
            acc[2] += static_cast<double>(x[(i + 2) * s]);
            acc[3] += static_cast<double>(x[(i + 3) * s]);
        }
        for (; i < n; ++i) acc[0] += static_cast<double>(x[i * s]);
        return (acc[0] + acc[1]) + (acc[2] + acc[3]);
    }
    i64 h = (n / 2 + 7) & ~i64{7};
    return pairwise_sum(x, h, s) + pairwise_sum(x + h * s, n - h, s);
}

template <class T, class U>
void reduce_typed(ReduceOp op, const T* x, i64 outer, i64 n, i64 inner, U* o) {
    constexpr bool flt = std::is_floating_point_v<T>;
    using Acc = std::conditional_t<flt, double, std::int64_t>;
    for (i64 a = 0; a < outer; ++a) {
        const T* base = x + a * n * inner;
        U* ob = o + a * inner;
        if (op == ReduceOp::sum) {
            if constexpr (flt) {
                if (inner == 1) {
                    ob[0] = static_cast<U>(pairwise_sum(base, n, 1));
                } else {
                    // Neumaier summation row by row: cache friendly and accurate for any n.
                    std::vector<double> s(static_cast<std::size_t>(inner), 0.0), c(static_cast<std::size_t>(inner), 0.0);
                    for (i64 j = 0; j < n; ++j) {
                        const T* row = base + j * inner;
                        for (i64 i = 0; i < inner; ++i) {
                            double v = static_cast<double>(row[i]);
                            double t = s[i] + v;
                            c[i] += std::fabs(s[i]) >= std::fabs(v) ? (s[i] - t) + v : (v - t) + s[i];
                            s[i] = t;
                        }
                    }
                    for (i64 i = 0; i < inner; ++i) ob[i] = convert<U>(s[i] + c[i]);
                }
            } else {
                for (i64 i = 0; i < inner; ++i) {
                    Acc s = 0;
                    for (i64 j = 0; j < n; ++j) s += static_cast<Acc>(base[j * inner + i]);
                    ob[i] = convert<U>(s);
                }
            }
            continue;
        }
        for (i64 i = 0; i < inner; ++i) {
            if (op == ReduceOp::prod) {
                Acc r = 1;
                for (i64 j = 0; j < n; ++j) r *= static_cast<Acc>(base[j * inner + i]);
                ob[i] = convert<U>(r);
            } else {
                const bool mx = op == ReduceOp::max;
                T r;
                if constexpr (flt) r = mx ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
                else r = mx ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
                for (i64 j = 0; j < n; ++j) {
                    T v = base[j * inner + i];
                    r = mx ? nan_max(r, v) : nan_min(r, v);
                }
                ob[i] = convert<U>(r);
            }
        }
    }
}

template <class T>
struct NanLast {
    bool operator()(T a, T b) const {
        if constexpr (std::is_floating_point_v<T>) {
            if (b != b) return a == a;
            if (a != a) return false;
        }
        return a < b;
    }
};

std::size_t checked_bytes(DType dtype, i64 n) {
    if (n < 0) throw ShapeError("cpu: negative allocation size " + std::to_string(n));
    const auto es = static_cast<std::size_t>(dtype_size(dtype));
    if (static_cast<std::uint64_t>(n) > std::numeric_limits<std::size_t>::max() / es)
        throw OutOfMemory("cpu: cannot allocate " + std::to_string(n) + " elements of " + dtype_name(dtype));
    return static_cast<std::size_t>(n) * es;
}

}  // namespace

// ---------------------------------------------------------------- storage

std::shared_ptr<Storage> CpuBackend::k_alloc(DType dtype, std::int64_t n) {
    return std::make_shared<CpuStorage>(checked_bytes(dtype, n));
}

void CpuBackend::k_upload(Tensor& out, const void* host) {
    const std::size_t bytes = static_cast<std::size_t>(out.size()) * dtype_size(out.dtype());
    if (bytes == 0) return;
    if (out.dtype() == DType::boolean) {
        auto* o = data_of<std::uint8_t>(out);
        const auto* h = static_cast<const std::uint8_t*>(host);
        for (std::size_t i = 0; i < bytes; ++i) o[i] = h[i] != 0;
        return;
    }
    std::memcpy(PluginBackend::storage_as<CpuStorage>(out).data(), host, bytes);
}

void CpuBackend::k_download(const Tensor& x, void* host) {
    const std::size_t bytes = static_cast<std::size_t>(x.size()) * dtype_size(x.dtype());
    if (bytes) std::memcpy(host, PluginBackend::storage_as<CpuStorage>(x).data(), bytes);
}

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

// ---------------------------------------------------------------- reductions, shape, indexing

void CpuBackend::k_reduce(ReduceOp op, const Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner,
                          Tensor& out) {
    dispatch(x.dtype(), [&](auto tx) {
        using T = typename decltype(tx)::type;
        dispatch(out.dtype(), [&](auto to) {
            using U = typename decltype(to)::type;
            reduce_typed<T, U>(op, data_of<T>(x), outer, n, inner, data_of<U>(out));
        });
    });
}

void CpuBackend::k_transpose(const Tensor& x, const std::vector<int>& perm, Tensor& out) {
    const int nd = x.ndim();
    const i64 total = out.size();
    if (total == 0) return;
    const std::size_t es = dtype_size(x.dtype());
    if (nd == 0) {
        std::memcpy(data_of<char>(out), data_of<char>(x), es);
        return;
    }
    std::vector<i64> xstride(static_cast<std::size_t>(nd), 1);
    for (int d = nd - 2; d >= 0; --d) xstride[d] = xstride[d + 1] * x.dim(d + 1);
    std::vector<i64> oshape(static_cast<std::size_t>(nd)), ostride(static_cast<std::size_t>(nd));
    for (int d = 0; d < nd; ++d) {
        oshape[d] = x.dim(perm[d]);
        ostride[d] = xstride[perm[d]];  // stride in x of the output's dimension d
    }
    dispatch(x.dtype(), [&](auto tx) {
        using T = typename decltype(tx)::type;
        const T* px = data_of<T>(x);
        T* po = data_of<T>(out);
        const i64 len = oshape[nd - 1], s = ostride[nd - 1];
        const i64 rows = total / len;
        std::vector<i64> idx(static_cast<std::size_t>(nd), 0);
        i64 off = 0;
        for (i64 r = 0; r < rows; ++r) {
            T* orow = po + r * len;
            for (i64 i = 0; i < len; ++i) orow[i] = px[off + i * s];
            for (int d = nd - 2; d >= 0; --d) {
                ++idx[d];
                off += ostride[d];
                if (idx[d] < oshape[d]) break;
                off -= ostride[d] * oshape[d];
                idx[d] = 0;
            }
        }
    });
}

void CpuBackend::k_concat(const std::vector<Tensor>& xs, std::int64_t outer, Tensor& out) {
    const std::size_t es = dtype_size(out.dtype());
    std::vector<i64> inner(xs.size());
    i64 total_inner = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        inner[i] = outer == 0 ? 0 : xs[i].size() / outer;
        total_inner += inner[i];
    }
    char* o = data_of<char>(out);
    i64 col = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        if (inner[i] == 0) continue;
        if (xs[i].dtype() != out.dtype())
            throw ShapeError(std::string("cpu: concat of ") + dtype_name(xs[i].dtype()) + " into " +
                             dtype_name(out.dtype()));
        const char* src = data_of<char>(xs[i]);
        for (i64 r = 0; r < outer; ++r)
            std::memcpy(o + (r * total_inner + col) * es, src + r * inner[i] * es, static_cast<std::size_t>(inner[i]) * es);
        col += inner[i];
    }
}

void CpuBackend::k_gather(const Tensor& x, const Tensor& index, std::int64_t outer, std::int64_t n,
                          std::int64_t inner, Tensor& out) {
    const i64 m = index.size();
    std::vector<i64> ibuf;
    const i64* idx = index.dtype() == DType::i64 ? data_of<i64>(index) : (ibuf = as_vector<i64>(index), ibuf.data());
    for (i64 j = 0; j < m; ++j)
        if (idx[j] < 0 || idx[j] >= n)
            throw ShapeError("cpu: gather index " + std::to_string(idx[j]) + " at position " + std::to_string(j) +
                             " is out of range [0, " + std::to_string(n) + ")");
    const std::size_t es = dtype_size(x.dtype());
    const char* px = data_of<char>(x);
    char* po = data_of<char>(out);
    const std::size_t row = static_cast<std::size_t>(inner) * es;
    if (row == 0) return;
    for (i64 a = 0; a < outer; ++a)
        for (i64 j = 0; j < m; ++j)
            std::memcpy(po + (a * m + j) * row, px + (a * n + idx[j]) * row, row);
}

Tensor CpuBackend::k_masked_select(const Tensor& x, const Tensor& mask) {
    const i64 n = x.size();
    std::vector<std::uint8_t> mbuf;
    const std::uint8_t* m =
        mask.dtype() == DType::boolean ? data_of<std::uint8_t>(mask) : (mbuf = as_vector<std::uint8_t>(mask), mbuf.data());
    i64 count = 0;
    for (i64 i = 0; i < n; ++i) count += m[i] != 0;
    auto storage = k_alloc(x.dtype(), count);
    Tensor out = make_tensor(storage, x.dtype(), Shape{count});
    const std::size_t es = dtype_size(x.dtype());
    const char* px = data_of<char>(x);
    char* po = data_of<char>(out);
    for (i64 i = 0, k = 0; i < n; ++i)
        if (m[i]) std::memcpy(po + (k++) * es, px + i * es, es);
    return out;
}

void CpuBackend::k_sort(const Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner, Tensor& out) {
    dispatch(x.dtype(), [&](auto tx) {
        using T = typename decltype(tx)::type;
        const T* px = data_of<T>(x);
        T* po = data_of<T>(out);
        std::copy(px, px + x.size(), po);
        if (inner == 1) {
            for (i64 a = 0; a < outer; ++a) std::sort(po + a * n, po + (a + 1) * n, NanLast<T>{});
            return;
        }
        std::vector<T> col(static_cast<std::size_t>(n));
        for (i64 a = 0; a < outer; ++a)
            for (i64 i = 0; i < inner; ++i) {
                T* base = po + a * n * inner + i;
                for (i64 j = 0; j < n; ++j) col[j] = base[j * inner];
                std::sort(col.begin(), col.end(), NanLast<T>{});
                for (i64 j = 0; j < n; ++j) base[j * inner] = col[j];
            }
    });
}

// ---------------------------------------------------------------- matmul

namespace {

template <class T>
void gemm(i64 m, i64 n, i64 k, const T* a, const T* b, T* c) {
    if constexpr (std::is_same_v<T, double>) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                    static_cast<int>(k), 1.0, a, static_cast<int>(std::max<i64>(k, 1)), b,
                    static_cast<int>(std::max<i64>(n, 1)), 0.0, c, static_cast<int>(std::max<i64>(n, 1)));
    } else if constexpr (std::is_same_v<T, float>) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                    static_cast<int>(k), 1.0f, a, static_cast<int>(std::max<i64>(k, 1)), b,
                    static_cast<int>(std::max<i64>(n, 1)), 0.0f, c, static_cast<int>(std::max<i64>(n, 1)));
    } else {
        // Integers (and bool as 0/1 with or-and semantics): i-k-j loops, exact.
        using Acc = std::int64_t;
        std::vector<Acc> row(static_cast<std::size_t>(n));
        for (i64 i = 0; i < m; ++i) {
            std::fill(row.begin(), row.end(), Acc{0});
            for (i64 p = 0; p < k; ++p) {
                const Acc av = static_cast<Acc>(a[i * k + p]);
                if (av == 0) continue;
                const T* brow = b + p * n;
                for (i64 j = 0; j < n; ++j) row[j] += av * static_cast<Acc>(brow[j]);
            }
            for (i64 j = 0; j < n; ++j) c[i * n + j] = convert<T>(row[j]);
        }
    }
}

}  // namespace

void CpuBackend::k_matmul(const Tensor& a, const Tensor& b, std::int64_t batch, std::int64_t m, std::int64_t k,
                          std::int64_t n, bool a_batched, bool b_batched, Tensor& out) {
    if (batch == 0 || m == 0 || n == 0) return;
    if (a.dtype() != b.dtype() || a.dtype() != out.dtype())
        throw ShapeError(std::string("cpu: matmul of ") + dtype_name(a.dtype()) + " and " + dtype_name(b.dtype()) +
                         " into " + dtype_name(out.dtype()));
    if (std::max({m, n, k}) > std::numeric_limits<int>::max())
        throw ShapeError("cpu: matmul dimension beyond the BLAS integer range");
    dispatch(a.dtype(), [&](auto ta) {
        using T = typename decltype(ta)::type;
        const T* pa = data_of<T>(a);
        const T* pb = data_of<T>(b);
        T* po = data_of<T>(out);
        if (k == 0) {
            std::fill(po, po + batch * m * n, T(0));
            return;
        }
        if (a_batched && !b_batched && batch * m <= std::numeric_limits<int>::max()) {
            gemm<T>(batch * m, n, k, pa, pb, po);  // one GEMM: the batch stacks the rows of a
            return;
        }
        for (i64 i = 0; i < batch; ++i)
            gemm<T>(m, n, k, pa + (a_batched ? i * m * k : 0), pb + (b_batched ? i * k * n : 0), po + i * m * n);
    });
}

void CpuBackend::k_random(RandomDist dist, const Tensor& rate, std::uint64_t seed, std::uint64_t offset,
                          Tensor& out) {
    random_fill(dist, rate, seed, offset, out);
}

}  // namespace hf::cpu
