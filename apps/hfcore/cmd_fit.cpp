// `hfcore fit`: pyhf fit - maximum-likelihood fit of every free parameter; --minos adds asymmetric intervals.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_options.hpp"

namespace {

struct Options {
    hf::cli::ModelOptions model;
    hf::cli::FixedFitOptions fits;
    bool value = false;
    bool uncertainties = false;
    double fixed_poi = std::numeric_limits<double>::quiet_NaN();
    std::vector<std::string> minos;
};

const hf::cli::Register reg(
    "fit", "Perform a maximum likelihood fit for a given pyhf workspace (pyhf fit).", [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        sub.add_flag("--value", o->value, "Accepted for pyhf compatibility: twice_nll is always printed");
        sub.add_flag("--uncertainties", o->uncertainties,
                     "Also print uncertainties and correlations (inverse Hessian at the minimum)");
        sub.add_option("--fixed-poi", o->fixed_poi, "Fit with the POI fixed at this value");
        sub.add_option("--minos", o->minos,
                       "Asymmetric intervals (2 Delta NLL = 1 crossings of the profile) of these parameters "
                       "(par_names entries, space or comma separated)")
            ->delimiter(',');
        o->fits.add_to(sub);
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            hf::infer::FitOptions fo;
            fo.uncertainties = o->uncertainties || !o->minos.empty();
            hf::infer::FitConfig config;
            if (!std::isnan(o->fixed_poi)) {
                if (lm.model->poi_index() < 0)
                    throw hf::InputError("fit", "poi", "No POI is defined. A POI is required to fit with a fixed POI.");
                config = hf::infer::FitConfig::suggested(*lm.model);
                const auto poi = static_cast<std::size_t>(lm.model->poi_index());
                config.init[poi] = o->fixed_poi;
                config.fixed[poi] = true;
            }
            auto r = hf::infer::fit(*lm.model, lm.data, config, fo);
            if (!r.converged) hf::cli::warn("the fit did not converge: " + r.reason);
            hf::json::Object out;
            out.set("mle_parameters", hf::cli::parameters_by_name(*lm.model, r.bestfit));
            out.set("twice_nll", r.twice_nll);
            out.set("converged", r.converged);
            if (o->uncertainties) {
                out.set("uncertainties", hf::cli::parameters_by_name(*lm.model, r.uncertainties));
                out.set("correlations", hf::cli::correlations_json(lm.model->par_names(), r.correlations));
            }
            bool ok = r.converged;
            if (!o->minos.empty()) {
                hf::infer::DiagnosticOptions d = o->fits.diagnostic_options();
                d.config = config;
                const auto intervals = hf::infer::minos(*lm.model, lm.data, o->minos, d, &r);
                hf::json::Object m, details;
                for (const auto& iv : intervals) {
                    hf::json::Array ends;
                    ends.emplace_back(iv.lower);
                    ends.emplace_back(iv.upper);
                    m.set(iv.name, hf::json::Value(std::move(ends)));
                    hf::json::Object d1;
                    d1.set("value", iv.value);
                    d1.set("lower_at_bound", iv.lower_at_bound);
                    d1.set("upper_at_bound", iv.upper_at_bound);
                    d1.set("valid", iv.valid);
                    d1.set("n_fits", hf::json::Value(iv.n_fits));
                    if (!iv.valid) {
                        d1.set("reason", hf::json::Value(iv.reason));
                        hf::cli::warn("minos " + iv.name + ": " + iv.reason);
                    }
                    details.set(iv.name, hf::json::Value(std::move(d1)));
                    ok = ok && iv.valid;
                }
                out.set("minos", hf::json::Value(std::move(m)));
                out.set("minos_details", hf::json::Value(std::move(details)));
            }
            hf::cli::emit(out, o->model);
            return ok ? 0 : 1;
        };
    });

}  // namespace
