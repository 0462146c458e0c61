// Tier 1 kernels of the `ref` backend: one plain loop each over contiguous row-major host memory. Floating
// results are computed in double and rounded once to the tensor's dtype; sums are compensated; integers wrap
// around as numpy's do.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "philox_host.hpp"  // hfcore's Philox-4x32-10 (plugin SDK): the same seed gives the same numbers everywhere
#include "ref_backend.hpp"

namespace ref {

using hf::BinaryOp;
using hf::ReduceOp;
using hf::Tensor;
using hf::UnaryOp;
using i64 = std::int64_t;
using u8 = std::uint8_t;

namespace {

template <class T>
constexpr bool is_float = std::is_floating_point_v<T>;

// numpy's value conversion: to bool is "not zero" (NaN is true); a float to an integer truncates, saturates
// outside the integer's range, and NaN becomes the integer's minimum.
template <class U, class T>
U convert(T v) {
    if constexpr (std::is_same_v<U, u8>) {
        return static_cast<U>(v != T(0));
    } else if constexpr (std::is_integral_v<U> && is_float<T>) {
        if (std::isnan(v) || v <= static_cast<T>(std::numeric_limits<U>::min())) return std::numeric_limits<U>::min();
        if (v >= static_cast<T>(std::numeric_limits<U>::max())) return std::numeric_limits<U>::max();
        return static_cast<U>(v);
    } else {
        return static_cast<U>(v);
    }
}

// Integer arithmetic in the unsigned type: wraps around instead of being undefined.
template <class T>
using wide = std::make_unsigned_t<T>;

// Visits every output element in order, with each operand's element offset (plan.strides: 0 where broadcast).
template <int N, class F>
void for_each_element(const hf::BroadcastPlan& plan, i64 total, F&& f) {
    std::array<i64, N> off{};
    if (plan.trivial) {
        for (i64 o = 0; o < total; ++o) {
            off.fill(o);
            f(o, off);
        }
        return;
    }
    std::array<i64, hf::BroadcastPlan::kMaxDims> index{};
    for (i64 o = 0; o < total; ++o) {
        f(o, off);
        for (int d = plan.ndim - 1; d >= 0; --d) {
            for (int k = 0; k < N; ++k) off[k] += plan.strides[k][d];
            if (++index[d] < plan.out_shape[d]) break;
            for (int k = 0; k < N; ++k) off[k] -= plan.strides[k][d] * plan.out_shape[d];
            index[d] = 0;
        }
    }
}

[[noreturn]] void unsupported(const char* what, const char* op) {
    throw hf::ShapeError(std::string("ref: ") + what + " " + op + " is not supported");
}

template <class T>
T unary_value(UnaryOp op, T x) {
    if constexpr (is_float<T>) {
        const double v = x;
        double r = 0;
        switch (op) {
            case UnaryOp::neg: r = -v; break;
            case UnaryOp::abs: r = std::fabs(v); break;
            case UnaryOp::exp: r = std::exp(v); break;
            case UnaryOp::log: r = std::log(v); break;
            case UnaryOp::sqrt: r = std::sqrt(v); break;
            case UnaryOp::square: r = v * v; break;
            case UnaryOp::sign: r = std::isnan(v) ? v : static_cast<double>((v > 0) - (v < 0)); break;
            case UnaryOp::floor: r = std::floor(v); break;
            case UnaryOp::lgamma: r = lgamma(v); break;
            case UnaryOp::erf: r = std::erf(v); break;
            case UnaryOp::erfinv: r = erfinv(v); break;
            case UnaryOp::normal_cdf: r = normal_cdf(v); break;
            case UnaryOp::normal_ppf: r = normal_ppf(v); break;
            default: unsupported("unary", hf::op_name(op));
        }
        return static_cast<T>(r);
    } else {
        switch (op) {
            case UnaryOp::neg: return static_cast<T>(wide<T>(0) - wide<T>(x));
            case UnaryOp::abs: return x < 0 ? static_cast<T>(wide<T>(0) - wide<T>(x)) : x;
            case UnaryOp::square: return static_cast<T>(wide<T>(x) * wide<T>(x));
            case UnaryOp::sign: return static_cast<T>((x > 0) - (x < 0));
            case UnaryOp::floor: return x;
            default: unsupported("integer unary", hf::op_name(op));
        }
    }
}

template <class T>
T nan_max(T x, T y) {
    if constexpr (is_float<T>)
        if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<T>::quiet_NaN();
    return x < y ? y : x;
}
template <class T>
T nan_min(T x, T y) {
    if constexpr (is_float<T>)
        if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<T>::quiet_NaN();
    return y < x ? y : x;
}

// numpy's floor division of integers (//), with 0 for a zero divisor as numpy gives.
template <class T>
T floor_divide(T x, T y) {
    if (y == 0) return 0;
    if (y == -1) return static_cast<T>(wide<T>(0) - wide<T>(x));
    const T q = static_cast<T>(x / y);
    return (x % y != 0 && ((x < 0) != (y < 0))) ? static_cast<T>(q - 1) : q;
}

template <class T>
T arithmetic(BinaryOp op, T x, T y) {
    if constexpr (is_float<T>) {
        const double a = x, b = y;
        switch (op) {
            case BinaryOp::add: return static_cast<T>(a + b);
            case BinaryOp::sub: return static_cast<T>(a - b);
            case BinaryOp::mul: return static_cast<T>(a * b);
            case BinaryOp::div: return static_cast<T>(a / b);
            case BinaryOp::pow: return static_cast<T>(std::pow(a, b));
            case BinaryOp::minimum: return nan_min(x, y);
            case BinaryOp::maximum: return nan_max(x, y);
            case BinaryOp::xlogy: return a == 0 && !std::isnan(b) ? T(0) : static_cast<T>(a * std::log(b));  // scipy
            default: break;
        }
    } else if constexpr (!std::is_same_v<T, u8>) {
        switch (op) {
            case BinaryOp::add: return static_cast<T>(wide<T>(x) + wide<T>(y));
            case BinaryOp::sub: return static_cast<T>(wide<T>(x) - wide<T>(y));
            case BinaryOp::mul: return static_cast<T>(wide<T>(x) * wide<T>(y));
            case BinaryOp::div: return floor_divide(x, y);
            case BinaryOp::minimum: return std::min(x, y);
            case BinaryOp::maximum: return std::max(x, y);
            default: break;
        }
    }
    unsupported("binary", hf::op_name(op));
}

bool to_bool_result(BinaryOp op) {
    switch (op) {
        case BinaryOp::lt: case BinaryOp::le: case BinaryOp::gt: case BinaryOp::ge: case BinaryOp::eq:
        case BinaryOp::ne: case BinaryOp::logical_and: case BinaryOp::logical_or:
            return true;
        default:
            return false;
    }
}

template <class T>
u8 comparison(BinaryOp op, T x, T y) {
    switch (op) {
        case BinaryOp::lt: return x < y;
        case BinaryOp::le: return x <= y;
        case BinaryOp::gt: return x > y;
        case BinaryOp::ge: return x >= y;
        case BinaryOp::eq: return x == y;
        case BinaryOp::ne: return x != y;
        case BinaryOp::logical_and: return x != T(0) && y != T(0);
        case BinaryOp::logical_or: return x != T(0) || y != T(0);
        default: unsupported("comparison", hf::op_name(op));
    }
}

// Neumaier's compensated sum: the error does not grow with n. Infinities and NaN pass through.
template <class T>
double compensated_sum(const T* x, i64 n, i64 stride) {
    double s = 0, c = 0;
    for (i64 i = 0; i < n; ++i) {
        const double v = x[i * stride], t = s + v;
        c += std::fabs(s) >= std::fabs(v) ? (s - t) + v : (v - t) + s;
        s = t;
    }
    return std::isfinite(s) ? s + c : s;
}

template <class T>
T reduce_line(ReduceOp op, const T* x, i64 n, i64 stride) {
    if constexpr (is_float<T>) {
        if (op == ReduceOp::sum) return static_cast<T>(compensated_sum(x, n, stride));
        if (op == ReduceOp::prod) {
            double p = 1;
            for (i64 i = 0; i < n; ++i) p *= x[i * stride];
            return static_cast<T>(p);
        }
    } else {
        if (op == ReduceOp::sum || op == ReduceOp::prod) {
            wide<T> r = op == ReduceOp::sum ? 0 : 1;
            for (i64 i = 0; i < n; ++i) r = op == ReduceOp::sum ? r + wide<T>(x[i * stride]) : r * wide<T>(x[i * stride]);
            return static_cast<T>(r);
        }
    }
    T r = x[0];
    for (i64 i = 1; i < n; ++i) r = op == ReduceOp::max ? nan_max(r, x[i * stride]) : nan_min(r, x[i * stride]);
    return r;
}

// Ascending, NaN last (numpy's order).
template <class T>
bool sorts_before(T a, T b) {
    if constexpr (is_float<T>)
        if (std::isnan(b)) return !std::isnan(a);
    return a < b;
}

template <class T>
T draw(hf::RandomDist dist, std::uint64_t seed, std::uint64_t counter, T rate) {
    if constexpr (std::is_same_v<T, float>) {
        namespace rng = hf::philox32;
        if (dist == hf::RandomDist::uniform) return rng::hf_random_uniform(seed, counter);
        if (dist == hf::RandomDist::normal) return rng::hf_random_normal(seed, counter);
        return rng::hf_random_poisson(seed, counter, rate);
    } else {
        namespace rng = hf::philox64;
        if (dist == hf::RandomDist::uniform) return rng::hf_random_uniform(seed, counter);
        if (dist == hf::RandomDist::normal) return rng::hf_random_normal(seed, counter);
        return rng::hf_random_poisson(seed, counter, rate);
    }
}

}  // namespace

std::shared_ptr<hf::Storage> RefBackend::k_alloc(hf::DType dtype, i64 n) {
    return std::make_shared<HostStorage>(static_cast<std::size_t>(n) * hf::dtype_size(dtype));
}

void RefBackend::k_upload(Tensor& out, const void* host) {
    std::memcpy(values<char>(out), host, static_cast<std::size_t>(out.size()) * hf::dtype_size(out.dtype()));
    if (out.dtype() == hf::DType::boolean)
        for (i64 i = 0; i < out.size(); ++i) values<u8>(out)[i] = values<u8>(out)[i] != 0;
}

void RefBackend::k_download(const Tensor& x, void* host) {
    std::memcpy(host, values<char>(x), static_cast<std::size_t>(x.size()) * hf::dtype_size(x.dtype()));
}

void RefBackend::k_fill(Tensor& out, double value) {
    visit(out.dtype(), [&](auto t) {
        using T = typename decltype(t)::type;
        std::fill_n(values<T>(out), out.size(), convert<T>(value));
    });
}

void RefBackend::k_arange(Tensor& out) {
    visit(out.dtype(), [&](auto t) {
        using T = typename decltype(t)::type;
        for (i64 i = 0; i < out.size(); ++i) values<T>(out)[i] = convert<T>(i);
    });
}

void RefBackend::k_cast(const Tensor& x, Tensor& out) {
    visit(x.dtype(), [&](auto from) {
        visit(out.dtype(), [&](auto to) {
            using T = typename decltype(from)::type;
            using U = typename decltype(to)::type;
            for (i64 i = 0; i < x.size(); ++i) values<U>(out)[i] = convert<U>(values<T>(x)[i]);
        });
    });
}

void RefBackend::k_unary(UnaryOp op, const Tensor& x, Tensor& out) {
    visit(x.dtype(), [&](auto t) {
        using T = typename decltype(t)::type;
        const T* a = values<T>(x);
        for (i64 i = 0; i < x.size(); ++i) {
            if (op == UnaryOp::isfinite) values<u8>(out)[i] = !is_float<T> || std::isfinite(static_cast<double>(a[i]));
            else if (op == UnaryOp::logical_not) values<u8>(out)[i] = a[i] == T(0);
            else values<T>(out)[i] = unary_value(op, a[i]);
        }
    });
}

void RefBackend::k_binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out, const hf::BroadcastPlan& plan) {
    visit(a.dtype(), [&](auto t) {
        using T = typename decltype(t)::type;
        const T *x = values<T>(a), *y = values<T>(b);
        if (to_bool_result(op))
            for_each_element<2>(plan, out.size(), [&](i64 o, const std::array<i64, 2>& off) {
                values<u8>(out)[o] = comparison(op, x[off[0]], y[off[1]]);
            });
        else
            for_each_element<2>(plan, out.size(), [&](i64 o, const std::array<i64, 2>& off) {
                values<T>(out)[o] = arithmetic(op, x[off[0]], y[off[1]]);
            });
    });
}

