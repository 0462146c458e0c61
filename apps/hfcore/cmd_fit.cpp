// `hfcore fit`: pyhf fit - maximum-likelihood fit of every free parameter.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"

namespace {

struct Options {
    hf::cli::ModelOptions model;
    bool value = false;
    bool uncertainties = false;
    double fixed_poi = std::numeric_limits<double>::quiet_NaN();
};

const hf::cli::Register reg(
    "fit", "Perform a maximum likelihood fit for a given pyhf workspace (pyhf fit).", [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        sub.add_flag("--value", o->value, "Accepted for pyhf compatibility: twice_nll is always printed");
        sub.add_flag("--uncertainties", o->uncertainties,
                     "Also print uncertainties and correlations (inverse Hessian at the minimum)");
        sub.add_option("--fixed-poi", o->fixed_poi, "Fit with the POI fixed at this value");
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            hf::infer::FitOptions fo;
            fo.uncertainties = o->uncertainties;
            auto r = std::isnan(o->fixed_poi) ? hf::infer::fit(*lm.model, lm.data, {}, fo)
                                              : hf::infer::fixed_poi_fit(o->fixed_poi, *lm.model, lm.data, {}, fo);
            if (!r.converged) hf::cli::warn("the fit did not converge: " + r.reason);
            hf::json::Object out;
            out.set("mle_parameters", hf::cli::parameters_by_name(*lm.model, r.bestfit));
            out.set("twice_nll", r.twice_nll);
            out.set("converged", r.converged);
            if (o->uncertainties) {
                out.set("uncertainties", hf::cli::parameters_by_name(*lm.model, r.uncertainties));
                const auto names = lm.model->par_names();
                const std::size_t n = names.size();
                hf::json::Array rows;
                for (std::size_t i = 0; i < n; ++i)
                    rows.emplace_back(hf::cli::to_json(std::vector<double>(r.correlations.begin() + i * n,
                                                                           r.correlations.begin() + (i + 1) * n)));
                hf::json::Object corr;
                corr.set("par_names", hf::cli::to_json(names));
                corr.set("matrix", hf::json::Value(std::move(rows)));
                out.set("correlations", hf::json::Value(std::move(corr)));
            }
            hf::cli::emit(out, o->model);
            return r.converged ? 0 : 1;
        };
    });

}  // namespace
