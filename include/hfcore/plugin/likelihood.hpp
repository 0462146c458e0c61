// The compiled HistFactory likelihood as flat arrays (PackedLikelihood), and the Tier 2 interface that
// evaluates it for K parameter points at once (FusedLikelihood).
//
// Expected main rate of bin b:   rate[b] = sum over elements e with elem_bin[e] == b of
//     (elem_nominal[e] + sum of its additive deltas) * (product of its multiplicative factors)
// logpdf = sum_b [ xlogy(n_b, rate_b) - rate_b - lgamma(n_b + 1) ]
//        + sum over Gaussian constraints   [ -0.5 ((aux - par)/sigma)^2 - log(sigma) - 0.5 log(2 pi) ]
//        + sum over Poisson constraints    [ xlogy(aux, tau par) - tau par - lgamma(aux + 1) ]
// Data layout: [n_main observed counts, n_aux auxiliary data], as pyhf's Model.logpdf.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "hfcore/backend.hpp"

namespace hf {

class Model;

// Multiplicative factor kinds. alpha = pars[factor_par].
enum FactorKind : std::int32_t {
    kFactorLinear = 0,        // f = alpha                       (normfactor, lumi, shapefactor, shapesys, staterror)
    kFactorNormsysCode1 = 1,  // f = hi^alpha (alpha>=0), lo^-alpha (alpha<0)
    kFactorNormsysCode4 = 4,  // exponential for |alpha|>=1, 1 + sum_{i=1..6} coef[i-1] alpha^i inside
};

// Additive delta kinds (histosys). alpha = pars[delta_par]; lo/nom/hi are the histosys templates of the bin.
enum DeltaKind : std::int32_t {
    kDeltaCode0 = 0,   // piecewise linear
    kDeltaCode2 = 2,   // quadratic inside, linear outside
    kDeltaCode4p = 5,  // 6th-order polynomial inside, linear outside
};

struct PackedLikelihood {
    std::int64_t n_pars = 0;  // P
    std::int64_t n_main = 0;  // N
    std::int64_t n_aux = 0;   // A

    // Elements: one (sample, bin) pair each. CSR offsets into the factor and delta arrays.
    std::vector<std::int32_t> elem_bin;        // [E]
    std::vector<double> elem_nominal;          // [E]
    std::vector<std::int32_t> factor_offsets;  // [E+1]
    std::vector<std::int32_t> delta_offsets;   // [E+1]

    std::vector<std::int32_t> factor_par;      // [F]
    std::vector<std::int32_t> factor_kind;     // [F] FactorKind
    std::vector<double> factor_lo, factor_hi;  // [F] normsys down/up factors (1 for linear)
    std::vector<double> factor_coef;           // [F*6] code4 polynomial coefficients (0 otherwise)

    std::vector<std::int32_t> delta_par;       // [D]
    std::vector<std::int32_t> delta_kind;      // [D] DeltaKind
    std::vector<double> delta_lo, delta_nom, delta_hi;  // [D]

    std::vector<std::int32_t> gauss_par, gauss_aux;  // [G] parameter index, index into the aux data
    std::vector<double> gauss_sigma;                 // [G]
    std::vector<std::int32_t> pois_par, pois_aux;    // [Q]
    std::vector<double> pois_tau;                    // [Q] expected aux = tau * par

    std::int64_t n_elements() const { return static_cast<std::int64_t>(elem_bin.size()); }
};

// Data bound to one FusedLikelihood (FusedLikelihood::bind): the data tensor, [N + A] or [R, N + A], and what
// the likelihood computes from the data alone (a plugin derives its own class to hold it, e.g. the cpu plugin's
// lgamma terms). Immutable once made, so many threads may evaluate with one BoundData at once; a fit, a scan or
// a hypotest binds its data once and evaluates it many times.
class BoundData {
public:
    explicit BoundData(Tensor data) : data_(std::move(data)) {}
    virtual ~BoundData() = default;
    const Tensor& data() const { return data_; }

private:
    Tensor data_;
};

// d logpdf / d (the PackedLikelihood's own numbers) at K points: FusedLikelihood::input_gradient. Each tensor is
// [K, size of that array], in the backend's precision. Partial derivatives of the arrays as independent numbers:
// a code4 factor's factor_lo/factor_hi entries carry its exponential branches only (|alpha| >= 1), its polynomial
// reaches factor_coef; a linear factor's lo/hi/coef entries are 0. The caller maps them to whatever the arrays
// were computed from (core/grad/fused_input_grad.cpp: the spec's inputs).
struct PackedGradient {
    Tensor value;                          // [K] logpdf
    Tensor pars;                           // [K, P]
    Tensor elem_nominal;                   // [K, E]
    Tensor factor_lo, factor_hi;           // [K, F]
    Tensor factor_coef;                    // [K, F * 6]
    Tensor delta_lo, delta_nom, delta_hi;  // [K, D]
    Tensor gauss_sigma;                    // [K, G]
    Tensor pois_tau;                       // [K, Q]
    Tensor data;                           // [K, N + A] (main data, then aux data)
};

// Evaluates a PackedLikelihood on one backend. Implemented by plugins (Tier 2) and by core (Tier 1 fallback).
class FusedLikelihood {
public:
    virtual ~FusedLikelihood() = default;

