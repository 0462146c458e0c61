// The shared Philox text (philox.h) compiled for host C++ once per precision: hf::philox64 (double) and
// hf::philox32 (float). Used by the cpu plugin and by the tests' reference generator, so both draw exactly what
// the GPU plugins draw. lgamma goes through lgamma_r: std::lgamma writes the global signgam, a data race when
// several threads draw.
#pragma once

#include <cmath>
#include <cstdint>

namespace hf::philox64 {
using hf_real = double;
using hf_u32 = std::uint32_t;
using hf_u64 = std::uint64_t;
static inline double sqrt(double x) { return std::sqrt(x); }
static inline double log(double x) { return std::log(x); }
static inline double exp(double x) { return std::exp(x); }
static inline double cos(double x) { return std::cos(x); }
static inline double floor(double x) { return std::floor(x); }
static inline double fabs(double x) { return std::fabs(x); }
static inline double lgamma(double x) {
    int sign = 0;
    return ::lgamma_r(x, &sign);
}
#define HF_FN [[maybe_unused]] static inline
#include "philox.h"
#undef HF_FN
}  // namespace hf::philox64

namespace hf::philox32 {
using hf_real = float;
using hf_u32 = std::uint32_t;
using hf_u64 = std::uint64_t;
static inline float sqrt(float x) { return std::sqrt(x); }
static inline float log(float x) { return std::log(x); }
static inline float exp(float x) { return std::exp(x); }
static inline float cos(float x) { return std::cos(x); }
static inline float floor(float x) { return std::floor(x); }
static inline float fabs(float x) { return std::fabs(x); }
static inline float lgamma(float x) {
    int sign = 0;
    return ::lgammaf_r(x, &sign);
}
#define HF_FN [[maybe_unused]] static inline
#include "philox.h"
#undef HF_FN
}  // namespace hf::philox32
