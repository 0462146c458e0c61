// Other basins of a fit (see basins.hpp and core/model/multimodal.cpp for why they exist).
//
// A multimodal parameter's profile can have a minimum on each side of a hump, so a local fit from the start ends on
// whichever side its first steps favoured. From the local minimum, each multimodal parameter a whose profile the
// data can turn over there (can_turn_over; value y_a, in units of its constraint width) is moved to y_a - kShift,
// y_a + kShift and to its mirror -y_a, the other parameters staying where they are, and a quasi-Newton descent
// runs from there; so do starts given by the caller (other fits' minima). A descent whose multimodal parameters
// are all back within kReturned of the minimum's is in the basin already known and stops at once, so a parameter
// with one basin costs a few gradient evaluations. An end point below the minimum descends to its end and gets
// the Newton polish; the lowest converged minimum wins, and the search repeats from it (the other parameters may
// now have another side to try) for up to kRounds rounds.
#include "infer/basins.hpp"

#include <algorithm>
#include <cmath>

#include "hfcore/backend.hpp"

namespace hf::infer::detail {

namespace {

constexpr double kShift = 1.5;     // constraint widths: beyond the hump of a double well centred near 0
constexpr double kReturned = 0.3;  // constraint widths: back in the basin the search started from
constexpr double kMirrorFrom = 0.3;  // a parameter this close to 0 has no mirror of its own
constexpr int kRounds = 3;
// The search evaluates the likelihood at most this many times as often as the local fit did: on large models with
// many parameters that can turn over (the synthetic family's 1000 bins) it would otherwise cost 25 local fits.
// Models up to kSmallModel bins x parameters (a fit of a few ms) get kBudgetSmall; larger ones, where every local
// fit is costly, kBudgetLarge (the synthetic 1000-bin, 100-parameter fit then costs ~2x, from ~5x).
constexpr double kBudgetSmall = 3.0;
constexpr double kBudgetLarge = 1.0;
constexpr double kSmallModel = 2e4;
constexpr int kDescentEvaluations = 1000;

// A multimodal parameter's profile turns over at about D = 1 (below); those under this cannot, with a margin for
// the quadratic approximation and for residuals that change between the basins.
constexpr double kTurnover = 0.5;

// Of the model's multimodal parameters (free indices), those whose profile can turn over at this minimum. The even
// part of the expected counts in parameter a, E_b = (lambda_b(+1) + lambda_b(-1)) / 2 - lambda_b(0) with every
// other parameter where the fit left it (so normfactors and other factors scale it as they do the yields), adds
// -2 E_b (n_b - lambda_b) / lambda_b to the profile's curvature per bin (the Poisson term's second derivative;
// multimodal.cpp), against the constraint's 1 and the odd part's positive share: a turnover needs
// D_a = sum_b 2 E_b (n_b - lambda_b(0)) / lambda_b(0) above 1. The sum is signed: bins pulled the other way
// stiffen the profile (with 100 bins of random pulls, absolute values would add up to a turnover that is not
// there). One batched evaluation of the expected counts (3 points per parameter) and one download of the data.
std::vector<std::size_t> can_turn_over(const Model& model, const Problem& p, const std::vector<double>& y,
                                       const std::vector<std::size_t>& multimodal) {
    if (multimodal.empty()) return {};
    auto& be = *model.backend();
    const std::size_t np = static_cast<std::size_t>(model.n_pars());
    const std::size_t nb = static_cast<std::size_t>(model.n_main());
    const auto x = p.to_x(y);
    std::vector<double> flat;
    flat.reserve(3 * multimodal.size() * np);
    for (std::size_t a : multimodal) {
        for (double v : {0.0, 1.0, -1.0}) {
            flat.insert(flat.end(), x.begin(), x.end());
            flat[flat.size() - np + static_cast<std::size_t>(p.free[a])] = v;
        }
    }
    const auto k = static_cast<std::int64_t>(3 * multimodal.size());
    const auto lam = be.to_host_double(
        model.expected_data(be.from_host(flat, {k, static_cast<std::int64_t>(np)}), false));
    const auto data = be.to_host_double(p.lik.data());
    std::vector<std::size_t> out;
    for (std::size_t m = 0; m < multimodal.size(); ++m) {
        const double* l0 = &lam[3 * m * nb];
        const double* lp = l0 + nb;
        const double* lm = lp + nb;
        double d = 0.0;
        for (std::size_t b = 0; b < nb; ++b) {
            if (!(l0[b] > 0.0)) continue;
            d += (lp[b] + lm[b] - 2.0 * l0[b]) * (data[b] - l0[b]) / l0[b];
        }
        if (!(d < kTurnover)) out.push_back(multimodal[m]);
    }
    return out;
}

}  // namespace

bool can_be_multimodal(const Model& model, const std::vector<bool>& fixed) {
    for (std::int64_t i : model.multimodal_parameters())
        if (static_cast<std::size_t>(i) < fixed.size() && !fixed[i]) return true;
    return false;
}

BasinSearch search_basins(const Model& model, Problem& p, std::vector<double>& y, double& f, NewtonOutcome& newton,
                          double tol, const std::vector<std::vector<double>>& given) {
    BasinSearch out;
    const std::size_t n = p.nfree();
    if (n == 0) return out;
    std::vector<std::size_t> multimodal;  // free indices
    {
        const auto& mm = model.multimodal_parameters();
        for (std::size_t a = 0; a < n; ++a)
            if (std::binary_search(mm.begin(), mm.end(), static_cast<std::int64_t>(p.free[a]))) multimodal.push_back(a);
    }
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
        for (std::size_t a : turning) {
            const double v = y[a];
            std::vector<double> targets = {v - kShift, v + kShift};
            if (std::fabs(v) > kMirrorFrom) targets.push_back(-v);
            std::vector<double> used;
            for (double t : targets) {
                t = std::clamp(t, p.lo[a], p.hi[a]);
                if (std::fabs(t - v) < 2 * kReturned) continue;  // squeezed against a bound: nowhere else to go
                if (std::any_of(used.begin(), used.end(), [&](double u) { return std::fabs(u - t) < kReturned; }))
                    continue;
                used.push_back(t);
                starts.emplace_back(y, static_cast<int>(a));
                starts.back().first[a] = t;
            }
        }
        // A descent that came back to the known minimum's basin stops there. From a given start: every multimodal
        // parameter back near the minimum's value. From a moved parameter: it is back near its value and no other
        // multimodal parameter crossed to the other side of zero (random_workspace.py seed 35 at mu = 1: the moved
        // parameter returns while another one crosses its hump into the lower basin). Parameters that drift on
        // their own side do not keep a descent going (100 of them in the synthetic model).
        auto back_rule = [&multimodal, c = y](int moved) -> StopRule {
            if (multimodal.empty()) return {};
            return [&multimodal, c, moved](const std::vector<double>& yy) {
                if (moved < 0)
                    return std::all_of(multimodal.begin(), multimodal.end(),
                                       [&](std::size_t a) { return std::fabs(yy[a] - c[a]) < kReturned; });
                const auto m = static_cast<std::size_t>(moved);
                if (std::fabs(yy[m] - c[m]) >= kReturned) return false;
                return std::none_of(multimodal.begin(), multimodal.end(), [&](std::size_t a) {
                    return yy[a] * c[a] < 0.0 && std::fabs(yy[a] - c[a]) >= kReturned;
                });
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
