// Saturated-model goodness of fit (cabinetry fit._goodness_of_fit).
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>

#include "infer/diagnostics/parameter_lookup.hpp"
#include "hfcore/observed_data.hpp"

namespace hf::infer {

namespace {
// log Poisson(n | n) in pyhf's continuous form n log(n) - n - lgamma(n + 1) (0 for n = 0).
double poisson_at_itself(double n) {
    return (n > 0.0 ? n * std::log(n) : 0.0) - n - std::lgamma(n + 1.0);
}
}  // namespace

double twice_nll_saturated(const Model& model, const std::vector<double>& data) {
    const auto n_main = static_cast<std::size_t>(model.n_main());
    check_observed_data(model, data, "gof");
    double ll = 0.0;
    for (std::size_t b = 0; b < n_main; ++b) ll += poisson_at_itself(data[b]);
    // Every constraint at its maximum: the parameter at the aux datum (normal) or aux / tau (Poisson).
    std::size_t aux = n_main;
    for (const auto& ps : model.parameter_sets()) {
        if (!ps.constrained) continue;
        for (std::int64_t i = 0; i < ps.n; ++i, ++aux) {
            const auto c = static_cast<std::size_t>(i);
            if (ps.constraint == "poisson")
                ll += poisson_at_itself(data[aux]);
            else
                ll += -std::log(ps.sigmas.at(c)) - 0.5 * std::log(2.0 * M_PI);
        }
    }
    return -2.0 * ll;
}

GofResult goodness_of_fit(const Model& model, const std::vector<double>& data, const DiagnosticOptions& options) {
    GofResult r;
    const FitConfig cfg = options.config.resolved(model);
    r.fit = fit(model, data, cfg, options.fit);
    r.twice_nll = r.fit.twice_nll;
    r.twice_nll_saturated = twice_nll_saturated(model, data);
    r.chi2 = r.twice_nll - r.twice_nll_saturated;
    // Degrees of freedom: main bins minus free unconstrained parameters (the constrained ones bring their aux
    // datum with them).
    std::int64_t free_unconstrained = 0;
    for (const auto& ps : model.parameter_sets())
        if (!ps.constrained)
            for (std::int64_t i = 0; i < ps.n; ++i) free_unconstrained += cfg.fixed[static_cast<std::size_t>(ps.offset + i)] ? 0 : 1;
    r.ndof = model.n_main() - free_unconstrained;
    r.p_value = r.ndof > 0 ? boost::math::gamma_q(0.5 * static_cast<double>(r.ndof), 0.5 * std::max(r.chi2, 0.0))
                           : std::numeric_limits<double>::quiet_NaN();
    return r;
}

}  // namespace hf::infer
