// A fit problem in scaled variables: the free parameters x_i = x0_i + s_i * y_i, where s_i is the width of the
// parameter's constraint (normal sigma, 1/sqrt(tau) for Poisson constraints, 1 for free parameters), so that
// every direction has a curvature of order one. Without it, staterror/shapesys widths of 1e-6 next to
// normfactors of order one stall quasi-Newton fits (pyhf's default SLSQP fit stops at its starting point on the
// ATLAS 3L eRJR likelihoods).
#pragma once

#include <cstdint>
#include <vector>

#include "hfcore/infer_advanced.hpp"

namespace hf::infer::detail {

class Lockstep;

struct Problem {
    const Model* model = nullptr;
    BoundLikelihood lik;             // the model bound to the data [N + A], once per problem
    std::vector<int> free;           // indices of the free parameters
    std::vector<double> x0;          // [P]; fixed parameters keep these values
    std::vector<double> scale;       // [F]
    std::vector<double> lo, hi;      // [F] bounds in y
    std::int64_t n_eval = 0;
    bool single_precision = false;
    // Set while the problem's routine runs in a Lockstep (routines_on_fibers.hpp): its backend work goes there.
    Lockstep* lockstep = nullptr;

    std::size_t nfree() const { return free.size(); }
    std::vector<double> to_x(const std::vector<double>& y) const;
    void to_x(const std::vector<double>& y, double* x) const;  // into x[P] (no allocation)
    std::vector<double> to_y(const std::vector<double>& x) const;

    // NLL = -logpdf at y and its gradient with respect to y. Non-finite values are returned as they are.
    double nll(const std::vector<double>& y, std::vector<double>* grad_y);
    // Gradients for a batch of K points y [K][F] in one evaluation: returns NLL [K], grads [K*F].
    std::vector<double> nll_batch(const std::vector<std::vector<double>>& ys, std::vector<double>* grads);
    // Finite-difference Hessian of the NLL in y (central differences of the analytic gradient, one-sided at
    // the bounds), symmetrised. [F*F].
    std::vector<double> hessian(const std::vector<double>& y);
    // The same from forward differences against the gradient g at y: half the evaluations, error of order the
    // step (1e-5 relative), which the Newton polish tolerates; reported uncertainties use hessian().
    std::vector<double> hessian_forward(const std::vector<double>& y, const std::vector<double>& g);
};

// Builds the scaled problem; `config` must be resolved (validated, full length).
Problem make_problem(const Model& model, const BoundLikelihood& lik, const FitConfig& config);
// The same binding `data` (an undefined tensor: a problem without data, for its scales and bounds alone).
Problem make_problem(const Model& model, const Tensor& data, const FitConfig& config);

// The Hessian uncertainties and correlations of a fit at y, its minimum, into r (every parameter; fixed ones
// get 0), as fit() reports them (infer/fit.cpp).
void add_uncertainties(Problem& p, const std::vector<double>& y, FitResult& r);

// Scaled widths of every parameter, [P].
std::vector<double> parameter_scales(const Model& model);

// Projected gradient: zero for components at a bound whose gradient pushes outward.
void project_gradient(const std::vector<double>& y, const std::vector<double>& g, const std::vector<double>& lo,
                      const std::vector<double>& hi, std::vector<double>& pg);

inline double default_tolerance(const Model& model) {
    return model.backend()->precision() == Precision::f32 ? 1e-4 : 1e-9;
}

}  // namespace hf::infer::detail
