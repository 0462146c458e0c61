// The basin search of fit() (basin_search.cpp) for a batch of toy fits (batch_fit.hpp, search_toy_basins).
//
// A toy's fits must search the other basins of the multimodal parameters as the observed data's fits do, or the
// toys' test statistics and CLs depend on which basin their starts lead to. A single fit's gate costs as much as
// the toy fits themselves, so candidates come from an estimate first: the even response at the toy's minimum
// taken as the nominal one scaled with the bin's expectation (exact where a bin's samples scale together), which
// needs one evaluation per toy. The kCandidates largest estimates at or above kCandidate (half the gate's
// kTurnover) then get the exact test, and those that pass, the single fit's starts. Trade-off: a lower minimum
// behind a parameter outside the kCandidates largest estimates is not found (docs/decisions/toy-basin-search.md).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "hfcore/backend.hpp"
#include "hfcore/plugin/likelihood.hpp"
#include "infer/minimize/basin_search.hpp"
#include "infer/minimize/problem.hpp"
#include "infer/minimize/batch_fit.hpp"
#include "model/multimodal.hpp"

namespace hf::infer::detail {

namespace {

// A toy whose minimum moved searches again from the new one, as a single fit does (basin_search.cpp, kRounds).
constexpr int kRounds = 3;
// Lower than the toy's minimum by more than this (twice_nll): another basin, not the same minimum reached again.
constexpr double kLower = 1e-6;
// The estimated turnover measure a candidate needs, and how many candidates a toy's fit gets.
constexpr double kCandidate = 0.25;
constexpr std::size_t kCandidates = 2;

// Per toy (xs [T, P], data rows of `width`), the multimodal parameters (free indices) whose estimated D
// = sum_b 2 E_b (n_b - lambda_b) / lambda_b, with E_b = E_b(nominal) lambda_b / lambda_b(nominal), is largest
// and at least kCandidate.
std::vector<std::vector<std::size_t>> candidates(const Model& model, const std::vector<std::size_t>& multimodal,
                                                 const std::vector<double>& even, const std::vector<double>& nominal,
                                                 const std::vector<double>& xs, const std::vector<double>& rows,
                                                 std::size_t width) {
    auto& be = *model.backend();
    const std::size_t np = static_cast<std::size_t>(model.n_pars());
    const std::size_t nb = static_cast<std::size_t>(model.n_main());
    const std::size_t T = xs.size() / np;
    const auto lam = be.to_host_double(model.expected_data(
        be.from_host(xs, {static_cast<std::int64_t>(T), static_cast<std::int64_t>(np)}), false));
    std::vector<std::vector<std::size_t>> out(T);
    std::vector<double> pull(nb), d(multimodal.size());
    std::vector<std::size_t> order(multimodal.size());
    for (std::size_t k = 0; k < T; ++k) {
        for (std::size_t b = 0; b < nb; ++b) {
            const double l = lam[k * nb + b];
            pull[b] = l > 0.0 && nominal[b] > 0.0 ? 2.0 * (rows[k * width + b] - l) / nominal[b] : 0.0;
        }
        for (std::size_t m = 0; m < multimodal.size(); ++m) {
            double s = 0.0;
            for (std::size_t b = 0; b < nb; ++b) s += even[m * nb + b] * pull[b];
            d[m] = s;
        }
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return d[a] > d[b]; });
        for (std::size_t i = 0; i < std::min(kCandidates, order.size()) && d[order[i]] >= kCandidate; ++i)
            out[k].push_back(multimodal[order[i]]);
    }
    return out;
}

}  // namespace

