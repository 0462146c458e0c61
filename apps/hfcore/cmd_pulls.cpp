// `hfcore pulls`: best-fit values, uncertainties, and for constrained parameters the pull and constraint.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_options.hpp"

namespace cmd_pulls {
namespace {

struct Options {
    hf::cli::ModelOptions model;
    bool correlations = false;
    bool hessian = false;
};

const hf::cli::Register reg(
    "pulls", "Pulls and constraints of the fitted parameters (cabinetry's definitions).", [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        o->model.add_data_options(sub);
        hf::cli::add_convention_flag(sub, o->hessian);
        sub.add_flag("--correlations", o->correlations, "Also print the correlation matrix");
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            hf::infer::DiagnosticOptions d;
            d.uncertainties = hf::cli::convention(o->hessian);
            const auto r = hf::infer::pulls(*lm.model, lm.data, d);
            if (!r.fit.converged) hf::cli::warn("the fit did not converge: " + r.fit.reason);
            hf::json::Value out = hf::infer::to_json(r, o->correlations);
            // Which parameter is the POI (plots keep it in a pruned correlation matrix).
            if (!lm.model->poi_name().empty()) out.as_object().set("poi", hf::json::Value(lm.model->poi_name()));
            hf::cli::emit(hf::cli::presented(out, o->model, lm), o->model);
            return r.fit.converged ? 0 : 1;
        };
    });

}  // namespace
}  // namespace cmd_pulls
