// Gradients with respect to the model's inputs, for differentiable ("neos"-style) analyses: the histograms and
// modifier data of a ModelSpec as one flat vector y, and d/dy of the likelihood at a point and of the profiled
// test statistics and asymptotic CLs at the fitted minima (implicit function theorem, docs/differentiable.md).
// The likelihood's gradient at a point runs on the model's backend (its fused likelihood's reverse pass, or Tier 1
// ops: every plugin, in its precision); the host's reverse-mode tape in double is its reference and computes the
// profiled quantities' implicit terms.
//
// The flat input vector, in the spec's order (channels, their samples and each sample's modifiers as the JSON
// lists them):
//   per channel, per sample: the sample's nominal bins ("data"), then per modifier of the sample its data:
//     histosys: hi_data (bins), lo_data (bins); normsys: hi, lo; shapesys and staterror: vals (bins);
//     lumi, normfactor, shapefactor: nothing.
// input_layout() names every block (its JSON path and field).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "hfcore/infer.hpp"
#include "hfcore/model.hpp"
#include "hfcore/spec.hpp"

namespace hf::grad {

// One block of the flat input vector: `json_path` + "." + `field` of the spec (e.g. "channels[0].samples[1]"
// "data", or "channels[0].samples[1].modifiers[2]" "hi_data").
struct InputBlock {
    std::string json_path;
    std::string field;  // data, hi_data, lo_data, hi, lo, vals
    std::int64_t offset = 0;
    std::int64_t size = 0;
};

std::vector<InputBlock> input_layout(const ModelSpec& spec);
std::vector<double> flatten_inputs(const ModelSpec& spec);
// `spec` with its inputs replaced by `inputs` (the layout's order). InputError on a wrong length.
ModelSpec with_inputs(const ModelSpec& spec, const std::vector<double>& inputs);

// ---- the likelihood at a point ----
// Which code computes the likelihood's gradient at a point: `automatic` is the backend.
enum class Engine { automatic, backend, host_tape };
const char* engine_name(Engine e);

// Data convention (pyhf's data = observations + model.config.auxdata): the main data are given and fixed; the aux
// data are the model's own, which depend on the inputs (shapesys: tau = (nominal / uncertainty)^2).
struct LikelihoodGradient {
    double value = 0.0;               // twice_nll (logpdf_gradient: logpdf)
    Engine engine = Engine::host_tape;  // the one that ran (backend or host_tape)
    std::vector<double> d_inputs;     // d value / d y
    std::vector<double> d_pars;       // d value / d pars
    std::vector<double> d_main_data;  // d value / d main data
    // backend: "fused: " and the fused likelihood's implementation where it offers the reverse-mode terms
    // (FusedLikelihood::input_gradient), else "tier-1 ops"; host_tape: "host tape".
    std::string route;
};
// `model` must be compiled from `spec` (InputError when its parameter count or bins differ).
// `backend`: the model's backend in its precision: its fused likelihood's reverse-mode terms mapped to the inputs
// where it offers them, else the same composed of Tier 1 ops (one upload of the structure and one download of
// each result); `host_tape`: the reference, in double.
LikelihoodGradient twice_nll_gradient(const ModelSpec& spec, const Model& model, const std::vector<double>& pars,
                                      const std::vector<double>& main_data, Engine engine = Engine::automatic);
// pyhf's logpdf: -twice_nll / 2, its gradients likewise.
LikelihoodGradient logpdf_gradient(const ModelSpec& spec, const Model& model, const std::vector<double>& pars,
                                   const std::vector<double>& main_data, Engine engine = Engine::automatic);

// ---- profiled quantities at fitted minima ----
// Why a gradient is or is not given. `ok` with held parameters (fixed, the tested POI, those at a bound of the
// fit) is the gradient of the constrained problem with those parameters held.
enum class Status { ok, not_converged, singular_hessian };
const char* status_name(Status s);

struct ProfiledGradient {
    Status status = Status::ok;
    std::string reason;               // empty when ok
    double twice_nll = 0.0;           // at the minimum
    std::vector<double> bestfit;
    std::vector<double> d_inputs;     // empty unless ok
    std::vector<std::string> held;    // parameter names held (fixed, POI when given, at a bound)
    std::string route;                // of d_inputs, as LikelihoodGradient::route (empty unless ok)
};
// twice_nll at the best fit (poi_value empty) or with the POI held at *poi_value, as a function of the inputs:
// d/dy = partial_y twice_nll at the minimum (the parameters' own term vanishes there or is held).
ProfiledGradient profiled_twice_nll_gradient(const ModelSpec& spec, const Model& model,
                                             const std::vector<double>& main_data, const double* poi_value = nullptr,
                                             const infer::FitConfig& config = {}, const infer::FitOptions& options = {});

// The asymptotic hypotest (pyhf.infer.hypotest, calctype asymptotics, normal base distribution) at poi_test and its
// gradients. For q0: obs is p0 (CLsb), exp the expected p0 band; otherwise obs is CLs_obs, exp the CLs_exp band.
struct HypotestGradient {
    Status status = Status::ok;
    std::string reason;
    std::vector<std::string> notes;   // kinks met (a clipped statistic: gradient of the flat branch)
    double q_obs = 0.0, q_asimov = 0.0;
    double obs = 0.0;                 // CLs_obs, or p0 for q0
    std::array<double, 5> exp{};      // -2 .. +2 sigma, as HypotestResult::exp
    double CLsb_obs = 0.0, CLb_obs = 0.0;
    std::vector<double> d_q_obs, d_q_asimov, d_obs, d_CLsb_obs, d_CLb_obs;  // empty unless ok
    std::array<std::vector<double>, 5> d_exp;
    // The same with respect to the observed main data (for data that are themselves a function of what is
    // optimised, e.g. a background-only expectation).
    std::vector<double> d_q_obs_data, d_q_asimov_data, d_obs_data, d_CLsb_obs_data, d_CLb_obs_data;
    std::array<std::vector<double>, 5> d_exp_data;
    std::vector<std::string> held;    // held at the Asimov (mu = 0, or 1 for q0) fit whose Hessian is solved
    infer::HypotestResult result;     // the fits the gradient was taken at
    // The routes (as LikelihoodGradient::route) that gave q_obs's partial d / d inputs at the fits' points and q_A's
    // direct term (empty where the statistic is clipped). q_A's falls back to the host tape where the fused
    // likelihood does not offer the reverse pass of its expected data; the Asimov fit's implicit term is always on
    // the host.
    std::string route_obs, route_asimov;
};
// `engine`: where the likelihood's input gradients at the fits' points run (q_obs's, q_A's direct term):
// automatic / backend as twice_nll_gradient, host_tape the reference.
HypotestGradient hypotest_gradient(double poi_test, const ModelSpec& spec, const Model& model,
                                   const std::vector<double>& main_data, const infer::HypotestOptions& options = {},
                                   Engine engine = Engine::automatic);

// The same for K models that differ only in their inputs (an optimisation loop's batch): inputs [K][n] in the
// layout above, main_data one [N] for all or [K][N]. `model` (compiled from `spec`) gives the backend's kind and
// precision; the K items run on resolve_threads(threads) threads, each with a backend of its own. Results in the
// inputs' order, each with its own status. InputError on a wrong length, naming the item.
std::vector<HypotestGradient> hypotest_gradients(double poi_test, const ModelSpec& spec, const Model& model,
                                                 const std::vector<std::vector<double>>& inputs,
                                                 const std::vector<std::vector<double>>& main_data,
                                                 const infer::HypotestOptions& options = {}, int threads = 0);

}  // namespace hf::grad
