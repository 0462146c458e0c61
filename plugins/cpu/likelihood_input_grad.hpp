// The cpu plugin's FusedLikelihood::input_gradient: d logpdf / d the packed likelihood's own arrays
// (PackedGradient), one point at a time, by hand-written reverse mode over the CSR arrays as they were packed.
// The forward kernel (likelihood_model.hpp) deduplicates normsys terms and folds histosys bins into per-parameter
// weights, which loses the one-entry-per-array-element view the input gradient needs; this kernel keeps the
// packed arrays and walks them once per point, in double whatever the backend precision.
#pragma once

#include <cstdint>
#include <vector>

#include "hfcore/plugin/likelihood.hpp"

namespace hf::cpu {

// One point's output rows (each of its array's length), in the backend's precision R.
template <class R>
struct PackedGradientRow {
    R* value;
    R *pars, *elem_nominal, *factor_lo, *factor_hi, *factor_coef, *delta_lo, *delta_nom, *delta_hi, *gauss_sigma,
        *pois_tau, *data;
};

// Per-thread working memory of PackedInputGradient::point.
struct InputGradScratch {
    std::vector<double> fv, dfa, dlo, dhi, base, prodf, rate, wbin, pre;
};

class PackedInputGradient {
public:
    explicit PackedInputGradient(const PackedLikelihood& packed) : pk_(packed) {}

    // logpdf and its partials at one point: par [P], data [N + A].
    template <class R>
    void point(const R* par, const R* data, const PackedGradientRow<R>& out, InputGradScratch& s) const;
    // d (cot_main . rate + cot_aux . expected aux) at one point: par [P], cot_main [N], cot_aux [A]; out.value
    // untouched.
    template <class R>
    void vjp_point(const R* par, const R* cot_main, const R* cot_aux, const PackedGradientRow<R>& out,
                   InputGradScratch& s) const;

    const PackedLikelihood& packed() const { return pk_; }  // the arrays' sizes, for the output tensors

private:
    template <class R>
    void forward(const R* par, InputGradScratch& s) const;
    template <class R>
    void reverse_elements(const R* par, const PackedGradientRow<R>& out, InputGradScratch& s) const;

    PackedLikelihood pk_;
};

}  // namespace hf::cpu