void RefBackend::k_where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out,
                         const hf::BroadcastPlan& plan) {
    visit(a.dtype(), [&](auto t) {
        using T = typename decltype(t)::type;
        const u8* c = values<u8>(cond);
        const T *x = values<T>(a), *y = values<T>(b);
        for_each_element<3>(plan, out.size(), [&](i64 o, const std::array<i64, 3>& off) {
            values<T>(out)[o] = c[off[0]] ? x[off[1]] : y[off[2]];
        });
    });
}

void RefBackend::k_reduce(ReduceOp op, const Tensor& x, i64 outer, i64 n, i64 inner, Tensor& out) {
    visit(x.dtype(), [&](auto t) {
        using T = typename decltype(t)::type;
        for (i64 o = 0; o < outer; ++o)
            for (i64 j = 0; j < inner; ++j)
                values<T>(out)[o * inner + j] = reduce_line(op, values<T>(x) + o * n * inner + j, n, inner);
    });
}

void RefBackend::k_transpose(const Tensor& x, const std::vector<int>& perm, Tensor& out) {
    const int nd = x.ndim();
    std::vector<i64> stride(nd, 1);  // of x, row-major
    for (int d = nd - 2; d >= 0; --d) stride[d] = stride[d + 1] * x.shape()[d + 1];
    const std::size_t es = hf::dtype_size(x.dtype());
    std::vector<i64> index(nd, 0);  // over out's shape
    for (i64 o = 0; o < out.size(); ++o) {
        i64 from = 0;
        for (int d = 0; d < nd; ++d) from += index[d] * stride[perm[d]];
        std::memcpy(values<char>(out) + o * es, values<char>(x) + from * es, es);
        for (int d = nd - 1; d >= 0 && ++index[d] == out.shape()[d]; --d) index[d] = 0;
    }
}

