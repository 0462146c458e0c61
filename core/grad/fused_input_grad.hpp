// Internal: the likelihood's input gradient at K points on the model's backend, by the route the backend offers:
// its fused likelihood's reverse-mode terms (FusedLikelihood::input_gradient, d logpdf / d the packed arrays),
// mapped here to the spec's inputs by the chain rule through what core computed from them (which input each
// packed number is, code4 coefficients, staterror widths, shapesys tau); else the composition of Tier 1 ops
// (backend_input_grad.hpp). Both follow the host tape's conventions (evaluate.hpp), the reference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "grad/backend_input_grad.hpp"
#include "hfcore/model.hpp"

namespace hf::grad_detail {

// d twice_nll at K points (pars [K * P] row-major, main data [N] for all) on `model`'s backend, with the model's
// own aux data. `model` is compiled from the inputs `y` that `s` was traced with. *route (when given) names the
// route that ran: "fused: " and the likelihood's implementation, or "tier-1 ops".
BackendGradients backend_twice_nll(const Model& model, const Structure& s, const std::vector<double>& y,
                                   const std::vector<double>& pars, std::int64_t K,
                                   const std::vector<double>& main_data, std::string* route = nullptr);

// The fused route alone (nullopt where the likelihood does not offer it), for the Asimov data's terms:
// d twice_nll at K points with the data [N + A] given, aux data included (constants: d_inputs is the partial at
// fixed data), with d_main and d_aux ...
std::optional<BackendGradients> fused_twice_nll_at_data(const Model& model, const Structure& s,
                                                        const std::vector<double>& y, const std::vector<double>& pars,
                                                        std::int64_t K, const std::vector<double>& data);
// ... and the vector-Jacobian product of the expected data (main rates [N], aux expectations [A]) at one point
// with the cotangents: d (cot . expected data) / d inputs and / d pars (value, d_main and d_aux empty).
std::optional<BackendGradients> fused_expected_data_vjp(const Model& model, const Structure& s,
                                                        const std::vector<double>& y, const std::vector<double>& pars,
                                                        const std::vector<double>& cot_main,
                                                        const std::vector<double>& cot_aux);

}  // namespace hf::grad_detail
