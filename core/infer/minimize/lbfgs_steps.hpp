// Two steps of the L-BFGS fits (held_batch.cpp, and batch_fit.cpp's skip rule): the backtracking line search's
// next trial step, and the history update that skips a pair without curvature.
#pragma once

#include <cmath>
#include <cstddef>
#include <deque>
#include <utility>
#include <vector>

#include "numerics/dense.hpp"

namespace hf::infer::detail {

// The next trial step of a backtracking line search after step t failed with value fn (f0 and slope gd at
// t = 0): the minimum of the quadratic through them, kept within [0.1, 0.5] of t (half of t when fn is not finite).
inline double backtrack_step(double t, double f0, double fn, double gd) {
    double tn = 0.5 * t;
    if (std::isfinite(fn)) {
        const double denom = 2.0 * (fn - f0 - t * gd);
        if (denom > 0) tn = std::fmin(std::fmax(-gd * t * t / denom, 0.1 * t), 0.5 * t);
    }
    return tn;
}

// Appends the step s and gradient change y to an L-BFGS history when their curvature s.y is positive beyond
// rounding, keeping the last `memory` pairs (rho = 1 / s.y).
inline void lbfgs_push(std::deque<std::vector<double>>& s_mem, std::deque<std::vector<double>>& y_mem,
                       std::deque<double>& rho, std::vector<double> s, std::vector<double> y, std::size_t memory) {
    const std::size_t n = s.size();
    const double sy = numerics::dot(s.data(), y.data(), n);
    const double ss = numerics::dot(s.data(), s.data(), n), yy = numerics::dot(y.data(), y.data(), n);
    if (!(sy > 1e-10 * std::sqrt(ss * yy))) return;
    s_mem.push_back(std::move(s));
    y_mem.push_back(std::move(y));
    rho.push_back(1.0 / sy);
    if (s_mem.size() > memory) {
        s_mem.pop_front();
        y_mem.pop_front();
        rho.pop_front();
    }
}

}  // namespace hf::infer::detail
