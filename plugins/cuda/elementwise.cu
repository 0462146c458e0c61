// Elementwise kernels: fill, arange, cast, unary and binary maps with broadcasting, where.
// The op is a run-time argument uniform over the grid (no divergence) so that each dtype costs one kernel,
// which keeps nvcc's time per architecture small. Semantics follow the cpu plugin (numpy's meaning).
#include "hf_scalar_ops.hpp"
#include "device.cuh"

namespace hf::cuda {
namespace {

template <class T>
__global__ void fill_kernel(T* out, std::int64_t n, T v) {
    HF_GRID_STRIDE(i, n) out[i] = v;
}

template <class T>
__global__ void arange_kernel(T* out, std::int64_t n) {
    HF_GRID_STRIDE(i, n) out[i] = static_cast<T>(i);
}

template <class T, class U>
__global__ void cast_kernel(const T* x, U* out, std::int64_t n) {
    HF_GRID_STRIDE(i, n) out[i] = convert<U>(x[i]);
}

// The normal quantile and erfinv every plugin shares (Wichura's AS241), in double.
#define hf_nq_real double
#define HF_NQ_FN __device__ inline
#include "hf_normal_quantile.h"
#undef HF_NQ_FN
#undef hf_nq_real

// Special functions in double, as the cpu plugin evaluates them, then rounded once.
__device__ inline double special_double(int op, double v) {
    switch (op) {
        case kLgamma: return lgamma(v);
        case kErf: return erf(v);
        case kErfinv: return hf_erfinv(v);
        case kNormalCdf: return normcdf(v);
        default: return hf_normal_ppf(v);  // kNormalPpf
    }
}

template <class T>
__device__ inline T unary_float(int op, T v) {
    switch (op) {
        case kNeg: return -v;
        case kAbs: return fabs(v);
        case kExp: return exp(v);
        case kLog: return log(v);
        case kSqrt: return sqrt(v);
        case kSquare: return v * v;
        case kSign: return v != v ? v : static_cast<T>((v > T(0)) - (v < T(0)));
        case kFloor: return floor(v);
        case kErf:
            if constexpr (std::is_same_v<T, float>) return erff(v);
            else return erf(v);
        default: return static_cast<T>(special_double(op, static_cast<double>(v)));
    }
}

template <class T>
__global__ void unary_float_kernel(int op, const T* x, T* out, std::int64_t n) {
    HF_GRID_STRIDE(i, n) out[i] = unary_float<T>(op, x[i]);
}

template <class T>
__global__ void unary_int_kernel(int op, const T* x, T* out, std::int64_t n) {
    HF_GRID_STRIDE(i, n) {
        T v = x[i];
        switch (op) {
            case kNeg: out[i] = static_cast<T>(-v); break;
            case kAbs: out[i] = static_cast<T>(v < 0 ? -v : v); break;
            case kSquare: out[i] = static_cast<T>(v * v); break;
            case kSign: out[i] = static_cast<T>((v > 0) - (v < 0)); break;
            default: out[i] = v; break;  // kFloor
        }
    }
}

template <class T>
__global__ void isfinite_kernel(const T* x, std::uint8_t* out, std::int64_t n) {
    HF_GRID_STRIDE(i, n) {
        if constexpr (std::is_floating_point_v<T>) out[i] = isfinite(x[i]) ? 1 : 0;
        else out[i] = 1;
    }
}

__global__ void logical_not_kernel(const std::uint8_t* x, std::uint8_t* out, std::int64_t n) {
    HF_GRID_STRIDE(i, n) out[i] = x[i] == 0 ? 1 : 0;
}

template <class T>
__device__ inline T nan_max(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (a != a) return a;
        if (b != b) return b;
    }
    return a < b ? b : a;
}
template <class T>
__device__ inline T nan_min(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (a != a) return a;
        if (b != b) return b;
    }
    return b < a ? b : a;
}

