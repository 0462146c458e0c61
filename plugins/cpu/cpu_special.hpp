// Special functions of the cpu plugin, accurate to a few ulp in double. Float arguments are evaluated in
// double and rounded once, which makes the float results correctly rounded in nearly every case.
#pragma once

#include <cmath>
#include <limits>

namespace hf::cpu::special {

inline constexpr double kSqrt2 = 1.41421356237309504880;
inline constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1 / sqrt(2 pi)
inline constexpr double kTwoOverSqrtPi = 1.12837916709551257390;

// log|Gamma(x)|. lgamma_r: std::lgamma writes the global signgam, a data race under threads.
inline double lgamma(double x) {
    int sign = 0;
    return ::lgamma_r(x, &sign);
}

inline double normal_cdf(double x) { return 0.5 * std::erfc(-x / kSqrt2); }

// Starting point for the lower half of the normal quantile: Acklam's rational approximation
// (relative error below 1.2e-9), then refined by Halley steps on the exact CDF.
inline double acklam_lower(double p) {
    static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                   1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
    static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                   6.680131188771972e+01,  -1.328068155288572e+01};
    static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                   -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
    static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                   3.754408661907416e+00};
    if (p < 0.02425) {
        double q = std::sqrt(-2.0 * std::log(p));
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    }
    double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

// Normal quantile for p in (0, 0.5]: refinement uses erfc, which keeps full relative accuracy in the tail.
inline double normal_ppf_lower(double p) {
    double x = acklam_lower(p);
    for (int i = 0; i < 2; ++i) {
        double f = 0.5 * std::erfc(-x / kSqrt2) - p;
        double dens = kInvSqrt2Pi * std::exp(-0.5 * x * x);
        if (!(dens > 0)) break;
        double u = f / dens;
        x -= u / (1.0 + 0.5 * x * u);  // Halley: f''/f' = -x
    }
    return x;
}

inline double normal_ppf(double p) {
    if (std::isnan(p) || p < 0.0 || p > 1.0) return std::numeric_limits<double>::quiet_NaN();
    if (p == 0.0) return -std::numeric_limits<double>::infinity();
    if (p == 1.0) return std::numeric_limits<double>::infinity();
    if (p <= 0.5) return normal_ppf_lower(p);
    return -normal_ppf_lower(1.0 - p);  // 1 - p is exact for p >= 0.5 (Sterbenz)
}

// Inverse error function. Near 0: Maclaurin start refined on erf; towards +-1: start from the normal quantile
// of (1 - |y|) / 2 (exact) refined on erfc, so that erfinv(1 - 1e-15) keeps its digits.
inline double erfinv(double y) {
    if (std::isnan(y) || y < -1.0 || y > 1.0) return std::numeric_limits<double>::quiet_NaN();
    if (y == 1.0) return std::numeric_limits<double>::infinity();
    if (y == -1.0) return -std::numeric_limits<double>::infinity();
    double a = std::fabs(y), x;
    if (a <= 0.5) {
        // sqrt(pi)/2 (a + pi/12 a^3 + 7 pi^2/480 a^5 + 127 pi^3/40320 a^7 + 4369 pi^4/5806080 a^9)
        double a2 = a * a;
        x = 0.88622692545275801365 * a *
            (1.0 + a2 * (0.26179938779914943654 +
                         a2 * (0.14393173084921978 + a2 * (0.09766361950392052 + a2 * 0.07329907936638086))));
        for (int i = 0; i < 3; ++i) {
            double f = std::erf(x) - a;
            double u = f / (kTwoOverSqrtPi * std::exp(-x * x));
            x -= u / (1.0 + x * u);  // Halley: f''/(2 f') = -x
        }
    } else {
        double q = 1.0 - a;  // exact
        x = -normal_ppf_lower(0.5 * q) / kSqrt2;
        for (int i = 0; i < 2; ++i) {
            double fp = kTwoOverSqrtPi * std::exp(-x * x);
            if (!(fp > 0)) break;
            double u = (q - std::erfc(x)) / fp;  // f = erf(x) - a = q - erfc(x)
            x -= u / (1.0 + x * u);
        }
    }
    return y < 0 ? -x : x;
}

}  // namespace hf::cpu::special