void search_toy_basins(const Model& model, const Tensor& data_kn, const FitConfig& config, const FitOptions& options,
                       const std::vector<double>& start, BatchFitResult& fits) {
    const FitConfig cfg = config.resolved(model);
    const Problem p = make_problem(model, Tensor(), cfg);
    const std::vector<std::size_t> multimodal = multimodal_free(model, p);
    if (multimodal.empty()) return;
    const PackedLikelihood& pk = packed_likelihood(model);
    std::vector<std::int64_t> pars;
    for (std::size_t a : multimodal) pars.push_back(p.free[a]);
    const std::vector<double> even = hf::detail::nominal_even_response(pk, pars);
    const std::vector<double> nominal = hf::detail::nominal_bins(pk);
    auto& be = *model.backend();
    const std::size_t K = static_cast<std::size_t>(data_kn.dim(0));
    const std::size_t np = static_cast<std::size_t>(model.n_pars());
    const std::size_t width = static_cast<std::size_t>(data_kn.dim(1));
    const std::vector<double> data = be.to_host_double(data_kn);
    std::vector<char> search(fits.converged.begin(), fits.converged.end());
    for (int round = 0; round < kRounds; ++round) {
        std::vector<std::size_t> toys;
        for (std::size_t k = 0; k < K; ++k)
            if (search[k]) toys.push_back(k);
        if (toys.empty()) return;
        std::vector<double> xs(toys.size() * np), rows(toys.size() * width);
        for (std::size_t i = 0; i < toys.size(); ++i) {
            std::copy_n(fits.bestfit.begin() + static_cast<std::ptrdiff_t>(toys[i] * np), np, xs.begin() + i * np);
            std::copy_n(data.begin() + static_cast<std::ptrdiff_t>(toys[i] * width), width, rows.begin() + i * width);
        }
        const auto turning = turning_parameters(
            model, p, xs.data(), rows.data(), width, candidates(model, multimodal, even, nominal, xs, rows, width));
        std::vector<std::int64_t> owner;  // the toy of each start
        std::vector<double> starts;       // [S, P]
        BasinReturn back;
        back.multimodal = &multimodal;
        for (std::size_t i = 0; i < toys.size(); ++i) {
            if (turning[i].empty()) continue;
            const std::vector<double> y = p.to_y(std::vector<double>(xs.begin() + i * np, xs.begin() + (i + 1) * np));
            for (std::size_t a : turning[i])
                for (const auto& ys : basin_starts(p, y, a)) {
                    const auto x = p.to_x(ys);
                    starts.insert(starts.end(), x.begin(), x.end());
                    owner.push_back(static_cast<std::int64_t>(toys[i]));
                    back.moved.push_back(static_cast<int>(a));
                }
        }
        std::fill(search.begin(), search.end(), 0);
        if (owner.empty()) return;
        // Each start with its toy's data and minimum: a descent that falls back into that basin stops there.
        const std::size_t S = owner.size();
        BatchFitResult known;
        known.bestfit.resize(S * np);
        known.twice_nll.resize(S);
        known.converged.assign(S, true);
        for (std::size_t j = 0; j < S; ++j) {
            const auto k = static_cast<std::size_t>(owner[j]);
            std::copy_n(fits.bestfit.begin() + static_cast<std::ptrdiff_t>(k * np), np, known.bestfit.begin() + j * np);
            known.twice_nll[j] = fits.twice_nll[k];
        }
        const Tensor d = be.gather(data_kn, be.from_host_index(owner), 0);
        const BatchFitResult r = batch_fit_known_from(model, d, cfg, options, start, starts, known, back);
        for (std::size_t j = 0; j < S; ++j) {
            const auto k = static_cast<std::size_t>(owner[j]);
            if (!r.converged[j] || !(r.twice_nll[j] < fits.twice_nll[k] - kLower)) continue;
            fits.twice_nll[k] = r.twice_nll[j];
            std::copy_n(r.bestfit.begin() + static_cast<std::ptrdiff_t>(j * np), np,
                        fits.bestfit.begin() + static_cast<std::ptrdiff_t>(k * np));
            search[k] = 1;
        }
    }
}

}  // namespace hf::infer::detail
