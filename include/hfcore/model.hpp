// The HistFactory model compiled from a ModelSpec: pyhf's parameter order, suggested init/bounds/fixed,
// auxdata, and evaluations (logpdf, expected data, gradient) for one point or a batch of K points, on the
// backend it was compiled for. Matches pyhf.Model.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hfcore/backend.hpp"
#include "hfcore/bound_likelihood.hpp"
#include "hfcore/loader.hpp"
#include "hfcore/spec.hpp"

namespace hf {

struct PackedLikelihood;  // hfcore/plugin/likelihood.hpp
class FusedLikelihood;   // hfcore/plugin/likelihood.hpp

// One entry of pyhf's par_map: a named parameter set (a scalar, or one parameter per bin).
struct ParameterSet {
    std::string name;
    ModifierType modifier_type{};  // of the modifiers that use it (the first in pyhf's type order)
    std::int64_t offset = 0;     // first index in the parameter vector
    std::int64_t n = 1;
    bool constrained = false;
    std::string constraint;      // "normal", "poisson" or "" (unconstrained)
    std::vector<double> inits;
    std::vector<std::pair<double, double>> bounds;
    std::vector<bool> fixed;     // per component (shapesys / staterror bins with no uncertainty are fixed)
    std::vector<double> auxdata; // constrained only
    std::vector<double> sigmas;  // normal constraints
    std::vector<double> factors; // poisson constraints (tau)
};

struct ModelOptions {
    // Use the backend's fused likelihood kernels when it offers them (Tier 2); otherwise core's Tier 1 fallback.
    bool prefer_fused = true;
};

class Model {
public:
    // Validates the semantic rules that need the whole model (parameter configs, POI) and compiles.
    // Throws InputError naming spec.source and the JSON path on a problem.
    Model(const ModelSpec& spec, BackendPtr backend = default_backend(), ModelOptions options = {});
    ~Model();
    Model(Model&&) noexcept;
    Model& operator=(Model&&) noexcept;

    const BackendPtr& backend() const;

    // ---- structure (pyhf: model.config) ----
    const std::vector<std::string>& channels() const;            // sorted
    const std::vector<std::string>& samples() const;             // sorted
    const std::vector<std::int64_t>& channel_nbins() const;      // in channels() order
    const std::vector<std::string>& par_order() const;           // parameter set names, pyhf's order
    const std::vector<ParameterSet>& parameter_sets() const;     // same order
    const ParameterSet& parameter_set(const std::string& name) const;  // InputError if unknown
    std::pair<std::int64_t, std::int64_t> par_slice(const std::string& name) const;  // [begin, end)
    std::vector<std::string> par_names() const;                  // expanded: "mu", "gamma[0]", ...
    std::int64_t n_pars() const;
    std::int64_t n_main() const;                                 // main bins, all channels
    std::int64_t n_aux() const;
    const std::string& poi_name() const;                         // "" when the model has no POI
    std::int64_t poi_index() const;                              // -1 when no POI
    std::vector<double> suggested_init() const;
    std::vector<std::pair<double, double>> suggested_bounds() const;
    std::vector<bool> suggested_fixed() const;
    std::vector<double> auxdata() const;
    const ModifierSettings& modifier_settings() const;
    // Per aux datum [n_aux()]: the sigma of its normal constraint, 0 where the constraint is Poisson (toys draw
    // normal aux data with these widths, Poisson ones from their rates).
    std::vector<double> aux_normal_widths() const;
    const char* implementation() const;                          // which FusedLikelihood evaluates

    // ---- the likelihood bound to data: [N + A], or [K, N + A] for K points evaluated together ----
    // The data are uploaded (host overload) and the likelihood's data-only constants computed once; evaluate
    // the result as often as needed (BoundLikelihood::logpdf, device or host). InputError/ShapeError on a
    // wrong size, BackendMismatch for a tensor of another backend.
    BoundLikelihood bind(const Tensor& data) const;
    BoundLikelihood bind(const std::vector<double>& data) const;

    // ---- the two evaluation entry points without binding (the data are bound for the one call) ----
    // Device: pars [K, P] (or [P]), data [N + A] or [K, N + A] -> [K].
    Tensor logpdf(const Tensor& pars, const Tensor& data, Tensor* grad = nullptr) const;
    // Host: one point (pyhf's model.logpdf(pars, data)).
    double logpdf(const std::vector<double>& pars, const std::vector<double>& data) const;
    // K points on host data, or the gradient at one point: bind(data).logpdf(...), device or host entry.

    // ---- expected data (one upload of pars, one download of results for the host overloads) ----
    Tensor expected_data(const Tensor& pars, bool include_auxdata = true) const;  // [K, N(+A)]
    std::vector<double> expected_data(const std::vector<double>& pars, bool include_auxdata = true) const;
    std::vector<double> expected_actualdata(const std::vector<double>& pars) const;
    std::vector<double> expected_auxdata(const std::vector<double>& pars) const;
    // Expected main rates of every sample separately (pyhf: main_model.expected_data(return_by_sample=True)) for
    // K points pars_kp [K, P]: [K, samples().size(), n_main()], 0 where a channel lacks the sample. Summed over
    // samples it is expected_actualdata. The per-sample likelihood is compiled on first use.
    std::vector<double> expected_main_by_sample(const std::vector<double>& pars_kp, std::int64_t k = 1) const;
    // d (expected main rate) / d pars at K points pars [K, P]: [K, n_main(), n_pars()] (FusedLikelihood).
    Tensor expected_main_jacobian(const Tensor& pars) const;
    // Whether that Jacobian comes from the backend's kernels rather than from differences of expected data.
    bool native_jacobian() const;

    // The same model compiled again on `backend` (null: a new instance of this model's backend plugin at the
    // same precision), e.g. for fits in parallel threads, which must not share a backend.
    std::unique_ptr<Model> clone(BackendPtr backend = nullptr) const;

    // Main data of the workspace's observations in this model's channel order (+ auxdata if asked).
    std::vector<double> data_from_observations(const std::vector<ObservationSpec>& observations,
                                               bool include_auxdata = true,
                                               const std::string& source = "") const;

private:
    friend const PackedLikelihood& packed_likelihood(const Model& model);
    friend FusedLikelihood& fused_likelihood(const Model& model);
    // The fits' heuristic of which parameters can have two minima, computed once with the model
    // (core/model/multimodal.hpp).
    friend const std::vector<std::int64_t>& multimodal_parameters(const Model& model);
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace hf
