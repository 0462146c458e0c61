// Internal: the likelihood's input gradient at K points on the model's backend, by the route the backend offers:
// its fused likelihood's reverse-mode terms (FusedLikelihood::input_gradient, d logpdf / d the packed arrays),
// mapped here to the spec's inputs by the chain rule through what core computed from them (which input each
// packed number is, code4 coefficients, staterror widths, shapesys tau); else the composition of Tier 1 ops
// (backend_input_grad.hpp). Both follow the host tape's conventions (evaluate.hpp), the reference.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "grad/backend_input_grad.hpp"
#include "hfcore/model.hpp"

namespace hf {
class FusedLikelihood;
struct PackedLikelihood;
}  // namespace hf

namespace hf::grad_detail {

struct PackedMap;

// The fused route for one model and the inputs `y` it was compiled from (`s` traced from both): which spec input
// each number of the packed likelihood came from, worked out once here and used by every evaluation. Each returns
// nullopt where the likelihood does not offer the entry (or its arrays do not line up with `s`).
class FusedInputGradient {
public:
    FusedInputGradient(const Model& model, const Structure& s, const std::vector<double>& y);
    FusedInputGradient(const FusedInputGradient&) = delete;
    FusedInputGradient& operator=(const FusedInputGradient&) = delete;
    ~FusedInputGradient();

    // d twice_nll at K points (pars [K * P] row-major), main data [N] for all, the model's own aux data.
    std::optional<BackendGradients> twice_nll(const std::vector<double>& pars, std::int64_t K,
                                              const std::vector<double>& main_data) const;
    // The same with the data [N + A] given, aux data included (constants: d_inputs is the partial at fixed data),
    // with d_main and d_aux.
    std::optional<BackendGradients> at_data(const std::vector<double>& pars, std::int64_t K,
                                            const std::vector<double>& data) const;
    // The vector-Jacobian product of the expected data (main rates [N], aux expectations [A]) at one point with the
    // cotangents: d (cot . expected data) / d inputs and / d pars (value, d_main and d_aux empty).
    std::optional<BackendGradients> expected_data_vjp(const std::vector<double>& pars,
                                                      const std::vector<double>& cot_main,
                                                      const std::vector<double>& cot_aux) const;
    const std::string& route() const { return route_; }  // "fused: " and the likelihood's implementation

private:
    std::optional<BackendGradients> evaluate(const std::vector<double>& pars, std::int64_t K,
                                             const std::vector<double>& data, bool own_aux) const;

    const Model& model_;
    const Structure& s_;
    const std::vector<double>& y_;
    FusedLikelihood& lik_;
    const PackedLikelihood& pk_;
    std::unique_ptr<PackedMap> map_;
    std::string route_;
};

// d twice_nll at K points (pars [K * P] row-major, main data [N] for all) on `model`'s backend, with the model's
// own aux data: the fused route (`fused`, or one made here) where offered, else the Tier 1 composition. `model` is
// compiled from the inputs `y` that `s` was traced with. *route (when given) names the route that ran: "fused: "
// and the likelihood's implementation, or "tier-1 ops".
BackendGradients backend_twice_nll(const Model& model, const Structure& s, const std::vector<double>& y,
                                   const std::vector<double>& pars, std::int64_t K,
                                   const std::vector<double>& main_data, std::string* route = nullptr,
                                   const FusedInputGradient* fused = nullptr);

}  // namespace hf::grad_detail