using hf::shared::int_pow;

template <class T>
__device__ inline T arith(int op, T x, T y) {
    if constexpr (std::is_floating_point_v<T>) {
        switch (op) {
            case kAdd: return x + y;
            case kSub: return x - y;
            case kMul: return x * y;
            case kDiv: return x / y;
            case kPow: return pow(x, y);
            case kMinimum: return nan_min(x, y);
            case kMaximum: return nan_max(x, y);
            default: return x == T(0) ? T(0) : x * log(y);  // kXlogy
        }
    } else if constexpr (is_bool_v<T>) {
        // bool arithmetic as numpy (+ is or, * is and), as the cpu plugin does
        switch (op) {
            case kAdd: case kMaximum: return T((x | y) != 0);
            case kMul: case kMinimum: return T((x & y) != 0);
            case kSub: return T(x != y);
            case kPow: return T(x != 0 || y == 0);
            case kDiv: return T(x != 0 && y != 0);
            default: return T(0);
        }
    } else {
        switch (op) {
            case kAdd: return static_cast<T>(x + y);
            case kSub: return static_cast<T>(x - y);
            case kMul: return static_cast<T>(x * y);
            case kDiv: {  // floor division (numpy //); division by zero gives 0
                if (y == 0) return T(0);
                if (y == -1) return static_cast<T>(-x);
                T q = static_cast<T>(x / y);
                return static_cast<T>((x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q);
            }
            case kPow: return int_pow(x, y);
            case kMinimum: return y < x ? y : x;
            case kMaximum: return x < y ? y : x;
            default:  // kXlogy
                return x == 0 ? T(0) : convert<T>(static_cast<double>(x) * log(static_cast<double>(y)));
        }
    }
}

template <class T>
__device__ inline std::uint8_t compare(int op, T x, T y) {
    switch (op) {
        case kLt: return x < y;
        case kLe: return x <= y;
        case kGt: return x > y;
        case kGe: return x >= y;
        case kEq: return x == y;
        case kNe: return x != y;
        case kLogicalAnd: return x != T(0) && y != T(0);
        default: return x != T(0) || y != T(0);  // kLogicalOr
    }
}

// Offsets of output element i in the first `nops` operands, one pass over the dimensions.
template <int NOps>
__device__ inline void bcast_offsets(const Bcast& p, std::int64_t i, std::int64_t (&off)[NOps]) {
    for (int k = 0; k < NOps; ++k) off[k] = p.trivial ? i : 0;
    if (p.trivial) return;
    for (int d = p.ndim - 1; d >= 0; --d) {
        const std::int64_t extent = p.shape[d];
        const std::int64_t idx = i % extent;
        i /= extent;
        for (int k = 0; k < NOps; ++k) off[k] += idx * p.stride[k][d];
    }
}

template <class T>
__global__ void arith_kernel(int op, const T* a, const T* b, T* out, std::int64_t n, const Bcast p) {
    HF_GRID_STRIDE(i, n) {
        std::int64_t off[2];
        bcast_offsets<2>(p, i, off);
        out[i] = arith<T>(op, a[off[0]], b[off[1]]);
    }
}

template <class T>
__global__ void compare_kernel(int op, const T* a, const T* b, std::uint8_t* out, std::int64_t n, const Bcast p) {
    HF_GRID_STRIDE(i, n) {
        std::int64_t off[2];
        bcast_offsets<2>(p, i, off);
        out[i] = compare<T>(op, a[off[0]], b[off[1]]);
    }
}

template <class T>
__global__ void where_kernel(const std::uint8_t* c, const T* a, const T* b, T* out, std::int64_t n,
                             const Bcast p) {
    HF_GRID_STRIDE(i, n) {
        std::int64_t off[3];
        bcast_offsets<3>(p, i, off);
        out[i] = c[off[0]] ? a[off[1]] : b[off[2]];
    }
}

}  // namespace

