// `hfcore fit`: pyhf fit - maximum-likelihood fit of every free parameter; --minos adds asymmetric intervals.
#include <filesystem>
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "option_checks.hpp"
#include "diagnostic_options.hpp"

namespace cmd_fit {
namespace {

struct Options {
    hf::cli::ModelOptions model;
    hf::cli::HeldFitOptions fits;
    bool value = false;
    bool uncertainties = false;
    double fixed_poi = std::numeric_limits<double>::quiet_NaN();
    std::vector<std::string> minos;
};

const hf::cli::Register reg(
    "fit", "Perform a maximum likelihood fit for a given pyhf workspace (pyhf fit).", [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        o->model.add_data_options(sub);
        sub.add_flag("--value", o->value, "Accepted for pyhf compatibility: twice_nll is always printed");
        sub.add_flag("--uncertainties", o->uncertainties,
                     "Also print uncertainties and correlations (inverse Hessian at the minimum)");
        sub.add_option("--fixed-poi", o->fixed_poi, "Fit with the POI fixed at this value")->check(hf::cli::kFiniteNumber);
        sub.add_option("--minos", o->minos,
                       "Asymmetric intervals (2 Delta NLL = 1 crossings of the profile) of these parameters "
                       "(par_names entries, space or comma separated)")
            ->delimiter(',');
        o->fits.add_to(sub);
        return [o]() {
            // `fit --minos a b WS`: --minos takes every name that follows, the workspace too; take it back.
            if (o->model.workspace == "-" && o->minos.size() > 1 && std::filesystem::is_regular_file(o->minos.back())) {
                o->model.workspace = o->minos.back();
                o->minos.pop_back();
            }
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            hf::infer::FitOptions fo;
            fo.uncertainties = o->uncertainties || !o->minos.empty();
            hf::infer::FitConfig config;
            if (!std::isnan(o->fixed_poi)) {
                if (lm.model->poi_index() < 0)
                    throw hf::InputError("fit", "poi", "No POI is defined. A POI is required to fit with a fixed POI.");
                hf::cli::check_poi_value(*lm.model, o->fixed_poi, "--fixed-poi");
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
            out.set("reason", hf::json::Value(r.reason));
            // The basin search: other starting points descended from, and whether the minimum came from one.
            out.set("basin_candidates", hf::json::Value(static_cast<std::int64_t>(r.minimizer.basin_candidates)));
            out.set("other_basin", r.minimizer.other_basin);
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
            bool ok = r.converged;
            if (!o->minos.empty()) {
                hf::infer::DiagnosticOptions d = o->fits.diagnostic_options();
                d.config = config;
                const auto intervals = hf::infer::minos(*lm.model, lm.data, o->minos, d, &r);
                for (const auto& iv : intervals) {
                    if (!iv.valid) hf::cli::warn("minos " + iv.name + ": " + iv.reason);
                    ok = ok && iv.valid;
                }
                hf::json::Value mj = hf::infer::to_json(intervals);  // "minos" and "minos_details"
                for (auto& [key, value] : mj.as_object()) out.set(key, std::move(value));
            }
            hf::cli::emit(hf::cli::presented(out, o->model, lm), o->model);
            return ok ? 0 : 1;
        };
    });

}  // namespace
}  // namespace cmd_fit
