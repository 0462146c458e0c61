// The hypotest's gradients for K models that differ only in their inputs (an optimisation loop's batch, one call
// from Python or JAX's vmap): each model compiled from the spec with its inputs, the K items spread over threads,
// each thread on a backend of its own (threads never share one).
#include <algorithm>
#include <memory>
#include <string>

#include "hfcore/errors.hpp"
#include "hfcore/executor.hpp"
#include "hfcore/grad.hpp"
#include "hfcore/loader.hpp"

namespace hf::grad {

std::vector<HypotestGradient> hypotest_gradients(double poi_test, const ModelSpec& spec, const Model& model,
                                                 const std::vector<std::vector<double>>& inputs,
                                                 const std::vector<std::vector<double>>& main_data,
                                                 const infer::HypotestOptions& options, int threads) {
    const std::size_t k = inputs.size();
    if (main_data.size() != k && main_data.size() != 1)
        throw InputError("grad", "main_data",
                         "expected one main-data vector for all " + std::to_string(k) + " models or one per model, got " +
                             std::to_string(main_data.size()));
    const auto n_inputs = flatten_inputs(spec).size();
    for (std::size_t i = 0; i < k; ++i)
        if (inputs[i].size() != n_inputs)
            throw InputError("grad", "inputs[" + std::to_string(i) + "]",
                             "expected " + std::to_string(n_inputs) + " inputs, got " + std::to_string(inputs[i].size()));
    const int workers = std::max(1, std::min(run::resolve_threads(threads), static_cast<int>(k)));
    std::vector<BackendPtr> backends(static_cast<std::size_t>(workers));
    backends[0] = model.backend();
    LoadOptions o;
    o.precision = model.backend()->precision();
    for (std::size_t w = 1; w < backends.size(); ++w) backends[w] = load_backend(model.backend()->name(), o);
    std::vector<HypotestGradient> out(k);
    run::for_each_index(k, workers, [&](std::size_t i, int w) {
        const ModelSpec changed = with_inputs(spec, inputs[i]);
        const Model m(changed, backends[static_cast<std::size_t>(w)]);
        out[i] = hypotest_gradient(poi_test, changed, m, main_data.size() == 1 ? main_data[0] : main_data[i], options);
    });
    return out;
}

}  // namespace hf::grad
