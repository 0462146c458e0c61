// Internal: d twice_nll / d (inputs, parameters, main data) at K points on the model's backend, composed of Tier 1
// ops only (gather, elementwise, reductions, matmul), so it runs on every plugin. The same likelihood as the host
// tape (evaluate.hpp), whose conventions it follows term by term; the tape stays the reference it is tested against.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "grad/structure.hpp"
#include "hfcore/backend.hpp"

namespace hf::grad_detail {

struct BackendGradients {
    std::vector<double> value;     // [K] twice_nll
    std::vector<double> d_inputs;  // [K, n_inputs]
    std::vector<double> d_pars;    // [K, P]
    std::vector<double> d_main;    // [K, N]
    std::vector<double> d_aux;     // [K, A] where the aux data were given (FusedInputGradient::at_data)
};

// Built once for a structure and the inputs it is evaluated at (the constants that depend on the inputs alone, as
// the staterror widths, are computed on the backend here); evaluated at any parameter points and main data.
class BackendInputGradient {
public:
    BackendInputGradient(Backend& backend, const Structure& s, const std::vector<double>& inputs);
    BackendInputGradient(const BackendInputGradient&) = delete;
    BackendInputGradient& operator=(const BackendInputGradient&) = delete;
    ~BackendInputGradient();

    // pars [K * P] row-major; main_data [N], the same for all K points.
    BackendGradients twice_nll(const std::vector<double>& pars, std::int64_t K,
                               const std::vector<double>& main_data) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace hf::grad_detail