    // Binds data: [N + A] (shared by all points) or [K, N + A] (one row per point). The default keeps the tensor
    // alone, for likelihoods without data-only constants; one that has some computes them here, once, and may
    // check the data's shape and backend here (ShapeError, BackendMismatch).
    virtual std::shared_ptr<const BoundData> bind(const Tensor& data) { return std::make_shared<BoundData>(data); }

    // Rows `rows` of [R, N + A] data that bind() of this likelihood bound (`bound`); data_rows are those rows of
    // bound.data(), gathered by the caller. The default binds them anew; a likelihood with data-only constants
    // takes the rows' constants instead of computing them again (a batched fit rebinds whenever a toy leaves).
    virtual std::shared_ptr<const BoundData> bind_rows(const BoundData& bound, const std::vector<std::int64_t>& rows,
                                                       const Tensor& data_rows) {
        (void)bound, (void)rows;
        return bind(data_rows);
    }

    // pars: [K, P]; data bound by bind() of this likelihood (an implementation may bind again what another made).
    // Returns logpdf [K]. When grad is non-null, *grad becomes d logpdf / d pars, [K, P].
    virtual Tensor logpdf(const Tensor& pars, const BoundData& data, Tensor* grad) = 0;

    // The same with data bound for this call alone.
    Tensor logpdf(const Tensor& pars, const Tensor& data, Tensor* grad) { return logpdf(pars, *bind(data), grad); }

    // Expected main rates [K, N].
    virtual Tensor expected_main(const Tensor& pars) = 0;

    // Expected aux data [K, A]: par for Gaussian constraints, tau * par for Poisson ones.
    virtual Tensor expected_aux(const Tensor& pars) = 0;

    // d (expected main rate b) / d (parameter p) at K points: [K, N, P]. The default takes central differences of
    // expected_main (2P points per point); a plugin whose kernels form these derivatives for the gradient anyway
    // returns them exactly, at about the cost of one gradient.
    virtual Tensor expected_main_jacobian(const Tensor& pars);
    // True where expected_main_jacobian is the likelihood's own (about one gradient), not the default's 2P evaluations
    // and transfers: the batched fits take a toy's own curvature only then (core/infer/minimize/batch_fit.cpp).
    virtual bool native_jacobian() const { return false; }

    virtual const char* implementation() const = 0;  // e.g. "cpu fused", "tier-1 fallback"

    // Optional (Tier 2): the reverse-mode terms of logpdf by the packed likelihood's own arrays (PackedGradient)
    // at pars [K, P] with data bound as for logpdf. Fills *out and returns true where the likelihood offers them;
    // the default returns false and leaves *out alone, and core then composes the same from Tier 1 ops
    // (core/grad/backend_input_grad.cpp). Appended last, so that the vtable of the entries above is unchanged.
    virtual bool input_gradient(const Tensor& pars, const BoundData& data, PackedGradient* out) {
        (void)pars, (void)data, (void)out;
        return false;
    }

    // Optional (Tier 2): the vector-Jacobian product of the expected data at pars [K, P] with the cotangents
    // cot_main [K, N] and cot_aux [K, A]: d (cot_main . rate + cot_aux . expected aux) / d (the packed arrays and
    // the parameters), in *out as input_gradient fills it: the reverse pass of input_gradient with the cotangent in
    // place of the Poisson weight w_b = n_b / rate_b - 1, and the expected aux data (gauss: par, Poisson:
    // tau par) in place of the constraints' terms. out->value is left empty; gauss_sigma and data are 0 (the
    // expected data depend on neither). For core's gradients through the Asimov data (core/grad); the default
    // returns false and core takes another route. Appended last, as input_gradient.
    virtual bool expected_data_vjp(const Tensor& pars, const Tensor& cot_main, const Tensor& cot_aux,
                                   PackedGradient* out) {
        (void)pars, (void)cot_main, (void)cot_aux, (void)out;
        return false;
    }
};

// Throws ShapeError naming the first inconsistent array (sizes, CSR offsets, indices out of range, unknown
// kinds). compile_likelihood() and the core fallback call it, so plugins receive checked likelihoods only.
void check_packed_likelihood(const PackedLikelihood& packed);

// The backend's fused kernels for `packed` (checked first; its PluginBackend::k_compile_likelihood), or
// nullptr when the plugin offers none.
std::unique_ptr<FusedLikelihood> compile_likelihood(Backend& backend, const PackedLikelihood& packed);

// What a Model compiled its workspace into (for plugin tests: the same likelihood on another backend).
const PackedLikelihood& packed_likelihood(const Model& model);
// The FusedLikelihood that evaluates `model` (the backend's Tier 2, or core's fallback): for core's gradient
// routes, which ask it for input_gradient.
FusedLikelihood& fused_likelihood(const Model& model);

}  // namespace hf
