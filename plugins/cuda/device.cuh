// Device-side helpers shared by the plugin's .cu files: launch geometry, dtype dispatch, value conversion.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels.hpp"

namespace hf::cuda {

constexpr int kThreads = 256;

// Blocks for n work items with grid-stride loops; capped so that the grid size stays in range.
inline unsigned grid_for(std::int64_t n, int threads = kThreads) {
    std::int64_t b = (n + threads - 1) / threads;
    if (b < 1) b = 1;
    if (b > (1 << 20)) b = 1 << 20;
    return static_cast<unsigned>(b);
}

#define HF_GRID_STRIDE(i, n)                                                                          \
    for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
         i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)

template <class T> struct tag { using type = T; };

// Calls f(tag<T>{}) with T the storage type of a dtype code. bool is one byte holding 0 or 1.
template <class F>
inline void dispatch(int dt, F&& f) {
    switch (dt) {
        case kF32: f(tag<float>{}); break;
        case kF64: f(tag<double>{}); break;
        case kI32: f(tag<std::int32_t>{}); break;
        case kI64: f(tag<std::int64_t>{}); break;
        default: f(tag<std::uint8_t>{}); break;
    }
}

// Calls f(tag<T>{}) with an unsigned type of the given byte size, for pure data movement.
template <class F>
inline void dispatch_size(int elem_size, F&& f) {
    switch (elem_size) {
        case 1: f(tag<std::uint8_t>{}); break;
        case 2: f(tag<std::uint16_t>{}); break;
        case 4: f(tag<std::uint32_t>{}); break;
        default: f(tag<std::uint64_t>{}); break;
    }
}

template <class T>
constexpr bool is_bool_v = std::is_same_v<T, std::uint8_t>;

template <class T>
__host__ __device__ inline T lowest_value() {
    if constexpr (std::is_floating_point_v<T>) return -INFINITY;
    else if constexpr (std::is_same_v<T, std::int32_t>) return INT32_MIN;
    else if constexpr (std::is_same_v<T, std::int64_t>) return INT64_MIN;
    else return 0;
}
template <class T>
__host__ __device__ inline T highest_value() {
    if constexpr (std::is_floating_point_v<T>) return INFINITY;
    else if constexpr (std::is_same_v<T, std::int32_t>) return INT32_MAX;
    else if constexpr (std::is_same_v<T, std::int64_t>) return INT64_MAX;
    else return 1;
}

// numpy's meaning of a conversion, without undefined behaviour: NaN and out-of-range floats saturate as the
// cpu plugin does (NaN -> the lowest integer), anything nonzero is true.
template <class U, class T>
__device__ inline U convert(T v) {
    if constexpr (is_bool_v<U>) {
        return static_cast<U>(v != T(0));
    } else if constexpr (std::is_integral_v<U> && std::is_floating_point_v<T>) {
        if (!(v == v)) return lowest_value<U>();
        if (v >= static_cast<T>(highest_value<U>())) return highest_value<U>();
        if (v <= static_cast<T>(lowest_value<U>())) return lowest_value<U>();
        return static_cast<U>(v);
    } else {
        return static_cast<U>(v);
    }
}

}  // namespace hf::cuda
