// One local minimisation in the scaled variables of a Problem: an NLopt quasi-Newton descent (LD_LBFGS or
// LD_SLSQP) on the analytic gradient, then a projected Newton polish with the finite-difference Hessian that also
// decides convergence (the Newton estimate of the remaining decrease, edm). fit.cpp runs them from the start of a
// fit, basin_search.cpp from the starts it places in other basins.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "infer/minimize/problem.hpp"

namespace hf::infer::detail {

enum class QuasiNewton { lbfgs, slsqp };
const char* quasi_newton_name(QuasiNewton alg);

// Ends a descent early: called with every new lowest point and its gradient (scaled), true stops (the point is
// kept).
using StopRule = std::function<bool(const std::vector<double>& y, const std::vector<double>& g)>;

// Descends from y (updated to the lowest point seen, f to its NLL). Returns a short status text.
std::string quasi_newton(Problem& p, QuasiNewton alg, std::vector<double>& y, double& f, int max_eval,
                         const StopRule& stop = {});

struct NewtonOutcome {
    double edm = std::numeric_limits<double>::infinity();
    bool converged = false;
    int iterations = 0;
};

// Projected Newton iterations with a line search from y (updated, f with it). Converged when the edm is below
// tol on a positive definite Hessian. `hints` (optional) are Hessians of earlier fits of the same problem.
NewtonOutcome newton_polish(Problem& p, std::vector<double>& y, double& f, double tol, int max_iter,
                            HessianHints* hints);

}  // namespace hf::infer::detail
