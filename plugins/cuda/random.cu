// Random numbers from the shared Philox text (plugins/shared/philox.h), once per precision. This file is
// compiled with --fmad=false: the cpu plugin's x86-64 build never contracts a*b+c into an FMA, and
// contraction here would change the last bits of uniforms, normals and PTRS decisions.
#include "device.cuh"

namespace hf::cuda {

#define HF_FN __host__ __device__ inline

namespace rng64 {
typedef double hf_real;
typedef std::uint32_t hf_u32;
typedef std::uint64_t hf_u64;
#include "philox.h"
}  // namespace rng64

namespace rng32 {
typedef float hf_real;
typedef std::uint32_t hf_u32;
typedef std::uint64_t hf_u64;
// The single-precision functions by name, as the cpu plugin calls them, never the double overloads.
HF_FN float sqrt(float x) { return sqrtf(x); }
HF_FN float log(float x) { return logf(x); }
HF_FN float exp(float x) { return expf(x); }
HF_FN float cos(float x) { return cosf(x); }
HF_FN float floor(float x) { return floorf(x); }
HF_FN float fabs(float x) { return fabsf(x); }
HF_FN float lgamma(float x) { return lgammaf(x); }
#include "philox.h"
}  // namespace rng32

#undef HF_FN

namespace {

template <class T>
__device__ inline T draw(int dist, std::uint64_t seed, std::uint64_t counter, T lam) {
    if constexpr (std::is_same_v<T, float>) {
        if (dist == kUniform) return rng32::hf_random_uniform(seed, counter);
        if (dist == kNormal) return rng32::hf_random_normal(seed, counter);
        return rng32::hf_random_poisson(seed, counter, lam);
    } else {
        if (dist == kUniform) return rng64::hf_random_uniform(seed, counter);
        if (dist == kNormal) return rng64::hf_random_normal(seed, counter);
        return rng64::hf_random_poisson(seed, counter, lam);
    }
}

template <class T>
__global__ void random_kernel(int dist, const T* rate, std::uint64_t seed, std::uint64_t offset, T* out,
                              std::int64_t n) {
    HF_GRID_STRIDE(i, n) {
        const T lam = rate ? rate[i] : T(0);
        out[i] = draw<T>(dist, seed, offset + static_cast<std::uint64_t>(i), lam);
    }
}

}  // namespace

void launch_random(cudaStream_t s, int dist, int dt, const void* rate, std::uint64_t seed, std::uint64_t offset,
                   void* out, std::int64_t n) {
    if (dt == kF32)
        random_kernel<float><<<grid_for(n), kThreads, 0, s>>>(dist, static_cast<const float*>(rate), seed, offset,
                                                              static_cast<float*>(out), n);
    else
        random_kernel<double><<<grid_for(n), kThreads, 0, s>>>(dist, static_cast<const double*>(rate), seed,
                                                               offset, static_cast<double*>(out), n);
}

}  // namespace hf::cuda
