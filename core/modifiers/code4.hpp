// pyhf's code4 polynomial coefficients (alpha0 = 1): x = A^-1 b, the polynomial 1 + sum a_i alpha^i that matches
// value, slope and curvature of the exponential branches at alpha = +-1 (pyhf's interpolators/code4.py).
// A template so that the model (double) and the input gradients (core/grad, differentiable numbers) share it.
#pragma once

#include <cmath>

namespace hf::detail {

template <class T>
void code4_coefficients(const T& lo, const T& hi, T coef[6]) {
    using std::log;  // T's own log for a differentiable T, found by argument-dependent lookup
    static const double Ainv[6][6] = {
        {15.0 / 16, -15.0 / 16, -7.0 / 16, -7.0 / 16, 1.0 / 16, -1.0 / 16},
        {3.0 / 2, 3.0 / 2, -9.0 / 16, 9.0 / 16, 1.0 / 16, 1.0 / 16},
        {-5.0 / 8, 5.0 / 8, 5.0 / 8, 5.0 / 8, -1.0 / 8, 1.0 / 8},
        {-3.0 / 2, -3.0 / 2, 7.0 / 8, -7.0 / 8, -1.0 / 8, -1.0 / 8},
        {3.0 / 16, -3.0 / 16, -3.0 / 16, -3.0 / 16, 1.0 / 16, -1.0 / 16},
        {1.0 / 2, 1.0 / 2, -5.0 / 16, 5.0 / 16, 1.0 / 16, 1.0 / 16},
    };
    const T lhi = log(hi), llo = log(lo);
    const T b[6] = {hi - T(1.0), lo - T(1.0), lhi * hi, -(llo * lo), lhi * lhi * hi, llo * llo * lo};
    for (int r = 0; r < 6; ++r) {
        T s(0.0);
        for (int c = 0; c < 6; ++c) s += T(Ainv[r][c]) * b[c];
        coef[r] = s;
    }
}

}  // namespace hf::detail
