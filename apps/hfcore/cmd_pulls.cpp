// `hfcore pulls`: best-fit values, uncertainties, and for constrained parameters the pull and constraint.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_options.hpp"

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
        hf::cli::add_convention_flag(sub, o->hessian);
        sub.add_flag("--correlations", o->correlations, "Also print the correlation matrix");
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            hf::infer::DiagnosticOptions d;
            d.uncertainties = hf::cli::convention(o->hessian);
            const auto r = hf::infer::pulls(*lm.model, lm.data, d);
            if (!r.fit.converged) hf::cli::warn("the fit did not converge: " + r.fit.reason);
            hf::json::Array pars;
            for (const auto& p : r.parameters) {
                hf::json::Object e;
                e.set("name", hf::json::Value(p.name));
                e.set("value", p.value);
                e.set("uncertainty", p.uncertainty);
                e.set("hessian_uncertainty", p.hessian_uncertainty);
                e.set("pull", hf::cli::number_or_null(p.pull));
                e.set("constraint", hf::cli::number_or_null(p.constraint));
                e.set("constrained", p.constrained);
                e.set("fixed", p.fixed);
                e.set("centre", p.centre);
                e.set("prefit_uncertainty", p.prefit_uncertainty);
                pars.emplace_back(std::move(e));
            }
            hf::json::Object out;
            out.set("parameters", hf::json::Value(std::move(pars)));
            hf::cli::add_fit_summary(out, r.fit);
            if (o->correlations) out.set("correlations", hf::cli::correlations_json(lm.model->par_names(), r.correlations));
            hf::cli::emit(out, o->model);
            return r.fit.converged ? 0 : 1;
        };
    });

}  // namespace
