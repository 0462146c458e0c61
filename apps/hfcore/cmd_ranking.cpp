// `hfcore ranking`: impacts of every nuisance parameter on the POI (cabinetry fit.ranking), largest first.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_options.hpp"

namespace {

struct Options {
    hf::cli::ModelOptions model;
    hf::cli::FixedFitOptions fits;
    std::string poi;
    bool hessian = false;
};

const hf::cli::Register reg(
    "ranking", "Pre- and post-fit impacts of the nuisance parameters on the POI, sorted by post-fit impact.",
    [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        o->fits.add_to(sub);
        hf::cli::add_convention_flag(sub, o->hessian);
        sub.add_option("--poi", o->poi, "Parameter whose shifts are measured (default: the measurement's POI)");
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            hf::infer::RankingOptions ro;
            static_cast<hf::infer::DiagnosticOptions&>(ro) = o->fits.diagnostic_options();
            ro.poi = o->poi;
            ro.uncertainties = hf::cli::convention(o->hessian);
            const auto r = hf::infer::ranking(*lm.model, lm.data, ro);
            hf::json::Array rows;
            for (const auto& e : r.ranking) {
                hf::json::Object j;
                j.set("name", hf::json::Value(e.name));
                j.set("value", e.value);
                j.set("uncertainty", e.uncertainty);
                j.set("prefit_uncertainty", e.prefit_uncertainty);
                j.set("impact_prefit_up", e.impact_prefit_up);
                j.set("impact_prefit_down", e.impact_prefit_down);
                j.set("impact_postfit_up", e.impact_postfit_up);
                j.set("impact_postfit_down", e.impact_postfit_down);
                j.set("converged", e.converged);
                if (!e.reason.empty()) j.set("reason", hf::json::Value(e.reason));
                if (!e.converged) hf::cli::warn(e.name + ": " + e.reason);
                rows.emplace_back(std::move(j));
            }
            hf::json::Object out;
            out.set("poi", hf::json::Value(r.poi));
            out.set("poi_hat", r.poi_hat);
            out.set("poi_uncertainty", r.poi_uncertainty);
            out.set("ranking", hf::json::Value(std::move(rows)));
            out.set("converged", r.converged);
            out.set("n_fits", hf::json::Value(r.n_fits));
            out.set("n_batched", hf::json::Value(r.n_batched));
            out.set("n_refits", hf::json::Value(r.n_refits));
            hf::cli::add_fit_summary(out, r.fit);
            if (!r.fit.converged) hf::cli::warn("the free fit did not converge: " + r.fit.reason);
            hf::cli::emit(out, o->model);
            return r.converged ? 0 : 1;
        };
    });

}  // namespace
