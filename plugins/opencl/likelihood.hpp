// Tier 2 for OpenCL: the packed likelihood evaluated for K points by kernels in likelihood.cl. The tables
// are uploaded once here; an evaluation enqueues one kernel for logpdf (plus one for the gradient) and
// transfers nothing.
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

private:
    std::int64_t points(const Tensor& pars, const char* op) const;  // K, after checking pars

    OpenCLBackend& be_;
    ProgramId prog_;
    std::int64_t n_main_ = 0, n_elem_ = 0, n_pars_ = 0, n_aux_ = 0;
    Tensor meta_, itab_, rtab_;
    std::size_t local_logpdf_ = 1, local_grad_ = 1;
};

}  // namespace hf::ocl
