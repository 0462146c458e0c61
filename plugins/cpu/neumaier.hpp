// Compensated summation in double, the one the fused likelihood's value and its input gradient both use, so that
// the gradient's value agrees with logpdf to rounding.
#pragma once

namespace hf::cpu {

// The error of each addition comes from Knuth's TwoSum, which needs no comparison of |s| and |v|: that branch went
// either way from bin to bin and was mispredicted. It is the same exact error as the compared form gives.
struct Neumaier {
    double s = 0, c = 0;
    void add(double v) {
        const double t = s + v;
        const double vv = t - s;
        c += (s - (t - vv)) + (v - vv);
        s = t;
    }
    double value() const { return s + c; }
};

}  // namespace hf::cpu
