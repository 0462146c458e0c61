// Profile-likelihood scans of one or two parameters. Every grid point is a fit with the scanned parameters held
// (held_fits.hpp), warm-started along the grid outward from the free fit's minimum; then each point is refitted from
// its neighbours' minima (moved to its own values) and the lowest is kept, so a scan never stays in a basin that a
// neighbour shows to be higher (only neighbours whose minima lie in another basin are tried). A point below the free
// fit redoes the free fit and the scan.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

#include "infer/diagnostics/held_fits.hpp"
#include "hfcore/observed_data.hpp"

namespace hf::infer {

ScanAxis ScanAxis::linear(std::string name, double lo, double hi, int n) {
    ScanAxis a;
    a.name = std::move(name);
    if (n < 2) {
        std::ostringstream os;
        os << "a scan needs at least 2 points, got " << n;
        throw InputError("profile", "range", os.str());
    }
    for (int i = 0; i < n; ++i) a.values.push_back(lo + (hi - lo) * i / (n - 1));
    a.values.back() = hi;
    return a;
}

namespace {

struct Axis {
    std::size_t index;
    std::vector<double> values;
};

std::vector<Axis> check_axes(const Model& model, const std::vector<ScanAxis>& axes, const FitConfig& cfg) {
    if (axes.empty() || axes.size() > 2)
        throw InputError("profile", "pars", "a profile scans one or two parameters, got " + std::to_string(axes.size()));
    std::vector<Axis> out;
    std::set<std::size_t> seen;
    for (const auto& a : axes) {
        const auto i = static_cast<std::size_t>(detail::parameter_index(model, a.name, "profile"));
        if (!seen.insert(i).second) throw InputError("profile", a.name, "the parameter is scanned twice");
        if (cfg.fixed[i])
            throw InputError("profile", a.name, "the parameter is fixed in the fit configuration; a profile needs it free");
        if (a.values.size() < 2)
            throw InputError("profile", a.name, "a scan needs at least 2 values, got " + std::to_string(a.values.size()));
        for (std::size_t j = 1; j < a.values.size(); ++j)
            if (!(a.values[j] > a.values[j - 1]))
                throw InputError("profile", a.name, "the scan values must increase");
        const auto [lo, hi] = cfg.bounds[i];
        for (double v : a.values)
            if (!(v >= lo && v <= hi)) {
                std::ostringstream os;
                os.precision(10);
                os << "the scan value " << v << " is outside the parameter's bounds [" << lo << ", " << hi << "]";
                throw InputError("profile", a.name, os.str());
            }
        out.push_back({i, a.values});
    }
    return out;
}

// Where delta crosses `level` on each side of the grid's minimum, interpolating sqrt(delta) linearly (exact for
// a parabolic profile). An end outside the grid is the parameter's bound when the grid reaches it.
std::pair<std::optional<double>, std::optional<double>> crossings(const std::vector<double>& x,
                                                                  const std::vector<double>& delta, double level,
                                                                  std::pair<double, double> bounds) {
    const std::size_t n = x.size();
    std::size_t m = 0;
    for (std::size_t j = 1; j < n; ++j)
        if (delta[j] < delta[m]) m = j;
    const double target = std::sqrt(level);
    auto cross = [&](std::size_t inner, std::size_t outer) {
        const double si = std::sqrt(std::max(delta[inner], 0.0)), so = std::sqrt(std::max(delta[outer], 0.0));
        return x[inner] + (target - si) / (so - si) * (x[outer] - x[inner]);
    };
    std::pair<std::optional<double>, std::optional<double>> r;
    if (delta[m] >= level) return r;
    for (std::size_t j = m; j-- > 0;)
        if (delta[j] >= level) {
            r.first = cross(j + 1, j);
            break;
        }
    if (!r.first && x.front() == bounds.first) r.first = bounds.first;
    for (std::size_t j = m + 1; j < n; ++j)
        if (delta[j] >= level) {
            r.second = cross(j - 1, j);
            break;
        }
    if (!r.second && x.back() == bounds.second) r.second = bounds.second;
    return r;
}

// The grid's points fitted in rings of one standard deviation around the free fit's minimum, outward: the
// innermost ring starts from the free fit's linear prediction, every later one from the nearest point already
// fitted (moved along the covariance), so that far points start next to their answer. Each ring is one batch.
template <class HeldAt>
std::vector<HeldFit> outward_from_minimum(detail::HeldFits& ff, const std::vector<Axis>& axes,
                                                          std::size_t npts, const HeldAt& held_at) {
    const FitResult& free = ff.free_fit();
    // Distance of every point from the minimum in units of each scanned parameter's uncertainty.
    auto scaled = [&](const detail::HeldValues& f, std::size_t a) {
        const auto i = static_cast<std::size_t>(f[a].first);
        const double w = free.uncertainties[i] > 0 ? free.uncertainties[i] : 1.0;
        return (f[a].second - free.bestfit[i]) / w;
    };
    std::vector<double> dist(npts, 0.0);
    for (std::size_t j = 0; j < npts; ++j) {
        const auto f = held_at(j);
        for (std::size_t a = 0; a < axes.size(); ++a) dist[j] = std::max(dist[j], std::fabs(scaled(f, a)));
    }
    std::vector<HeldFit> out(npts);
    std::vector<std::size_t> done;
    for (int ring = 0; done.size() < npts; ++ring) {
        std::vector<std::size_t> members;
        for (std::size_t j = 0; j < npts; ++j)
            if (dist[j] < ring + 1 && (ring == 0 || dist[j] >= ring)) members.push_back(j);
        if (members.empty()) continue;
        std::vector<detail::HeldFitProblem> problems;
        for (std::size_t j : members) {
            const auto f = held_at(j);
            const HeldFit* near = nullptr;
            double best_d = std::numeric_limits<double>::infinity();
            for (std::size_t k : done) {
                if (!out[k].converged) continue;
                const auto g = held_at(k);
                double d = 0.0;
                for (std::size_t a = 0; a < axes.size(); ++a) d = std::max(d, std::fabs(scaled(f, a) - scaled(g, a)));
                if (d < best_d) {
                    best_d = d;
                    near = &out[k];
                }
            }
            problems.push_back({f, ring == 0 || !near ? std::vector<double>{} : ff.predicted_start(f, &near->bestfit)});
        }
        auto outs = ff.run(problems);
        for (std::size_t m = 0; m < members.size(); ++m) {
            out[members[m]] = std::move(outs[m]);
            done.push_back(members[m]);
        }
    }
    return out;
}

// HeldFits reports progress per batch; a profile runs many batches (rings, sweeps, restarts). The user sees
// one count over all of them, against the grid's size until more fits than that are needed.
ProgressFn across_batches(ProgressFn user, std::int64_t planned) {
    if (!user) return user;
    struct Count {
        std::mutex m;
        std::int64_t finished = 0;  // fits of the batches already over
    };
    auto count = std::make_shared<Count>();
    return [user = std::move(user), planned, count](std::int64_t done, std::int64_t total, const std::string& label) {
        std::lock_guard<std::mutex> lock(count->m);
        const std::int64_t shown_done = count->finished + done;
        const std::int64_t shown_total = std::max(planned, count->finished + total);
        if (done == total) count->finished += total;
        user(shown_done, shown_total, label);
    };
}

}  // namespace

ProfileResult profile_scan(const Model& model, const std::vector<double>& data, const std::vector<ScanAxis>& axes_in,
                           const DiagnosticOptions& options) {
    check_observed_data(model, data, "profile");
    DiagnosticOptions opts = options;
    opts.config = options.config.resolved(model);
    const std::vector<Axis> axes = check_axes(model, axes_in, opts.config);
    const std::size_t n0 = axes[0].values.size(), n1 = axes.size() > 1 ? axes[1].values.size() : 1;
    const std::size_t npts = n0 * n1;
    opts.progress = across_batches(options.progress, static_cast<std::int64_t>(npts));
    auto held_at = [&](std::size_t j) {
        detail::HeldValues f{{static_cast<std::int64_t>(axes[0].index), axes[0].values[j / n1]}};
        if (axes.size() > 1) f.emplace_back(static_cast<std::int64_t>(axes[1].index), axes[1].values[j % n1]);
        return f;
    };
    auto neighbours = [&](std::size_t j) {
        std::vector<std::size_t> nb;
        const std::size_t a = j / n1, b = j % n1;
        if (a > 0) nb.push_back(j - n1);
        if (a + 1 < n0) nb.push_back(j + n1);
        if (b > 0) nb.push_back(j - 1);
        if (b + 1 < n1) nb.push_back(j + 1);
        return nb;
    };

    detail::HeldFits ff(model, data, opts);
    ProfileResult r;
    std::vector<HeldFit> best;
    for (;;) {
        best = outward_from_minimum(ff, axes, npts, held_at);
        // Along the grid: each point again from its neighbours' minima, until no point improves.
        for (int sweep = 0; sweep < 4; ++sweep) {
            std::vector<detail::HeldFitProblem> again;
            std::vector<std::size_t> target;
            for (std::size_t j = 0; j < npts; ++j)
                for (std::size_t k : neighbours(j)) {
                    if (best[k].bestfit.empty() || !std::isfinite(best[k].twice_nll)) continue;
                    auto start = ff.predicted_start(held_at(j), &best[k].bestfit);
                    // A neighbour in the same basin (its minimum, moved to this point, lands on this point's
                    // minimum) has nothing to offer; one in another basin is tried.
                    if (std::isfinite(best[j].twice_nll) && best[j].converged &&
                        ff.scaled_distance(start, best[j].bestfit) < 0.2)
                        continue;
                    again.push_back({held_at(j), std::move(start)});
                    target.push_back(j);
                }
            if (again.empty()) break;
            auto outs = ff.run(again);
            bool improved = false;
            for (std::size_t q = 0; q < outs.size(); ++q) {
                auto& cur = best[target[q]];
                const double margin = 1e-7 + 1e-12 * std::fabs(cur.twice_nll);
                const bool better = std::isfinite(outs[q].twice_nll) &&
                                    (!std::isfinite(cur.twice_nll) || outs[q].twice_nll < cur.twice_nll - margin ||
                                     (!cur.converged && outs[q].converged && outs[q].twice_nll <= cur.twice_nll + margin));
                if (better) {
                    cur = std::move(outs[q]);
                    improved = true;
                }
            }
            if (!improved) break;
        }
        if (ff.restarts < 2 && ff.free_fit_improved(best)) continue;
        break;
    }

    r.free_fit = ff.free_fit();
    r.restarts = ff.restarts;
    for (const auto& a : axes) {
        r.pars.push_back(model.par_names()[a.index]);
        r.bestfit.push_back(r.free_fit.bestfit[a.index]);
    }
    r.twice_nll_min = r.free_fit.twice_nll;
    for (const auto& o : best)
        if (std::isfinite(o.twice_nll)) r.twice_nll_min = std::min(r.twice_nll_min, o.twice_nll);
    r.converged = r.free_fit.converged;
    for (std::size_t j = 0; j < npts; ++j) {
        ProfilePoint pt;
        for (const auto& [i, v] : held_at(j)) pt.values.push_back(v);
        pt.twice_nll = best[j].twice_nll;
        pt.delta_twice_nll = best[j].twice_nll - r.twice_nll_min;
        pt.converged = best[j].converged;
        pt.bestfit = best[j].bestfit;
        r.converged = r.converged && pt.converged;
        r.points.push_back(std::move(pt));
    }
    if (axes.size() == 1) {
        std::vector<double> delta;
        for (const auto& p : r.points) delta.push_back(p.delta_twice_nll);
        const auto bounds = opts.config.bounds[axes[0].index];
        r.intervals["68"] = crossings(axes[0].values, delta, 1.0, bounds);
        r.intervals["95"] = crossings(axes[0].values, delta, 3.841458820694124, bounds);  // chi2(1) 95% quantile
    }
    return r;
}

}  // namespace hf::infer
