// The shared formulas of plugins/shared/hf_likelihood_math.h for the cpu plugin, once per precision (lm64,
// lm32), and Math<R> to reach them from code templated on the precision.
#pragma once

#include <cmath>

#include "special.hpp"

namespace hf::cpu {

// The shared interpolation formulas, once per precision.
namespace lm64 {
using hf_real = double;
inline double exp(double x) { return std::exp(x); }
inline double log(double x) { return std::log(x); }
inline double lgamma(double x) { return special::lgamma(x); }
#define HF_FN [[maybe_unused]] inline
#define HF_GLOBAL
#include "hf_likelihood_math.h"
#undef HF_GLOBAL
#undef HF_FN
}  // namespace lm64

namespace lm32 {
using hf_real = float;
inline float exp(float x) { return std::exp(x); }
inline float log(float x) { return std::log(x); }
inline float lgamma(float x) { return static_cast<float>(special::lgamma(x)); }
#define HF_FN [[maybe_unused]] inline
#define HF_GLOBAL
#include "hf_likelihood_math.h"
#undef HF_GLOBAL
#undef HF_FN
}  // namespace lm32

template <class R>
struct Math;
template <>
struct Math<double> {
    static double fexp(double a, double log_base, double* df) { return lm64::hf_factor_exp(a, log_base, df); }
    static double code4_poly(double a, const double* c, double* df) { return lm64::hf_factor_code4_poly(a, c, df); }
    static void delta_weights(int kind, double a, double* w) { lm64::hf_delta_weights(kind, a, w); }
    static double xlogy(double x, double y) { return lm64::hf_xlogy(x, y); }
};
template <>
struct Math<float> {
    static float fexp(float a, float log_base, float* df) { return lm32::hf_factor_exp(a, log_base, df); }
    static float code4_poly(float a, const float* c, float* df) { return lm32::hf_factor_code4_poly(a, c, df); }
    static void delta_weights(int kind, float a, float* w) { lm32::hf_delta_weights(kind, a, w); }
    static float xlogy(float x, float y) { return lm32::hf_xlogy(x, y); }
};
}  // namespace hf::cpu
