// The diagnostics' held fits in the lockstep L-BFGS engine (held_batch.cpp): K fits of one likelihood, each with some
// parameters held at given values, preconditioned by the free fit's covariance.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "infer/minimize/problem.hpp"

namespace hf::infer::detail {

// One batched solve of K held fits in the scaled variables of `p` (which frees every parameter the
// configuration does not fix), preconditioned by cov_y, the free fit's inverse Hessian in those variables [F, F].
struct HeldStart {
    std::vector<std::pair<std::size_t, double>> held;  // (index among p.free, value in x)
    std::vector<double> y;                               // start, [F]
};
struct HeldSolution {
    std::vector<double> x;  // all parameters
    double f = 0.0;         // NLL
    double edm = 0.0;
    bool converged = false;
    int iterations = 0;
    std::int64_t evaluations = 0;  // of this problem's NLL and gradient
};
std::vector<HeldSolution> solve_held_batch(const Model& model, const BoundLikelihood& data, Problem& p,
                                               const std::vector<double>& cov_y,
                                               const std::vector<HeldStart>& problems, double tol);

}  // namespace hf::infer::detail
