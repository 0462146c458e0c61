// `hfcore gof`: saturated-model goodness of fit (cabinetry fit._goodness_of_fit).
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_options.hpp"

namespace cmd_gof {
namespace {

struct Options {
    hf::cli::ModelOptions model;
};

const hf::cli::Register reg(
    "gof", "Goodness of fit against the saturated model: chi2, degrees of freedom and p-value.", [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        o->model.add_data_options(sub);
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            const auto r = hf::infer::goodness_of_fit(*lm.model, lm.data);
            if (!r.fit.converged) hf::cli::warn("the fit did not converge: " + r.fit.reason);
            if (r.ndof <= 0) hf::cli::warn("no p-value: " + std::to_string(r.ndof) + " degrees of freedom");
            hf::cli::emit(hf::cli::presented(hf::infer::to_json(r), o->model, lm), o->model);
            return r.fit.converged ? 0 : 1;
        };
    });

}  // namespace
}  // namespace cmd_gof
