// A fit's own curvature for the batched fits: the Fisher information of its likelihood where it stands, J^T W J
// over the main bins (J the Jacobian of the expected counts, from the plugin) plus the constraints' diagonal, in
// scaled variables, applied in Woodbury form.
//
// The batch's fixed curvature (inverse_hessian.hpp) is the Asimov Hessian at the toys' truth. Where a model's
// curvature moves with the parameters (normsys with independent up and down factors), toys whose minima lie
// elsewhere step with the wrong metric, which L-BFGS with few pairs learns slowly; the Fisher information where a
// toy stands is close to its Hessian there (docs/decisions/batch-fit-own-curvature.md).
#pragma once

#include <cstddef>
#include <vector>

#include "hfcore/model.hpp"
#include "infer/minimize/problem.hpp"

namespace hf::infer::detail {

class OwnFisher {
public:
    // Curvature given to a parameter without a constraint in place of the constraint's (scaled units, where a
    // constraint gives ~1): the Woodbury form needs D invertible, and 1e-3 next to the data's curvature changes
    // little in a step.
    static constexpr double kMinCurvature = 1e-3;

    OwnFisher() = default;
    // The Fisher information of problem p at each of the points ys (scaled variables; the information is the
    // expected one, so p's data are not used): one expected_main_jacobian and one expected_data call for all.
    // Empty where it is not finite or a bin expects no events.
    static std::vector<OwnFisher> at(const Model& model, const Problem& p,
                                       const std::vector<const std::vector<double>*>& ys);

    bool empty() const { return nf_ == 0; }
    // q <- (H_FF)^-1 q_F on the components with free[i] != 0 (the rest become 0). False (q unchanged) when the
    // factorisation fails; the curvature is then empty.
    bool apply(const char* free, double* q);
    // apply(free, q), and form = v_F^T (H_FF)^-1 v_F from the same pass over the factor: what the matrix says
    // of a step's curvature, by which batch_fit.cpp scales it. v may be null (no form).
    bool apply_with_form(const char* free, double* q, const double* v, double& form);
    // The parts of H^-1 = D^-1 - Y^T Y with every component free: D^-1 [nf] and Y [rows, nf], rows the main
    // bins. False when the factorisation fails (the curvature is then empty).
    bool woodbury_parts(std::vector<double>& dinv, std::vector<double>& y, std::size_t& rows);

private:
    bool factorise(const char* free);
    // Factorised for this mask (factorise when it is not): false when that fails, and the curvature is then empty.
    bool factorised_for(const char* free);

    std::size_t nf_ = 0, nb_ = 0;
    std::vector<double> u_;      // [nb, nf]: W^(1/2) J, main bins by free parameters (scaled)
    std::vector<double> dinv_;   // [nf]: 1 / the constraints' curvature (floored: free parameters have none)
    std::vector<char> mask_;     // the free components of the factor below
    std::vector<double> y_;      // [nb, nf]: H_FF^-1 = D_F^-1 - Y^T Y (factorise)
    std::vector<double> t_;      // scratch
};

}  // namespace hf::infer::detail
