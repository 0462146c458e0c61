// Special functions of the `ref` backend, in double: the C library and Boost.Math, with the edge values numpy
// and scipy give (NaN outside the domain, +-inf at its ends).
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>

#include "ref_backend.hpp"

namespace ref {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSqrt2 = 1.41421356237309504880;
}  // namespace

double lgamma(double x) {
    int sign = 0;
    return ::lgamma_r(x, &sign);  // std::lgamma writes the global signgam: a data race under threads
}

double erfinv(double y) {
    if (std::isnan(y) || std::fabs(y) > 1) return kNaN;
    if (std::fabs(y) == 1) return y * kInf;
    return boost::math::erf_inv(y);
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / kSqrt2); }

// Phi^-1(p) = -sqrt(2) erfc^-1(2p); above 1/2 from the upper tail, where 1 - p is exact.
double normal_ppf(double p) {
    if (std::isnan(p) || p < 0 || p > 1) return kNaN;
    if (p == 0) return -kInf;
    if (p == 1) return kInf;
    return p <= 0.5 ? -kSqrt2 * boost::math::erfc_inv(2 * p) : kSqrt2 * boost::math::erfc_inv(2 * (1 - p));
}

}  // namespace ref