void launch_fill(cudaStream_t s, int dt, void* out, std::int64_t n, double value) {
    dispatch(dt, [&](auto t) {
        using T = typename decltype(t)::type;
        T v;
        if constexpr (is_bool_v<T>) v = value != 0.0;
        else if constexpr (std::is_floating_point_v<T>) v = static_cast<T>(value);
        else {  // saturate like convert() on the device
            if (!(value == value)) v = lowest_value<T>();
            else if (value >= static_cast<double>(highest_value<T>())) v = highest_value<T>();
            else if (value <= static_cast<double>(lowest_value<T>())) v = lowest_value<T>();
            else v = static_cast<T>(value);
        }
        fill_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<T*>(out), n, v);
    });
}

void launch_arange(cudaStream_t s, int dt, void* out, std::int64_t n) {
    dispatch(dt, [&](auto t) {
        using T = typename decltype(t)::type;
        arange_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<T*>(out), n);
    });
}

void launch_cast(cudaStream_t s, int from, const void* x, int to, void* out, std::int64_t n) {
    dispatch(from, [&](auto tf) {
        using T = typename decltype(tf)::type;
        dispatch(to, [&](auto tt) {
            using U = typename decltype(tt)::type;
            cast_kernel<T, U><<<grid_for(n), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<U*>(out), n);
        });
    });
}

bool launch_unary(cudaStream_t s, int op, int dt, const void* x, void* out, std::int64_t n) {
    bool ok = true;
    dispatch(dt, [&](auto t) {
        using T = typename decltype(t)::type;
        const T* px = static_cast<const T*>(x);
        if (op == kIsfinite) {
            isfinite_kernel<T><<<grid_for(n), kThreads, 0, s>>>(px, static_cast<std::uint8_t*>(out), n);
        } else if (op == kLogicalNot) {
            if constexpr (is_bool_v<T>)
                logical_not_kernel<<<grid_for(n), kThreads, 0, s>>>(px, static_cast<std::uint8_t*>(out), n);
            else ok = false;
        } else if constexpr (std::is_floating_point_v<T>) {
            unary_float_kernel<T><<<grid_for(n), kThreads, 0, s>>>(op, px, static_cast<T*>(out), n);
        } else if constexpr (!is_bool_v<T>) {
            if (op == kNeg || op == kAbs || op == kSquare || op == kSign || op == kFloor)
                unary_int_kernel<T><<<grid_for(n), kThreads, 0, s>>>(op, px, static_cast<T*>(out), n);
            else ok = false;
        } else {
            ok = false;
        }
    });
    return ok;
}

bool launch_binary(cudaStream_t s, int op, int dt, const void* a, const void* b, void* out, std::int64_t n,
                   const Bcast& plan) {
    if (op < kAdd || op > kLogicalOr) return false;
    dispatch(dt, [&](auto t) {
        using T = typename decltype(t)::type;
        const T* pa = static_cast<const T*>(a);
        const T* pb = static_cast<const T*>(b);
        if (op >= kLt)
            compare_kernel<T><<<grid_for(n), kThreads, 0, s>>>(op, pa, pb, static_cast<std::uint8_t*>(out), n, plan);
        else
            arith_kernel<T><<<grid_for(n), kThreads, 0, s>>>(op, pa, pb, static_cast<T*>(out), n, plan);
    });
    return true;
}

void launch_where(cudaStream_t s, int dt, const void* cond, const void* a, const void* b, void* out,
                  std::int64_t n, const Bcast& plan) {
    dispatch_size(dt == kBool ? 1 : (dt == kF32 || dt == kI32) ? 4 : 8, [&](auto t) {
        using T = typename decltype(t)::type;
        where_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<const std::uint8_t*>(cond),
                                                         static_cast<const T*>(a), static_cast<const T*>(b),
                                                         static_cast<T*>(out), n, plan);
    });
}

}  // namespace hf::cuda
