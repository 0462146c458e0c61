// Other basins of a fit (see basin_search.hpp and core/model/multimodal.cpp for why they exist).
//
// A multimodal parameter's profile can have a minimum on each side of a hump, so a local fit from the start ends on
// whichever side its first steps favoured. From the local minimum, each multimodal parameter a whose profile the
// data can turn over there (can_turn_over; value y_a, in units of its constraint width) is moved to y_a - kShift,
// y_a + kShift and to its mirror -y_a, the other parameters staying where they are, and a quasi-Newton descent
// runs from there; so do starts given by the caller (other fits' minima). A descent whose moved parameter is back
// within kReturned of the minimum's value is in the basin already known and stops at once, so a parameter with one
// basin costs a few gradient evaluations; one from a given start stops once it has settled next to the minimum
// (settled_at, the rule of the toys' second descents). An end point below the minimum descends to its end and gets
// the Newton polish; the lowest converged minimum wins, and the search repeats from it (the other parameters may
// now have another side to try) for up to kRounds rounds.
#include "infer/minimize/basin_search.hpp"

#include <algorithm>
#include <cmath>

#include "hfcore/backend.hpp"
#include "infer/minimize/routines_on_fibers.hpp"
#include "model/multimodal.hpp"

namespace hf::infer::detail {

namespace {

constexpr double kShift = 1.5;     // constraint widths: beyond the hump of a double well centred near 0
constexpr double kReturned = 0.3;  // constraint widths: back in the basin the search started from
constexpr double kMirrorFrom = 0.3;  // a parameter this close to 0 has no mirror of its own
constexpr int kRounds = 3;
// The search evaluates the likelihood at most this many times as often as the local fit did: small models
// (up to kSmallModel bins x parameters) get kBudgetSmall; larger ones, where every local fit is costly and many
// parameters can turn over, kBudgetLarge. Trade-off: a lower minimum behind a start past the budget is not found
// (counted in BasinSearch::skipped) (docs/decisions/basin-search-budget.md).
constexpr double kBudgetSmall = 3.0;
constexpr double kBudgetLarge = 1.0;
constexpr double kSmallModel = 2e4;
constexpr int kDescentEvaluations = 1000;

// A multimodal parameter's profile turns over at about D = 1 (below); those under this cannot, with a margin for
// the quadratic approximation and for residuals that change between the basins.
constexpr double kTurnover = 0.5;

// The shifted and mirrored values of a multimodal parameter at v (scaled units) within [lo, hi]: v - kShift,
// v + kShift, and -v where v is far enough from 0 to have a mirror of its own; none squeezed against a bound or
// within kReturned of another.
std::vector<double> basin_values(double v, double lo, double hi) {
    std::vector<double> targets = {v - kShift, v + kShift};
    if (std::fabs(v) > kMirrorFrom) targets.push_back(-v);
    std::vector<double> used;
    for (double t : targets) {
        t = std::clamp(t, lo, hi);
        if (std::fabs(t - v) < 2 * kReturned) continue;  // squeezed against a bound: nowhere else to go
        if (std::any_of(used.begin(), used.end(), [&](double u) { return std::fabs(u - t) < kReturned; })) continue;
        used.push_back(t);
    }
    return used;
}

}  // namespace

// Of each point's candidates (free indices of multimodal parameters), those whose profile can turn over there.
// The even part of the expected counts in parameter a, E_b = (lambda_b(+1) + lambda_b(-1)) / 2 - lambda_b(0) with every
// other parameter where the fit left it (so normfactors and other factors scale it as they do the yields), adds
// -2 E_b (n_b - lambda_b) / lambda_b to the profile's curvature per bin (the Poisson term's second derivative;
// multimodal.cpp), against the constraint's 1 and the odd part's positive share: a turnover needs
// D_a = sum_b 2 E_b (n_b - lambda_b(0)) / lambda_b(0) above 1. The sum is signed: bins pulled the other way
// stiffen the profile (with 100 bins of random pulls, absolute values would add up to a turnover that is not
// there). Three evaluations per candidate, batched over the points.
std::vector<std::vector<std::size_t>> turning_parameters(const Model& model, const Problem& p, const double* xs,
                                                         const double* data, std::size_t data_stride,
                                                         const std::vector<std::vector<std::size_t>>& candidates) {
    const std::size_t count = candidates.size();
    std::vector<std::vector<std::size_t>> out(count);
    constexpr std::size_t kTurnoverBatch = 8192;  // points per evaluation
    auto& be = *model.backend();
    const std::size_t np = static_cast<std::size_t>(model.n_pars());
    const std::size_t nb = static_cast<std::size_t>(model.n_main());
    std::vector<double> flat;
    for (std::size_t first = 0; first < count;) {
        // The points [first, last) with at most kTurnoverBatch evaluation points between them (at least one).
        std::size_t last = first, rows = 0;
        while (last < count && (last == first || rows + 3 * candidates[last].size() <= kTurnoverBatch))
            rows += 3 * candidates[last++].size();
        if (rows > 0) {
            flat.clear();
            flat.reserve(rows * np);
            for (std::size_t k = first; k < last; ++k) {
                const double* x = xs + k * np;
                for (std::size_t a : candidates[k])
                    for (double v : {0.0, 1.0, -1.0}) {
                        flat.insert(flat.end(), x, x + np);
                        flat[flat.size() - np + static_cast<std::size_t>(p.free[a])] = v;
                    }
            }
            const auto lam = be.to_host_double(model.expected_data(
                be.from_host(flat, {static_cast<std::int64_t>(rows), static_cast<std::int64_t>(np)}), false));
            const double* l0 = lam.data();
            for (std::size_t k = first; k < last; ++k) {
                const double* d = data + k * data_stride;
                for (std::size_t a : candidates[k]) {
                    const double* lp = l0 + nb;
                    const double* lm = lp + nb;
                    double sum = 0.0;
                    for (std::size_t b = 0; b < nb; ++b) {
                        if (!(l0[b] > 0.0)) continue;
                        sum += (lp[b] + lm[b] - 2.0 * l0[b]) * (d[b] - l0[b]) / l0[b];
                    }
                    if (!(sum < kTurnover)) out[k].push_back(a);
                    l0 += 3 * nb;
                }
            }
        }
        first = last;
    }
    return out;
}

bool back_in_basin(const std::vector<double>& y, const std::vector<double>& known,
                   const std::vector<std::size_t>& multimodal, std::size_t moved) {
    if (std::fabs(y[moved] - known[moved]) >= kReturned) return false;
    return std::none_of(multimodal.begin(), multimodal.end(), [&](std::size_t a) {
        return y[a] * known[a] < 0.0 && std::fabs(y[a] - known[a]) >= kReturned;
    });
}

namespace {

// settled_at: a descent that has slowed down (projected gradient below kSettling, scaled units) within kSettled of
// every component of the known minimum is in its basin: the rest of the descent would only reproduce that minimum.
// Trade-off: a descent that would have gone on to a lower minimum nearby, rarely and by little, stops
// (docs/decisions/basin-search-settled.md).
constexpr double kSettling = 1.0;
constexpr double kSettled = 0.05;
// Where the known minimum is inside every bound, kReturned of every component suffices if each multimodal
// parameter is on the minimum's side of zero or within kSettled of it. Both conditions keep lower minima that a
// descent reaches by leaving a bound or by crossing zero (docs/decisions/basin-search-settled.md).
bool inside_bounds(const Problem& p, const std::vector<double>& y) {
    for (std::size_t i = 0; i < y.size(); ++i)
        if (!(y[i] > p.lo[i] && y[i] < p.hi[i])) return false;
    return true;
}

}  // namespace

bool settled_at(const Problem& p, const std::vector<double>& y, double pg_max, const std::vector<double>& known,
                const std::vector<std::size_t>& multimodal) {
    if (!(pg_max < kSettling)) return false;
    const bool inside = inside_bounds(p, known);
    const double reach = inside ? kReturned : kSettled;
    for (std::size_t i = 0; i < y.size(); ++i)
        if (!(std::fabs(y[i] - known[i]) < reach)) return false;
    if (!inside) return true;
    return std::all_of(multimodal.begin(), multimodal.end(), [&](std::size_t a) {
        return y[a] * known[a] > 0.0 || std::fabs(y[a] - known[a]) < kSettled;
    });
}

std::vector<std::size_t> multimodal_free(const Model& model, const Problem& p) {
    std::vector<std::size_t> out;
    const auto& mm = hf::multimodal_parameters(model);
    for (std::size_t a = 0; a < p.nfree(); ++a)
        if (std::binary_search(mm.begin(), mm.end(), static_cast<std::int64_t>(p.free[a]))) out.push_back(a);
    return out;
}

std::vector<std::vector<double>> basin_starts(const Problem& p, const std::vector<double>& y, std::size_t a) {
    std::vector<std::vector<double>> out;
    for (double t : basin_values(y[a], p.lo[a], p.hi[a])) {
        out.push_back(y);
        out.back()[a] = t;
    }
    return out;
}

namespace {

std::vector<std::size_t> can_turn_over(const Model& model, const Problem& p, const std::vector<double>& y,
                                       const std::vector<std::size_t>& multimodal) {
    if (multimodal.empty()) return {};
    std::vector<std::size_t> out;
    auto turning = [&] {
        const auto x = p.to_x(y);
        const auto data = model.backend()->to_host_double(p.lik.data());
        out = turning_parameters(model, p, x.data(), data.data(), data.size(), {multimodal}).front();
    };
    // In a lockstep (routines_on_fibers.hpp) the backend is the lockstep's thread's.
    if (p.lockstep)
        p.lockstep->on_host(turning);
    else
        turning();
    return out;
}

}  // namespace

bool can_be_multimodal(const Model& model, const std::vector<bool>& fixed) {
    for (std::int64_t i : hf::multimodal_parameters(model))
        if (static_cast<std::size_t>(i) < fixed.size() && !fixed[i]) return true;
    return false;
}

BasinSearch search_basins(const Model& model, Problem& p, std::vector<double>& y, double& f, NewtonOutcome& newton,
                          double tol, const std::vector<std::vector<double>>& given) {
    BasinSearch out;
    const std::size_t n = p.nfree();
    if (n == 0) return out;
    const std::vector<std::size_t> multimodal = multimodal_free(model, p);  // free indices
    const double size = static_cast<double>(model.n_main()) * static_cast<double>(model.n_pars());
    const double budget = size <= kSmallModel ? kBudgetSmall : kBudgetLarge;
    const std::int64_t budget_end = p.n_eval + static_cast<std::int64_t>(budget * static_cast<double>(p.n_eval));
    for (int round = 0; round < kRounds; ++round) {
        const auto turning = can_turn_over(model, p, y, multimodal);
        std::vector<std::pair<std::vector<double>, int>> starts;  // start, the moved parameter (-1: a given start)
        if (round == 0) {
            for (const auto& x : given) {
                auto ys = p.to_y(x);
                for (std::size_t i = 0; i < n; ++i) ys[i] = std::clamp(ys[i], p.lo[i], p.hi[i]);
                starts.emplace_back(std::move(ys), -1);
            }
        }
        for (std::size_t a : turning)
            for (auto& ys : basin_starts(p, y, a)) starts.emplace_back(std::move(ys), static_cast<int>(a));
        // A descent that came back to the known minimum's basin stops there: from a start that moved a
        // multimodal parameter, back_in_basin; from a given start, settled_at.
        auto back_rule = [&p, &multimodal, c = y](int moved) -> StopRule {
            if (moved >= 0)
                return [&multimodal, c, moved](const std::vector<double>& yy, const std::vector<double>&) {
                    return back_in_basin(yy, c, multimodal, static_cast<std::size_t>(moved));
                };
            return [&p, &multimodal, c](const std::vector<double>& yy, const std::vector<double>& g) {
                if (g.size() != yy.size()) return false;
                std::vector<double> pg;
                project_gradient(yy, g, p.lo, p.hi, pg);
                double pg_max = 0.0;
                for (double v : pg) pg_max = std::max(pg_max, std::fabs(v));
                return settled_at(p, yy, pg_max, c, multimodal);
            };
        };
        std::vector<double> best_y;
        double best_f = f;
        NewtonOutcome best_newton;
        for (auto& [ys, moved] : starts) {
            if (p.n_eval >= budget_end) {
                ++out.skipped;
                continue;
            }
            double f2 = p.nll(ys, nullptr);
            if (!std::isfinite(f2)) continue;
            ++out.candidates;
            // Gradients only first: most starts fall back into a basin already known, and only a lower end point is
            // worth the Newton polish.
            quasi_newton(p, QuasiNewton::lbfgs, ys, f2,
                         static_cast<int>(std::clamp<std::int64_t>(budget_end - p.n_eval, 1, kDescentEvaluations)), back_rule(moved));
            if (!(f2 < best_f - 1e-7)) continue;
            // Lower than the known minimum: a descent stopped early (back near the known basin's values while it
            // was still falling) goes on to its end.
            quasi_newton(p, QuasiNewton::lbfgs, ys, f2,
                         static_cast<int>(std::clamp<std::int64_t>(budget_end - p.n_eval, 1, kDescentEvaluations)));
            NewtonOutcome n2 = newton_polish(p, ys, f2, tol, 40, nullptr);
            if (n2.converged && f2 < best_f - std::max(1e-9, 10 * tol)) {
                best_f = f2;
                best_y = ys;
                best_newton = n2;
            }
        }
        if (best_y.empty()) break;
        y = best_y;
        f = best_f;
        newton = best_newton;
        out.moved = true;
    }
    return out;
}

}  // namespace hf::infer::detail
