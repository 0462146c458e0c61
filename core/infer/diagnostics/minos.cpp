// Asymmetric intervals (MINOS): the values where the profile of one parameter reaches 2 Delta NLL = 1, found by
// TOMS 748 root finding on sqrt(2 Delta NLL) - 1 (nearly linear in the parameter, so few fits), each evaluation
// a fit with the parameter held (held_fits.hpp), started from the nearest profile point already fitted.
#include <boost/math/tools/toms748_solve.hpp>
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>

#include "infer/diagnostics/held_fits.hpp"
#include "hfcore/observed_data.hpp"

namespace hf::infer {

namespace {

// Thrown out of the root finder when a fit went below the free fit: the free fit is redone and all starts again.
struct FreeFitImproved {};

class ProfileOfOne {
public:
    ProfileOfOne(detail::HeldFits& ff, std::size_t index) : ff_(ff), index_(index) {}

    // sqrt(max(2 Delta NLL, 0)) - 1 at v.
    double operator()(double v) {
        auto it = cache_.find(v);
        if (it != cache_.end()) return it->second;
        // Start from the fitted point nearest to v, moved along the covariance.
        const std::vector<double>* base = nullptr;
        double dist = std::fabs(v - ff_.free_fit().bestfit[index_]);
        for (const auto& [u, x] : points_)
            if (std::fabs(v - u) < dist) {
                dist = std::fabs(v - u);
                base = &x;
            }
        const detail::HeldValues fixed{{static_cast<std::int64_t>(index_), v}};
        auto out = ff_.run({{fixed, ff_.predicted_start(fixed, base)}});
        ++n_fits;
        if (ff_.restarts < 2 && ff_.free_fit_improved(out)) throw FreeFitImproved{};
        if (!out[0].converged) {
            all_converged = false;
            if (reason.empty()) reason = out[0].reason;
        }
        const double delta = out[0].twice_nll - ff_.free_fit().twice_nll;
        const double g = std::sqrt(std::max(delta, 0.0)) - 1.0;
        points_.emplace_back(v, std::move(out[0].bestfit));
        cache_[v] = g;
        return g;
    }

    std::int64_t n_fits = 0;
    bool all_converged = true;
    std::string reason;

private:
    detail::HeldFits& ff_;
    std::size_t index_;
    std::map<double, double> cache_;
    std::vector<std::pair<double, std::vector<double>>> points_;
};

// One end: direction +1 (upper) or -1 (lower). Returns the end and whether the bound was reached first.
std::pair<double, bool> find_end(ProfileOfOne& prof, double value, double sigma, double bound, int direction) {
    if (!(sigma > 0.0) || !std::isfinite(sigma)) sigma = std::max(1e-3, 1e-3 * std::fabs(value));
    double inner = value, g_inner = -1.0;
    double step = sigma;
    for (int expansion = 0; expansion < 40; ++expansion) {
        double outer = value + direction * step;
        const bool clipped = direction > 0 ? outer >= bound : outer <= bound;
        if (clipped) outer = bound;
        if (outer == inner) return {bound, true};
        const double g_outer = prof(outer);
        if (g_outer >= 0.0) {
            // 1e-7 of the uncertainty, or of the bracket where that is narrower: a flat minimum (random_workspace.py
            // seed 47 with --channels 2 --bins 3 --samples 3) has an uncertainty of thousands, and a tolerance
            // that wide stopped the root finding at its first steps, 0.04 away from the crossing.
            const double tol = 1e-7 * std::min(sigma, std::fabs(outer - inner));
            boost::uintmax_t max_iter = 60;
            auto done = [tol](double a, double b) { return std::fabs(b - a) <= tol; };
            const double a = std::min(inner, outer), b = std::max(inner, outer);
            const double fa = inner < outer ? g_inner : g_outer, fb = inner < outer ? g_outer : g_inner;
            if (fa == 0.0) return {a, false};
            if (fb == 0.0) return {b, false};
            auto fn = [&prof](double v) { return prof(v); };  // toms748_solve copies its functor
            auto r = boost::math::tools::toms748_solve(fn, a, b, fa, fb, done, max_iter);
            // The end of the bracket nearer the root in sqrt(2 Delta NLL).
            const double ga = prof(r.first), gb = prof(r.second);
            return {std::fabs(ga) <= std::fabs(gb) ? r.first : r.second, false};
        }
        if (clipped) return {bound, true};
        inner = outer;
        g_inner = g_outer;
        step *= 2.0;
    }
    throw Error("minos: no crossing of 2 Delta NLL = 1 found within 2^40 standard deviations");
}

}  // namespace

std::vector<MinosInterval> minos(const Model& model, const std::vector<double>& data,
                                 const std::vector<std::string>& names, const DiagnosticOptions& options,
                                 const FitResult* free_fit) {
    check_observed_data(model, data, "minos");
    DiagnosticOptions opts = options;
    opts.config = options.config.resolved(model);
    std::vector<std::size_t> idx;
    for (const auto& n : names) {
        const auto i = static_cast<std::size_t>(detail::parameter_index(model, n, "minos"));
        if (opts.config.fixed[i]) throw InputError("minos", n, "the parameter is fixed in the fit; it has no interval");
        idx.push_back(i);
    }
    detail::HeldFits ff(model, data, opts, free_fit);
    for (;;) {
        std::vector<MinosInterval> out;
        try {
            for (std::size_t k = 0; k < idx.size(); ++k) {
                const std::size_t i = idx[k];
                MinosInterval m;
                m.name = names[k];
                m.value = ff.free_fit().bestfit[i];
                const double sigma = ff.free_fit().uncertainties[i];
                ProfileOfOne prof(ff, i);
                std::tie(m.upper, m.upper_at_bound) = find_end(prof, m.value, sigma, opts.config.bounds[i].second, +1);
                std::tie(m.lower, m.lower_at_bound) = find_end(prof, m.value, sigma, opts.config.bounds[i].first, -1);
                m.n_fits = prof.n_fits;
                m.valid = prof.all_converged && ff.free_fit().converged;
                if (!m.valid) m.reason = prof.reason.empty() ? "the free fit did not converge: " + ff.free_fit().reason
                                                             : prof.reason;
                out.push_back(std::move(m));
            }
        } catch (const FreeFitImproved&) {
            continue;
        }
        return out;
    }
}

}  // namespace hf::infer