void RefBackend::k_concat(const std::vector<Tensor>& xs, i64 outer, Tensor& out) {
    const std::size_t es = hf::dtype_size(out.dtype());
    char* o = values<char>(out);
    for (i64 r = 0; r < outer; ++r)
        for (const Tensor& x : xs) {
            const std::size_t row = static_cast<std::size_t>(outer ? x.size() / outer : 0) * es;
            std::memcpy(o, values<char>(x) + r * row, row);
            o += row;
        }
}

void RefBackend::k_gather(const Tensor& x, const Tensor& index, i64 outer, i64 n, i64 inner, Tensor& out) {
    const std::size_t block = static_cast<std::size_t>(inner) * hf::dtype_size(x.dtype());
    const i64 m = index.size();
    for (i64 j = 0; j < m; ++j)  // the kernel checks the indices: the core does not read device memory
        if (values<i64>(index)[j] < 0 || values<i64>(index)[j] >= n)
            throw hf::ShapeError("ref: gather: index " + std::to_string(values<i64>(index)[j]) + " out of range [0, " +
                                 std::to_string(n) + ")");
    for (i64 o = 0; o < outer; ++o)
        for (i64 j = 0; j < m; ++j)
            std::memcpy(values<char>(out) + (o * m + j) * block,
                        values<char>(x) + (o * n + values<i64>(index)[j]) * block, block);
}

