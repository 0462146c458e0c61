// Pulls and constraints of the fitted parameters.
#include "infer/diagnostics/parameter_lookup.hpp"
#include "hfcore/observed_data.hpp"

namespace hf::infer {

std::vector<ParameterPull> pulls_from_fit(const Model& model, const std::vector<double>& data, const FitResult& fit,
                                          const FitConfig& config, const std::vector<double>& reported) {
    const auto np = static_cast<std::size_t>(model.n_pars());
    if (fit.bestfit.size() != np || fit.uncertainties.size() != np)
        throw InputError("pulls", "fit", "the fit result needs best-fit values and uncertainties of all " +
                                             std::to_string(np) + " parameters (FitOptions::uncertainties)");
    if (!reported.empty() && reported.size() != np)
        throw InputError("pulls", "uncertainties", "need " + std::to_string(np) + " reported uncertainties");
    const std::vector<double>& unc = reported.empty() ? fit.uncertainties : reported;
    const FitConfig cfg = config.resolved(model);
    const auto names = model.par_names();
    const auto refs = detail::parameter_refs(model);
    const auto centre = constraint_centres(model, data);
    const auto width = prefit_uncertainties(model);
    std::vector<ParameterPull> out(np);
    for (std::size_t i = 0; i < np; ++i) {
        ParameterPull& p = out[i];
        p.name = names[i];
        p.index = static_cast<std::int64_t>(i);
        p.value = fit.bestfit[i];
        p.fixed = cfg.fixed[i];
        p.uncertainty = p.fixed ? 0.0 : unc[i];
        p.hessian_uncertainty = p.fixed ? 0.0 : fit.uncertainties[i];
        p.constrained = refs[i].set->constrained;
        p.centre = centre[i];
        p.prefit_uncertainty = width[i];
        if (p.constrained && !p.fixed && width[i] > 0.0) {
            p.pull = (p.value - p.centre) / width[i];
            p.constraint = p.uncertainty / width[i];
        }
    }
    return out;
}

PullsResult pulls(const Model& model, const std::vector<double>& data, const DiagnosticOptions& options) {
    check_observed_data(model, data, "pulls");
    PullsResult r;
    FitOptions fo = options.fit;
    fo.uncertainties = true;
    r.fit = fit(model, data, options.config, fo);
    auto rep = detail::reported_uncertainties(model, data, r.fit, options.config, options.uncertainties);
    r.parameters = pulls_from_fit(model, data, r.fit, options.config, rep.uncertainties);
    r.correlations = std::move(rep.correlations);
    return r;
}

}  // namespace hf::infer
