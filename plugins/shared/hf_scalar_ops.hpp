// Scalar helpers with numpy's semantics shared by the C++ plugins (cpu, and cuda host/device code).
#pragma once

#if defined(__CUDACC__)
#define HF_SCALAR_FN __host__ __device__ inline
#else
#define HF_SCALAR_FN inline
#endif

namespace hf::shared {

// numpy's integer power: exponentiation by squaring; negative exponents give 0 except for bases 1 and -1.
template <class T>
HF_SCALAR_FN T int_pow(T base, T e) {
    if (e < 0) return base == 1 ? T(1) : base == -1 ? (e % 2 ? T(-1) : T(1)) : T(0);
    T r = 1;
    while (e) {
        if (e & 1) r = static_cast<T>(r * base);
        base = static_cast<T>(base * base);
        e >>= 1;
    }
    return r;
}

}  // namespace hf::shared
