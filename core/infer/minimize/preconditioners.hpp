// The lockstep engine's initial inverse Hessians (lockstep_lbfgs.hpp, Preconditioner):
//   - SharedThenOwnCurvature, the toys': one Asimov curvature for the whole batch (inverse_hessian.hpp), replaced
//     near its minimum by each toy's own Fisher information (own_fisher.hpp);
//   - CovarianceSchur, the held fits': the free fit's covariance restricted to a problem's free components.
#pragma once

#include <cstddef>
#include <vector>

#include "infer/minimize/inverse_hessian.hpp"
#include "infer/minimize/lockstep_lbfgs.hpp"
#include "infer/minimize/own_fisher.hpp"

namespace hf {
class Model;
}

namespace hf::infer::detail {

struct Problem;

// A minimum a lane's problem already has from another start (the toys' basin search and second starts), in
// scaled variables, and what the lane's start moved to leave it.
struct KnownMinimum {
    std::vector<double> y;  // empty: none
    double f = 0.0;
    bool reached = false;  // the descent ended there (the result is that minimum, as given)
    int moved = -1;        // the multimodal parameter the start moved (-1: none)
};

// The toys' curvature. The recursion starts from one inverse Hessian for the whole batch, taken at the toys'
// truth (docs/decisions/batch-fit-shared-curvature.md); a lane whose first step from it was cut below half stops
// using it (the likelihood is far from quadratic between its start and its minimum, and the fixed matrix, which
// L-BFGS corrects only in the directions it has stepped, then slows it down). Near its minimum a first descent
// switches to its own curvature. Either matrix is shrunk where the steps show far more curvature than it holds.
class SharedThenOwnCurvature : public Preconditioner {
public:
    // own_curvature: take the lanes' own Fisher information (first descents, where the plugin's Jacobian is
    // native). known: per lane, for the secant scaling of a basin search's first step (may be null).
    SharedThenOwnCurvature(const Model& model, const Problem& p, InverseHessian& shared, bool own_curvature,
                           std::size_t lanes, const std::vector<KnownMinimum>* known);
    void prepare(const std::vector<int>& running, std::vector<Lane>& lanes) override;
    void apply(const int* ks, int count, std::vector<Lane>& lanes, bool* applied) override;
    void step_taken(int k, const Lane& lane) override;

private:
    bool secant_start(int k, const Lane& s) const;
    const Model& model_;
    const Problem& p_;
    InverseHessian& shared_;
    bool own_curvature_;
    const std::vector<KnownMinimum>* known_;
    std::vector<OwnFisher> own_;
    std::vector<char> own_taken_, use_shared_;
    // scratch
    std::vector<int> to_take_;
    std::vector<const std::vector<double>*> ys_;
    std::vector<const char*> free_;
    std::vector<double*> q_;
    std::vector<const double*> y_new_;
    std::vector<char> applied_;
    std::vector<double> forms_;
};

// The held fits' curvature: the free fit's inverse Hessian C in scaled variables restricted to a lane's free
// components F,
//     M = C_FF - C_FA C_AA^-1 C_AF      (A = held and bound-active components),
// the exact inverse of the Hessian block H_FF at the free minimum (Schur complement), so that a fit displaced by
// a fraction of a standard deviation converges in a few steps, and far ones still take Newton-sized steps.
class CovarianceSchur : public Preconditioner {
public:
    CovarianceSchur(const std::vector<double>& cov, std::size_t nf, std::size_t lanes);
    void free_set_changed(int k, const Lane& lane) override;
    void apply(const int* ks, int count, std::vector<Lane>& lanes, bool* applied) override;
    bool apply_alone(int k, const Lane& lane, std::vector<double>& q) override;

private:
    const std::vector<double>& cov_;
    std::size_t nf_;
    std::vector<std::vector<std::size_t>> active_;  // per lane
    std::vector<std::vector<double>> caa_factor_;   // per lane: Cholesky factor of C_AA
    std::vector<char> factored_;                    // per lane: caa_factor_ is that of active_
    std::vector<std::size_t> scratch_active_;
    std::vector<double> r_;                         // apply_alone's product, kept for its capacity
};

}  // namespace hf::infer::detail
