// Special functions of the cpu plugin, accurate to a few ulp in double. Float arguments are evaluated in
// double and rounded once, which makes the float results correctly rounded in nearly every case.
#pragma once

#include <cmath>

namespace hf::cpu::special {

inline constexpr double kSqrt2 = 1.41421356237309504880;

// log|Gamma(x)|. lgamma_r: std::lgamma writes the global signgam, a data race under threads.
inline double lgamma(double x) {
    int sign = 0;
    return ::lgamma_r(x, &sign);
}

inline double normal_cdf(double x) { return 0.5 * std::erfc(-x / kSqrt2); }

// The normal quantile and erfinv: Wichura's AS241, the routine every plugin shares (plugins/shared/).
#define hf_nq_real double
#define HF_NQ_FN inline
#include "hf_normal_quantile.h"
#undef HF_NQ_FN
#undef hf_nq_real

inline double normal_ppf(double p) { return hf_normal_ppf(p); }
inline double erfinv(double y) { return hf_erfinv(y); }

}  // namespace hf::cpu::special
