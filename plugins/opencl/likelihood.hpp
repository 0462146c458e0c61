// Tier 2 for OpenCL: the packed likelihood evaluated for K points by kernels in likelihood.cl. The tables
// are uploaded once here; an evaluation enqueues one kernel for logpdf (plus one for the gradient) and
// transfers nothing; input_gradient enqueues two more, expected_data_vjp four (input_grad.cl).
#pragma once

#include "hfcore/plugin/likelihood.hpp"
#include "backend.hpp"

namespace hf::ocl {

class OpenCLFusedLikelihood final : public FusedLikelihood {
public:
    OpenCLFusedLikelihood(OpenCLBackend& backend, const PackedLikelihood& packed);

    using FusedLikelihood::logpdf;
    Tensor logpdf(const Tensor& pars, const BoundData& bound, Tensor* grad) override;  // default bind
    Tensor expected_main(const Tensor& pars) override;
    Tensor expected_aux(const Tensor& pars) override;
    const char* implementation() const override { return "opencl fused"; }
    // hf_logpdf and hf_grad with the per-point scratch kept, then the kernels of input_grad.cl.
    bool input_gradient(const Tensor& pars, const BoundData& bound, PackedGradient* out) override;
    // hf_vjp_elements (the elements' base and factor products), hf_input_grad_elements with the main cotangent as
    // its weight, hf_vjp_pars and hf_vjp_tau.
    bool expected_data_vjp(const Tensor& pars, const Tensor& cot_main, const Tensor& cot_aux,
                           PackedGradient* out) override;

private:
    std::int64_t points(const Tensor& pars, const char* op) const;  // K, after checking pars
    // The data's row stride (0: one row for every point), after checking them against K points.
    cl_long data_stride(const Tensor& data, std::int64_t K, const char* op) const;

    OpenCLBackend& be_;
    ProgramId prog_;
    std::int64_t n_main_ = 0, n_elem_ = 0, n_pars_ = 0, n_aux_ = 0;
    std::int64_t n_fac_ = 0, n_del_ = 0, n_gauss_ = 0, n_pois_ = 0;
    Tensor meta_, itab_, rtab_;
    std::size_t local_logpdf_ = 1, local_grad_ = 1;
};

}  // namespace hf::ocl