Tensor RefBackend::k_masked_select(const Tensor& x, const Tensor& mask) {
    const u8* m = values<u8>(mask);
    const i64 count = std::count_if(m, m + mask.size(), [](u8 v) { return v != 0; });
    Tensor out = empty(x.dtype(), {count});
    const std::size_t es = hf::dtype_size(x.dtype());
    for (i64 i = 0, k = 0; i < x.size(); ++i)
        if (m[i]) std::memcpy(values<char>(out) + (k++) * es, values<char>(x) + i * es, es);
    return out;
}

void RefBackend::k_sort(const Tensor& x, i64 outer, i64 n, i64 inner, Tensor& out) {
    visit(x.dtype(), [&](auto t) {
        using T = typename decltype(t)::type;
        std::vector<T> line(static_cast<std::size_t>(n));
        for (i64 o = 0; o < outer; ++o)
            for (i64 j = 0; j < inner; ++j) {
                const i64 base = o * n * inner + j;
                for (i64 i = 0; i < n; ++i) line[i] = values<T>(x)[base + i * inner];
                std::sort(line.begin(), line.end(), sorts_before<T>);
                for (i64 i = 0; i < n; ++i) values<T>(out)[base + i * inner] = line[i];
            }
    });
}

void RefBackend::k_matmul(const Tensor& a, const Tensor& b, i64 batch, i64 m, i64 k, i64 n, bool a_batched,
                          bool b_batched, Tensor& out) {
    visit(out.dtype(), [&](auto t) {
        using T = typename decltype(t)::type;
        for (i64 s = 0; s < batch; ++s) {
            const T* x = values<T>(a) + (a_batched ? s * m * k : 0);
            const T* y = values<T>(b) + (b_batched ? s * k * n : 0);
            T* o = values<T>(out) + s * m * n;
            for (i64 i = 0; i < m; ++i)
                for (i64 j = 0; j < n; ++j) {
                    double acc = 0;
                    for (i64 p = 0; p < k; ++p) acc += static_cast<double>(x[i * k + p]) * static_cast<double>(y[p * n + j]);
                    o[i * n + j] = static_cast<T>(acc);
                }
        }
    });
}

void RefBackend::k_random(hf::RandomDist dist, const Tensor& rate, std::uint64_t seed, std::uint64_t offset,
                          Tensor& out) {
    visit(out.dtype(), [&](auto t) {
        using T = typename decltype(t)::type;
        if constexpr (is_float<T>) {
            for (i64 i = 0; i < out.size(); ++i)
                values<T>(out)[i] = draw<T>(dist, seed, offset + static_cast<std::uint64_t>(i),
                                            dist == hf::RandomDist::poisson ? values<T>(rate)[i] : T(0));
        } else {
            unsupported("random numbers of dtype", hf::dtype_name(out.dtype()));
        }
    });
}

}  // namespace ref
