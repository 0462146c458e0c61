// The HistFactory interpolation codes written from their definitions, in long double, for the tests: the
// reference that plugins/shared/hf_likelihood_math.h (what every plugin runs) and core's Tier 1 fallback are
// compared with. Deliberately written here and not included from the plugins: a test that takes its reference
// from the code under test cannot fail. tests/conformance/test_interpolation.cpp checks these against pyhf's
// own numbers (tests/reference/interpolation/pyhf_interpolators.json).
#pragma once

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace hf::test::interp {

struct ValueSlope {
    long double value = 0, slope = 0;  // f(alpha) and df/dalpha
};

// The sixth-order polynomial p(a) = sum_{i=1..6} c[i-1] a^i with value, slope and curvature given at a = +1
// (vp, dp, kp) and a = -1 (vm, dm, km): how code4 and code4p join their outer branches smoothly. Split into
// its even part E (a^2, a^4, a^6) and odd part O (a, a^3, a^5); each is fixed by its value, slope and curvature
// at a = 1, three linear equations solved by hand:
//   E: e0 = (vp + vm)/2, e1 = (dp - dm)/2, e2 = (kp + km)/2;  O: o0 = (vp - vm)/2, o1 = (dp + dm)/2, o2 = (kp - km)/2
inline std::array<long double, 6> join_polynomial(long double vp, long double dp, long double kp, long double vm,
                                                  long double dm, long double km) {
    const long double e0 = (vp + vm) / 2, e1 = (dp - dm) / 2, e2 = (kp + km) / 2;
    const long double o0 = (vp - vm) / 2, o1 = (dp + dm) / 2, o2 = (kp - km) / 2;
    std::array<long double, 6> c{};
    c[0] = (15 * o0 - 7 * o1 + o2) / 8;
    c[2] = (-5 * o0 + 5 * o1 - o2) / 4;
    c[4] = (3 * o0 - 3 * o1 + o2) / 8;
    c[1] = (24 * e0 - 9 * e1 + e2) / 8;
    c[3] = (-12 * e0 + 7 * e1 - e2) / 4;
    c[5] = (8 * e0 - 5 * e1 + e2) / 8;
    return c;
}

inline ValueSlope polynomial(const long double* c, long double a) {
    ValueSlope r;
    long double power = 1;  // a^(i-1)
    for (int i = 1; i <= 6; ++i) {
        r.slope += i * c[i - 1] * power;
        power *= a;
        r.value += c[i - 1] * power;
    }
    return r;
}

// base^|alpha| for the side alpha is on: the exponential branch of code1 and code4.
inline ValueSlope exponential(long double alpha, long double lo, long double hi) {
    const long double lb = alpha >= 0 ? std::log(hi) : -std::log(lo);
    const long double f = std::exp(alpha * lb);
    return {f, f * lb};
}

// normsys code4 with the polynomial coefficients given (tables built elsewhere): 1 + sum c_i alpha^i inside
// |alpha| < 1, exponential outside.
inline ValueSlope normsys_code4_with(const long double* c, long double alpha, long double lo, long double hi) {
    if (std::fabs(alpha) >= 1) return exponential(alpha, lo, hi);
    ValueSlope p = polynomial(c, alpha);
    p.value += 1;
    return p;
}

// The code4 coefficients pyhf derives from lo and hi (alpha0 = 1): the polynomial meets lo^-alpha and hi^alpha at
// alpha = -1 and +1 with equal value, slope and curvature.
inline std::array<long double, 6> code4_coefficients(long double lo, long double hi) {
    const long double lh = std::log(hi), ll = std::log(lo);
    return join_polynomial(hi - 1, hi * lh, hi * lh * lh, lo - 1, -lo * ll, lo * ll * ll);
}

// Multiplicative normsys factor of (lo, hi) at alpha. code1: piecewise exponential, hi^alpha / lo^-alpha (the
// slope at the kink alpha = 0 is the right-hand one, hfcore's documented convention). code4: code1 outside
// |alpha| < 1, the joining polynomial inside.
inline ValueSlope normsys(const std::string& code, long double alpha, long double lo, long double hi) {
    if (code == "code1") return exponential(alpha, lo, hi);
    if (code == "code4") {
        const auto c = code4_coefficients(lo, hi);
        return normsys_code4_with(c.data(), alpha, lo, hi);
    }
    throw std::invalid_argument("no normsys interpolation " + code);
}

// Additive histosys delta of a bin (lo, nom, hi) at alpha, up = hi - nom, dn = nom - lo.
// code0: piecewise linear, alpha*up above 0 and alpha*dn below (right-hand slope at the kink).
// code2: pyhf's quadratic a alpha^2 + b alpha inside |alpha| <= 1 (a = (hi + lo)/2 - nom, b = (hi - lo)/2) and, as
//        pyhf's tensorised code computes them, (b + 2a)(alpha - 1) above 1 and (b - 2a) alpha below -1 (these do
//        not meet the quadratic at +-1; hfcore follows pyhf).
// code4p: alpha*up above 1, alpha*dn below -1, inside the polynomial meeting both lines with equal value, slope
//         and zero curvature at +-1.
inline ValueSlope histosys(const std::string& code, long double alpha, long double lo, long double nom,
                           long double hi) {
    const long double up = hi - nom, dn = nom - lo;
    if (code == "code0") return alpha >= 0 ? ValueSlope{alpha * up, up} : ValueSlope{alpha * dn, dn};
    if (code == "code2") {
        const long double a = (hi + lo) / 2 - nom, b = (hi - lo) / 2;
        if (alpha > 1) return {(b + 2 * a) * (alpha - 1), b + 2 * a};
        if (alpha >= -1) return {a * alpha * alpha + b * alpha, 2 * a * alpha + b};
        return {(b - 2 * a) * alpha, b - 2 * a};
    }
    if (code == "code4p") {
        if (alpha > 1) return {alpha * up, up};
        if (alpha < -1) return {alpha * dn, dn};
        const auto c = join_polynomial(up, up, 0, -dn, dn, 0);
        return polynomial(c.data(), alpha);
    }
    throw std::invalid_argument("no histosys interpolation " + code);
}

}  // namespace hf::test::interp
