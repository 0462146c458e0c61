// White-box test of detail::search_toy_basins, the basin search of a batch of toy fits
// (core/infer/minimize/batch_basin_search.cpp): against fit() on each toy alone (its local fit and basin search), on
// the coupled-histosys 2-bin validation case, whose one systematic has a second basin that the toys' starts miss.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "hfcore/backend.hpp"
#include "hfcore/infer_advanced.hpp"
#include "infer/minimize/batch_fit.hpp"
#include "infer_support.hpp"

using namespace hf;
using namespace hf::test;

namespace {

struct Counts {
    int above_single_before = 0;  // batched minima above the single fit's by more than 1e-3
    int above_single_after = 0;
    int raised = 0;  // minima the search made higher (never allowed)
    int converged = 0;
};

// K toys drawn at the init (POI at mu_truth), fitted with `cfg` from the truth and from the init as the toys' fits
// are, then searched; each against fit() with the truth as another start.
Counts compare(const Case& c, const infer::FitConfig& cfg, double mu_truth, std::int64_t K, std::uint64_t seed) {
    const Model& m = *c.model;
    auto truth = m.suggested_init();
    truth[m.poi_index()] = mu_truth;
    const Tensor data = infer::sample_toys(m, truth, 0, K, seed, 0);
    // The two starts of toys.cpp: the truth, and the init with an early stop at the truth's minimum.
    infer::BatchFitResult before = infer::detail::batch_fit(m, data, cfg, {}, truth);
    const infer::BatchFitResult from_init = infer::detail::batch_fit_known(m, data, cfg, {}, {}, before);
    for (std::int64_t k = 0; k < K; ++k) {
        if (!from_init.converged[k] || (before.converged[k] && !(from_init.twice_nll[k] < before.twice_nll[k])))
            continue;
        before.converged[k] = true;
        before.twice_nll[k] = from_init.twice_nll[k];
        const auto np = static_cast<std::size_t>(m.n_pars());
        std::copy_n(from_init.bestfit.begin() + k * np, np, before.bestfit.begin() + k * np);
    }
    infer::BatchFitResult after = before;
    infer::detail::search_toy_basins(m, data, cfg, {}, truth, after);
    infer::MinimizerControls from_truth;
    from_truth.other_starts = {truth};
    const auto single = infer::with_minimizer_controls({}, from_truth);
    Counts n;
    auto& be = *m.backend();
    const auto rows = be.to_host_double(data);
    const std::size_t width = static_cast<std::size_t>(data.dim(1));
    for (std::int64_t k = 0; k < K; ++k) {
        std::vector<double> row(rows.begin() + k * width, rows.begin() + (k + 1) * width);
        if (!before.converged[k]) continue;  // toys.cpp gives those a single fit of their own
        ++n.converged;
        const auto alone = infer::fit(m, row, cfg, single);
        if (before.twice_nll[k] > alone.twice_nll + 1e-3) ++n.above_single_before;
        if (after.twice_nll[k] > alone.twice_nll + 1e-3) ++n.above_single_after;
        if (after.twice_nll[k] > before.twice_nll[k]) ++n.raised;
    }
    return n;
}

}  // namespace

TEST(ToyBasins, ToyFitsReachTheSingleFitsMinima) {
    HF_REQUIRE_SHARED();
    const Case c = load_case("2bin_2channel_coupledhistosys");
    const std::int64_t K = 200;
    infer::FitConfig fixed;
    fixed.fixed.assign(static_cast<std::size_t>(c.model->n_pars()), false);
    fixed.fixed[static_cast<std::size_t>(c.model->poi_index())] = true;
    fixed.init = c.model->suggested_init();
    fixed.init[static_cast<std::size_t>(c.model->poi_index())] = 1.0;
    for (const auto& [what, cfg, mu] : {std::make_tuple("free fits, b-only toys", infer::FitConfig{}, 0.0),
                                        std::make_tuple("POI fixed at 1, s+b toys", fixed, 1.0)}) {
        SCOPED_TRACE(what);
        const Counts n = compare(c, cfg, mu, K, 5);
        // Measured: the batched fits (truth and init starts) ended above the single fits' minima for 33 of 157
        // (free) and 22 of 130 (fixed) converged toy fits; after the search for 5 and 8 (29 and 2 free before the
        // single fit's descent from its given start ran on until settled, basin_search.cpp). What stays: minima
        // whose systematic sits near 0 on the kink of its interpolation, within the search's kReturned (0.3) of
        // the lower one on the other side, and minima the search's gate passes over (the single fit's local
        // descent from the init finds them).
        EXPECT_GT(n.above_single_before, 10) << "these toys no longer test the search";
        EXPECT_LE(2 * n.above_single_after, n.above_single_before);
        EXPECT_EQ(n.raised, 0);
        EXPECT_GT(n.converged, K / 2);
        std::printf("[ agreement ] %s: %d of %d toy fits above the single fit's minimum before the search, %d after\n",
                    what, n.above_single_before, n.converged, n.above_single_after);
    }
}
