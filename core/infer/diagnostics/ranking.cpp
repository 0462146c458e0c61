// Impacts of the nuisance parameters on the POI (cabinetry fit.ranking): four fits per parameter with it held
// at value +- prefit width and value +- post-fit uncertainty, all of them run together (held_fits.hpp).
#include <algorithm>
#include <cmath>
#include <sstream>

#include "infer/diagnostics/held_fits.hpp"
#include "hfcore/observed_data.hpp"

namespace hf::infer {

RankingResult ranking(const Model& model, const std::vector<double>& data, const RankingOptions& options) {
    check_observed_data(model, data, "ranking");
    RankingResult r;
    if (options.poi.empty()) {
        if (model.poi_index() < 0)
            throw InputError("ranking", "poi", "the model has no POI (set one in the measurement, or name one)");
        r.poi_index = model.poi_index();
    } else {
        r.poi_index = detail::parameter_index(model, options.poi, "ranking");
    }
    const FitConfig cfg = options.config.resolved(model);
    const auto poi = static_cast<std::size_t>(r.poi_index);
    const auto names = model.par_names();
    r.poi = names[poi];
    if (cfg.fixed[poi]) throw InputError("ranking", "poi", "the POI '" + r.poi + "' is fixed in the fit");
    const auto np = static_cast<std::size_t>(model.n_pars());
    bool any_free = false;
    for (std::size_t i = 0; i < np; ++i) any_free = any_free || (i != poi && !cfg.fixed[i]);
    if (!any_free)
        throw InputError("ranking", "parameters",
                         "the model has no free nuisance parameter to rank (every parameter but the POI is fixed)");

    std::vector<double> prefit = prefit_uncertainties(model);
    const std::vector<double> centres = constraint_centres(model, data);
    for (std::size_t i = 0; i < np; ++i)
        if (cfg.fixed[i]) prefit[i] = 0.0;

    RankingOptions opts = options;
    opts.config = cfg;
    detail::HeldFits ff(model, data, opts);
    for (;;) {
        const FitResult& free = ff.free_fit();
        const auto sigma = detail::reported_uncertainties(model, data, free, cfg, options.uncertainties).uncertainties;
        r.ranking.clear();
        std::vector<detail::HeldFitProblem> problems;
        std::vector<std::pair<std::size_t, int>> slot;  // (entry, which impact) of every problem
        for (std::size_t i = 0; i < np; ++i) {
            if (i == poi) continue;
            RankingEntry e;
            e.name = names[i];
            e.index = static_cast<std::int64_t>(i);
            e.value = free.bestfit[i];
            e.uncertainty = cfg.fixed[i] ? 0.0 : sigma[i];
            e.prefit_uncertainty = prefit[i];
            e.centre = centres[i];
            const double targets[4] = {e.value + prefit[i], e.value - prefit[i], e.value + e.uncertainty,
                                       e.value - e.uncertainty};
            for (int w = 0; w < 4; ++w) {
                if (targets[w] == e.value) continue;  // a zero width: no impact, no fit (as cabinetry)
                // A value beyond the parameter's bounds (a wide relative uncertainty of a gamma) is held at the
                // bound: the likelihood may not exist beyond it.
                const double v = std::clamp(targets[w], cfg.bounds[i].first, cfg.bounds[i].second);
                if (v != targets[w]) {
                    std::ostringstream os;
                    os.precision(6);
                    os << (e.reason.empty() ? "" : "; ") << "value " << targets[w] << " outside the bounds, held at " << v;
                    e.reason += os.str();
                }
                problems.push_back({{{static_cast<std::int64_t>(i), v}}, {}});
                slot.emplace_back(r.ranking.size(), w);
            }
            r.ranking.push_back(std::move(e));
        }
        auto outcomes = ff.run(problems);
        if (ff.restarts < 2 && ff.free_fit_improved(outcomes)) continue;
        r.fit = free;
        r.poi_hat = free.bestfit[poi];
        r.poi_uncertainty = sigma[poi];
        r.converged = free.converged;
        r.n_fits = static_cast<std::int64_t>(problems.size());
        for (std::size_t k = 0; k < outcomes.size(); ++k) {
            RankingEntry& e = r.ranking[slot[k].first];
            const double impact = outcomes[k].bestfit[poi] - r.poi_hat;
            switch (slot[k].second) {
                case 0: e.impact_prefit_up = impact; break;
                case 1: e.impact_prefit_down = impact; break;
                case 2: e.impact_postfit_up = impact; break;
                default: e.impact_postfit_down = impact; break;
            }
            if (!outcomes[k].converged) {
                static const char* which[4] = {"pre-fit up", "pre-fit down", "post-fit up", "post-fit down"};
                e.converged = false;
                e.reason += (e.reason.empty() ? "" : "; ") + std::string(which[slot[k].second]) +
                            " fit: " + outcomes[k].reason;
                r.converged = false;
            }
        }
        break;
    }
    r.n_batched = ff.n_batched;
    r.n_refits = ff.n_single;
    r.restarts = ff.restarts;
    auto key = [](const RankingEntry& e) { return std::max(std::fabs(e.impact_postfit_up), std::fabs(e.impact_postfit_down)); };
    std::stable_sort(r.ranking.begin(), r.ranking.end(),
                     [&](const RankingEntry& a, const RankingEntry& b) { return key(a) > key(b); });
    return r;
}

}  // namespace hf::infer
