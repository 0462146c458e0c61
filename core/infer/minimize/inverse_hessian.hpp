// A fixed inverse-Hessian estimate for the batched toy fits: the initial matrix of their L-BFGS recursion in
// place of a multiple of the identity.
//
// Toys are drawn around known parameters, so one curvature serves all of them: the Hessian of the NLL of the
// Asimov data at the start point (the Fisher information there), from one batched evaluation of forward
// differences. With it the first step is a Newton step and L-BFGS only corrects how each toy's curvature
// differs, where with gamma * I it would first have to learn a curvature that is the identity in the constraint
// directions plus a handful of dominant directions from the main bins
// (docs/decisions/batch-fit-shared-curvature.md).
//
// Where the plugin's Jacobian of the expected counts is native, the Hessian is the Fisher information from it
// (own_fisher.hpp; at Asimov data the two are equal), and the problems with every component free apply its
// inverse in Woodbury form, D^-1 - Y^T Y: two passes over a bins x parameters matrix instead of one over a
// parameters x parameters one, where the bins are fewer than half the parameters.
#pragma once

#include <cstddef>
#include <vector>

#include "hfcore/model.hpp"
#include "infer/minimize/problem.hpp"

namespace hf::infer::detail {

class InverseHessian {
public:
    InverseHessian() = default;
    // The estimate at y0 of problem p (p's own data are not used). Empty (apply() returns false) when the
    // curvature is not finite or not positive definite after a shift.
    static InverseHessian at_asimov(const Model& model, const Problem& p, const std::vector<double>& y0);

    bool empty() const { return n_ == 0; }
    // q <- (H_FF)^-1 q_F on the components with free[i] != 0 (the rest become 0): the inverse of the Hessian
    // restricted to the free components, from the full inverse by a Schur complement over the bound-active
    // ones. False (q unchanged) when too many are bound-active for that to be cheap. With v, also
    // form = v_F^T (H_FF)^-1 v_F (what the matrix says of a step's curvature, by which batch_fit.cpp scales it),
    // from the same Schur factor.
    bool apply(const char* free, double* q, const double* v = nullptr, double* form = nullptr);
    // apply(free[t], q[t]) for every t, into applied[t]; the problems with every component free share the reads
    // of the matrix, four at a time. Where v is not empty, forms[t] as apply's form for each v[t] that is not
    // null (not a number for the others and where applied[t] is 0).
    void apply_many(const std::vector<const char*>& free, const std::vector<double*>& q, std::vector<char>& applied,
                    const std::vector<const double*>& v = {}, std::vector<double>* forms = nullptr);

private:
    static InverseHessian from_fisher(const Model& model, const Problem& p, const std::vector<double>& y0);
    static InverseHessian from_differences(const Model& model, const Problem& p, const std::vector<double>& y0);
    void full_product(const double* const* in, double* const* out, int count);
    void full_forms(const double* const* v, int count, double* out);
    // r <- r - M_FA (M_AA)^-1 r_A on the free components, with the factor of M_AA in maa_
    void schur_correct(const char* free, std::vector<double>& r);

    std::size_t n_ = 0;
    std::vector<double> inv_;  // [n, n] row-major
    std::size_t rows_ = 0;     // Woodbury form, when there is one: rows_ = 0 where not
    std::vector<double> dinv_, y_;
    // Scratch of apply(), kept for its capacity (one InverseHessian per batched fit, used by one thread).
    std::vector<double> r_, r2_, v_masked_, maa_, w_, many_, rows_scratch_;
    std::vector<std::size_t> active_;
};

}  // namespace hf::infer::detail
