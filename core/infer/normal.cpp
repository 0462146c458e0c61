#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>

#include "hfcore/infer.hpp"

namespace hf::infer {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double normal_sf(double x) { return 0.5 * std::erfc(x / std::sqrt(2.0)); }

double normal_isf(double p) {
    if (std::isnan(p)) return p;
    if (p <= 0.0) return std::numeric_limits<double>::infinity();
    if (p >= 1.0) return -std::numeric_limits<double>::infinity();
    return std::sqrt(2.0) * boost::math::erfc_inv(2.0 * p);
}

}  // namespace hf::infer
