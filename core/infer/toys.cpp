// The toy calculator (pyhf.infer.calculators.ToyCalculator): toys from the model at the fixed-POI fits for the
// tested POI (s+b) and for mu = 0 (b only; mu = 1 for q0), the test statistic of each toy from batched fits,
// p-values as the fraction of toys at or above the observed value, expected values from the percentiles of the
// p-values of the b-only toys.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "hfcore/backend.hpp"
#include "hfcore/infer_advanced.hpp"
#include "infer/minimize/basin_search.hpp"
#include "infer/stat_internal.hpp"
#include "infer/minimize/batch_fit.hpp"
#include "infer/toys.hpp"
#include "hfcore/observed_data.hpp"

namespace hf::infer {

Tensor sample_toys(const Model& model, const std::vector<double>& pars, std::int64_t first_toy, std::int64_t count,
                   std::uint64_t seed, std::uint32_t stream) {
    auto& be = *model.backend();
    const std::int64_t n_main = model.n_main();
    const std::int64_t width = n_main + model.n_aux();
    const std::vector<double> aux_sigma = model.aux_normal_widths();
    std::vector<double> sigma(static_cast<std::size_t>(n_main), 0.0);  // main data: Poisson
    sigma.insert(sigma.end(), aux_sigma.begin(), aux_sigma.end());
    const bool any_normal = std::any_of(aux_sigma.begin(), aux_sigma.end(), [](double w) { return w > 0.0; });

    Tensor rate = model.expected_data(be.from_host(pars, {1, model.n_pars()}), true);  // [1, width]
    rate = rate.reshape({1, width});
    Tensor rate_k = be.binary(BinaryOp::add, rate, be.full({count, 1}, 0.0));
    // Separate Philox counter ranges per stream and distribution; toy i always uses the same counters.
    const std::uint64_t base_p = (static_cast<std::uint64_t>(2 * stream) << 40) +
                                 static_cast<std::uint64_t>(first_toy) * static_cast<std::uint64_t>(width);
    const std::uint64_t base_n = (static_cast<std::uint64_t>(2 * stream + 1) << 40) +
                                 static_cast<std::uint64_t>(first_toy) * static_cast<std::uint64_t>(width);
    Tensor pois = be.random_poisson(rate_k, seed, base_p);
    if (!any_normal) return pois;
    Tensor sig = be.from_host(sigma, {1, width});
    Tensor z = be.random_normal({count, width}, seed, base_n);
    Tensor gauss = be.binary(BinaryOp::add, rate_k, be.binary(BinaryOp::mul, z, sig));
    Tensor is_gauss = be.binary(BinaryOp::gt, sig, be.full({1}, 0.0));
    return be.where(is_gauss, gauss, pois);
}

namespace detail {

// Per problem, the lower converged minimum of two batched fits of the same problems.
void keep_lower(BatchFitResult& into, const BatchFitResult& other, std::int64_t np) {
    for (std::size_t k = 0; k < into.twice_nll.size(); ++k) {
        if (!other.converged[k]) continue;
        if (into.converged[k] && !(other.twice_nll[k] < into.twice_nll[k])) continue;
        into.twice_nll[k] = other.twice_nll[k];
        into.converged[k] = true;
        std::copy(other.bestfit.begin() + k * np, other.bestfit.begin() + (k + 1) * np, into.bestfit.begin() + k * np);
    }
}

}  // namespace detail

std::vector<double> test_statistic_batch(TestStat stat, double mu, const Model& model, const Tensor& data_kn,
                                         const FitConfig& config, const FitOptions& options, BatchStats* stats) {
    const std::int64_t poi = model.poi_index();
    if (poi < 0)
        throw InputError("", "poi",
                         "No POI is defined. A POI is required for profile likelihood based test statistics.");
    if (stat == TestStat::q0) mu = 0.0;
    FitConfig cfg = config.resolved(model);
    FitConfig fixed_cfg = cfg;
    fixed_cfg.init[poi] = mu;
    fixed_cfg.fixed[poi] = true;
    fixed_cfg = fixed_cfg.resolved(model);
    const std::int64_t K = data_kn.dim(0);
    const std::int64_t np = model.n_pars();

    // Where the model cannot be multimodal, both fits of every toy from options.other_starts' first point (the
    // parameters the toys were drawn at, near which their minima lie), else from the init. Where it can, the
    // fixed fit from each of options.other_starts and from the init, and the free fit from each toy's fixed-POI
    // minimum (a descent from there cannot end above it) and from those starts, keeping each toy's lowest minimum
    // (how these starts compare with others: docs/decisions/batch-fit-shared-curvature.md). The second descent
    // of each fit stops once it has settled next to the minimum the first found (batch_fit_known). Then each
    // fit's basin search (batch_basin_search.cpp), as a single fit has, for the multimodal parameters a toy's
    // data can turn over.
    const MinimizerControls& given = minimizer_controls(options);
    MinimizerControls no_starts = given;
    no_starts.other_starts.clear();
    const FitOptions from_init = with_minimizer_controls(options, no_starts);
    const bool multimodal = given.basin_search && detail::can_be_multimodal(model, cfg.fixed);
    const std::vector<double> init_start;  // empty: the init
    const std::vector<double>& unimodal_start =
        !multimodal && !given.other_starts.empty() ? given.other_starts.front() : init_start;
    BatchFitResult fixed, free;
    if (multimodal && !given.other_starts.empty()) {
        bool first = true;
        for (const auto& start : given.other_starts) {
            if (first)
                fixed = detail::batch_fit(model, data_kn, fixed_cfg, from_init, start);
            else
                detail::keep_lower(fixed, detail::batch_fit_known(model, data_kn, fixed_cfg, from_init, start, fixed),
                                   np);
            first = false;
        }
        detail::keep_lower(fixed, detail::batch_fit_known(model, data_kn, fixed_cfg, from_init, init_start, fixed),
                           np);
        const std::vector<double>& front = given.other_starts.front();  // where the fixed curvature is taken
        detail::search_toy_basins(model, data_kn, fixed_cfg, from_init, front, fixed);
        free = detail::batch_fit_from(model, data_kn, cfg, from_init, front, fixed.bestfit);
        for (const auto& start : given.other_starts)
            detail::keep_lower(free, detail::batch_fit_known(model, data_kn, cfg, from_init, start, free), np);
        detail::search_toy_basins(model, data_kn, cfg, from_init, front, free);
    } else {
        fixed = detail::batch_fit(model, data_kn, fixed_cfg, from_init, unimodal_start);
        free = detail::batch_fit(model, data_kn, cfg, from_init, unimodal_start);
    }

    auto& be = *model.backend();
    std::vector<double> out(static_cast<std::size_t>(K));
    BatchStats local;
    for (std::int64_t k = 0; k < K; ++k) {
        double nll_fixed = fixed.twice_nll[k], nll_free = free.twice_nll[k];
        double muhat = free.bestfit[k * np + poi];
        bool ok = true;
        // The free fit is never above the fixed one (whose minimum is in its domain): a toy where it is gets the
        // single fit, with the fixed minimum as a start, like a straggler.
        const bool free_above = fixed.converged[k] && free.converged[k] && nll_fixed < nll_free - 1e-6;
        if (!fixed.converged[k] || !free.converged[k] || free_above) {
            // The straggler gets a full single fit (NLopt + Newton + basin search) on its own.
            Tensor row = be.gather(data_kn, be.from_host_index({k}), 0).reshape({data_kn.dim(1)});
            std::vector<double> fixed_min(fixed.bestfit.begin() + k * np, fixed.bestfit.begin() + (k + 1) * np);
            if (!fixed.converged[k]) {
                auto r = fit(model, row, fixed_cfg, from_init);
                nll_fixed = r.twice_nll;
                fixed_min = r.bestfit;
                ok = ok && r.converged;
                ++local.fallback;
            }
            if (!free.converged[k] || free_above || nll_fixed < nll_free - 1e-6) {
                MinimizerControls from_fixed = no_starts;
                from_fixed.other_starts = {fixed_min};
                auto r = fit(model, row, cfg, with_minimizer_controls(options, std::move(from_fixed)));
                if (!free.converged[k] || r.twice_nll < nll_free) {
                    nll_free = r.twice_nll;
                    muhat = r.bestfit[poi];
                    ok = ok && r.converged;
                }
                ++local.fallback;
            }
        }
        local.batched += (fixed.converged[k] ? 1 : 0) + (free.converged[k] ? 1 : 0);
        if (!ok) ++local.failed;
        out[k] = detail::combine_test_stat(stat, mu, nll_fixed, nll_free, muhat);
    }
    if (stats) {
        stats->batched += local.batched;
        stats->fallback += local.fallback;
        stats->failed += local.failed;
    }
    return out;
}

namespace detail {

namespace {

// numpy.percentile(..., interpolation="linear") of a sorted sample.
double percentile_sorted(const std::vector<double>& v, double q) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    const double rank = q / 100.0 * static_cast<double>(v.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(std::floor(rank));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    const double frac = rank - static_cast<double>(lo);
    return v[lo] + (v[hi] - v[lo]) * frac;
}

// Fraction of the (sorted) samples >= value.
double tail_fraction(const std::vector<double>& sorted, double value) {
    auto it = std::lower_bound(sorted.begin(), sorted.end(), value);
    return static_cast<double>(sorted.end() - it) / static_cast<double>(sorted.size());
}

// Toys [block.first, block.first + block.count) of `block.stream` around `pars`, and their test statistics.
ToyBlockResult toy_block(TestStat stat, double poi_test, const Model& model, const std::vector<double>& pars,
                         const ToyBlock& block, const HypotestOptions& options, const FitConfig& cfg) {
    Tensor data = sample_toys(model, pars, block.first, block.count, options.seed, block.stream);
    BatchStats stats;
    ToyBlockResult r;
    MinimizerControls controls = minimizer_controls(options.fit);
    controls.other_starts = {pars};  // the toys' truth: where their global minima lie, unless the model says otherwise
    const FitOptions fo = with_minimizer_controls(options.fit, std::move(controls));
    r.teststats = test_statistic_batch(stat, poi_test, model, data, cfg, fo, &stats);
    r.batched = stats.batched;
    r.fallback = stats.fallback;
    r.failed = stats.failed;
    return r;
}

// The blocks of both streams (toy_batch toys each, the same for any layout), run by options.toy_runner or
// here one after another; the test statistics of each stream in toy order.
std::array<std::vector<double>, 2> toy_teststats(TestStat stat, double poi_test, const Model& model,
                                                 const std::array<std::vector<double>, 2>& pars,
                                                 const HypotestOptions& options, const FitConfig& cfg,
                                                 BatchStats& stats) {
    std::vector<ToyBlock> blocks;
    const std::int64_t batch = std::max<std::int64_t>(1, options.toy_batch);
    for (std::uint32_t stream = 0; stream < 2; ++stream)
        for (std::int64_t first = 0; first < options.ntoys; first += batch)
            blocks.push_back({stream, first, std::min(batch, options.ntoys - first)});
    ToyBlockFn fn = [&](const Model& m, const ToyBlock& b) {
        return toy_block(stat, poi_test, m, pars[b.stream], b, options, cfg);
    };
    std::vector<ToyBlockResult> results;
    if (options.toy_runner) {
        // The tag names the hypotest: the tested POI value exactly (hex float), the statistic and the seed.
        char tag[96];
        std::snprintf(tag, sizeof tag, "mu=%a,stat=%d,seed=%llu", poi_test, static_cast<int>(stat),
                      static_cast<unsigned long long>(options.seed));
        results = options.toy_runner(blocks, tag, fn);
    } else {
        std::int64_t done = 0;
        for (const auto& b : blocks) {
            results.push_back(fn(model, b));
            done += b.count;
            if (options.progress)
                options.progress(done, 2 * options.ntoys, b.stream == 0 ? "Signal-like" : "Background-like");
        }
    }
    std::array<std::vector<double>, 2> out;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        auto& v = out[blocks[i].stream];
        v.insert(v.end(), results[i].teststats.begin(), results[i].teststats.end());
        stats.batched += results[i].batched;
        stats.fallback += results[i].fallback;
        stats.failed += results[i].failed;
    }
    return out;
}

}  // namespace

HypotestResult toy_hypotest(double poi_test, const Model& model, const std::vector<double>& data,
                            const HypotestOptions& options, const FitConfig& cfg) {
    check_observed_data(model, data, "hypotest");
    HypotestResult r;
    auto& be = *model.backend();
    Tensor data_t = be.from_host(data);
    const TestStat stat = options.test_stat;
    auto obs = test_statistic(stat, poi_test, model, data_t, cfg, options.fit);
    // The toys' truths: the fixed-POI fits at the tested value (s+b) and at 0 (b only; 1 for q0). For q and qtilde
    // the first is the statistic's own fixed fit. Each starts also from the other minima of the same data, and a
    // lower one moves the free fit (and the statistic) with it.
    const bool q0 = stat == TestStat::q0;
    const FitOptions shared = detail::with_other_minima(model, cfg, options.fit, {&obs.free_fit, &obs.fixed_fit});
    FitResult signal_fit = q0 ? fixed_poi_fit(poi_test, model, data_t, cfg, shared) : obs.fixed_fit;
    FitResult bkg_fit = fixed_poi_fit(q0 ? 1.0 : 0.0, model, data_t, cfg, shared);
    bool moved = detail::keep_free_fit_lowest(model, data_t, cfg, options.fit, obs.free_fit, bkg_fit);
    moved = detail::keep_free_fit_lowest(model, data_t, cfg, options.fit, obs.free_fit, signal_fit) || moved;
    if (moved)
        obs.value = detail::combine_test_stat(stat, q0 ? 0.0 : poi_test, obs.fixed_fit.twice_nll,
                                              obs.free_fit.twice_nll, obs.free_fit.bestfit[model.poi_index()]);
    r.q_obs = obs.value;
    r.teststat = obs.value;
    r.warnings = obs.warnings;
    r.free_fit_to_data = obs.free_fit.bestfit;
    r.fixed_poi_fit_to_data = obs.fixed_fit.bestfit;
    r.twice_nll_free = obs.free_fit.twice_nll;
    r.converged = obs.free_fit.converged && obs.fixed_fit.converged && signal_fit.converged && bkg_fit.converged;
    for (const FitResult* f : {&obs.free_fit, &obs.fixed_fit, &bkg_fit}) r.minimizer.add(f->minimizer);
    if (q0) r.minimizer.add(signal_fit.minimizer);

    BatchStats bs;
    auto ts = toy_teststats(stat, poi_test, model, {signal_fit.bestfit, bkg_fit.bestfit}, options, cfg, bs);
    r.sb_teststats = std::move(ts[0]);
    r.b_teststats = std::move(ts[1]);
    r.toy_fits_batched = bs.batched;
    r.toy_fits_fallback = bs.fallback;
    r.toy_fits_failed = bs.failed;

    std::vector<double> sb = r.sb_teststats, b = r.b_teststats;
    std::sort(sb.begin(), sb.end());
    std::sort(b.begin(), b.end());
    auto pvalues = [&](double t) {
        const double clsb = tail_fraction(sb, t), clb = tail_fraction(b, t);
        return std::array<double, 3>{clsb, clb, clsb / clb};
    };
    auto p = pvalues(r.teststat);
    r.CLsb_obs = p[0];
    r.CLb_obs = p[1];
    r.CLs_obs = p[2];
    std::array<std::vector<double>, 3> cols;
    for (double t : r.b_teststats) {
        auto q = pvalues(t);
        for (int c = 0; c < 3; ++c) cols[c].push_back(q[c]);
    }
    for (auto& c : cols) std::sort(c.begin(), c.end());
    const double pct[5] = {2.27501319, 15.86552539, 50.0, 84.13447461, 97.72498681};
    for (int i = 0; i < 5; ++i) {
        r.CLsb_exp[i] = percentile_sorted(cols[0], pct[i]);
        r.CLb_exp[i] = percentile_sorted(cols[1], pct[i]);
        r.CLs_exp[i] = percentile_sorted(cols[2], pct[i]);
    }
    return r;
}

}  // namespace detail
}  // namespace hf::infer
