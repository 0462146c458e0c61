// White-box test of detail::batch_fit_known, the second descent of a toy's fit that stops once it has settled next
// to the minimum the first descent found (core/infer/minimize/batch_fit.cpp, reached_known).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "hfcore/backend.hpp"
#include "infer/minimize/problem.hpp"
#include "infer/minimize/batch_fit.hpp"
#include "model/multimodal.hpp"
#include "infer_support.hpp"

using namespace hf;
using namespace hf::test;

namespace {

// K toys of sbottom regionB drawn at the init with the POI at 0, and the two full descents of each.
struct Toys {
    Case c;
    Tensor data;
    infer::BatchFitResult from_truth, from_init;
};

Toys toys_and_descents(std::int64_t K, std::uint64_t seed) {
    Toys t{load_case("sbottom_regionB_1400_550_60"), Tensor(), {}, {}};
    auto truth = t.c.model->suggested_init();
    truth[t.c.model->poi_index()] = 0.0;
    t.data = infer::sample_toys(*t.c.model, truth, 0, K, seed, 0);
    t.from_truth = infer::detail::batch_fit(*t.c.model, t.data, {}, {}, truth);
    t.from_init = infer::batch_fit(*t.c.model, t.data, {}, {});
    return t;
}

}  // namespace

// Against the full descent from the init: the lower of the two minima is the same to 1e-6 for every toy, and
// the rule engaged (some toys returned the known minimum itself).
TEST(BatchFitKnown, LosesNoMinimumOfTheFullDescent) {
    HF_REQUIRE_SHARED();
    const std::int64_t K = 64;
    Toys d = toys_and_descents(K, 11);
    auto early = infer::detail::batch_fit_known(*d.c.model, d.data, {}, {}, {}, d.from_truth);
    int returned_known = 0;
    for (std::int64_t k = 0; k < K; ++k) {
        ASSERT_TRUE(d.from_truth.converged[k] && d.from_init.converged[k] && early.converged[k]) << "toy " << k;
        const double full = std::min(d.from_truth.twice_nll[k], d.from_init.twice_nll[k]);
        const double with_rule = std::min(d.from_truth.twice_nll[k], early.twice_nll[k]);
        EXPECT_NEAR(with_rule, full, 1e-6) << "toy " << k;
        if (early.twice_nll[k] == d.from_truth.twice_nll[k]) ++returned_known;
    }
    EXPECT_GT(returned_known, K / 4) << "the early stop never engaged";
    std::printf("[ agreement ] %d of %lld descents from the init ended at the known minimum\n", returned_known,
                static_cast<long long>(K));
}

// A known minimum above where the descent settles, or away from it, is not one it can return: the descent runs
// to its own end, the same steps as without it.
TEST(BatchFitKnown, IgnoresAKnownMinimumAboveTheDescent) {
    HF_REQUIRE_SHARED();
    const std::int64_t K = 16;
    Toys d = toys_and_descents(K, 12);
    const Model& model = *d.c.model;
    infer::BatchFitResult higher = d.from_truth, elsewhere = d.from_truth;
    for (auto& v : higher.twice_nll) v += 1.0;
    const std::int64_t np = model.n_pars();
    for (std::int64_t k = 0; k < K; ++k) elsewhere.bestfit[k * np + model.poi_index()] += 0.5;
    // A second descent without any known minimum (none converged) is the reference: second descents do not take
    // their own curvature (batch_fit.cpp, kOwnCurvatureAt), so they differ from batch_fit's first descents.
    infer::BatchFitResult none = d.from_truth;
    std::fill(none.converged.begin(), none.converged.end(), 0);
    const auto alone = infer::detail::batch_fit_known(model, d.data, {}, {}, {}, none);
    for (const auto* known : {&higher, &elsewhere}) {
        auto early = infer::detail::batch_fit_known(model, d.data, {}, {}, {}, *known);
        for (std::int64_t k = 0; k < K; ++k) {
            ASSERT_TRUE(alone.converged[k]) << "toy " << k;
            EXPECT_EQ(early.twice_nll[k], alone.twice_nll[k]) << "toy " << k;
            EXPECT_EQ(early.converged[k], alone.converged[k]) << "toy " << k;
            EXPECT_NEAR(early.twice_nll[k], d.from_init.twice_nll[k], 1e-6) << "toy " << k;
        }
    }
}

// From a known minimum inside every bound a descent ends once it settles within 0.3 of it (scaled units) with the
// multimodal parameters on its side of zero; from one with a parameter at a bound (here the POI at 0, as in most
// b-only toys' free fits) only within 0.05. The known minima are moved by 0.2 in one parameter, so a descent that
// returns one has taken the wide rule, and one that runs to its own end has not.
TEST(BatchFitKnown, ReachesFartherOnlyFromAMinimumInsideItsBounds) {
    HF_REQUIRE_SHARED();
    const std::int64_t K = 64;
    Toys d = toys_and_descents(K, 13);
    const Model& model = *d.c.model;
    const std::int64_t np = model.n_pars();
    const infer::FitConfig cfg = infer::FitConfig{}.resolved(model);
    const infer::detail::Problem p = infer::detail::make_problem(model, Tensor(), cfg);
    const auto& multimodal = hf::multimodal_parameters(model);
    // the first normal-constrained parameter that is not multimodal
    std::size_t moved = p.free.size();
    for (std::size_t i = 0; i < p.free.size() && moved == p.free.size(); ++i) {
        const auto par = static_cast<std::int64_t>(p.free[i]);
        if (par == model.poi_index() || std::binary_search(multimodal.begin(), multimodal.end(), par)) continue;
        for (const auto& set : model.parameter_sets())
            if (set.constraint == "normal" && par >= set.offset && par < set.offset + set.n) moved = i;
    }
    ASSERT_LT(moved, p.free.size()) << "no normal-constrained parameter to move";
    const auto j = static_cast<std::int64_t>(p.free[moved]);
    infer::BatchFitResult known = d.from_truth;
    for (std::int64_t k = 0; k < K; ++k) known.bestfit[k * np + j] += 0.2 * p.scale[moved];
    const auto early = infer::detail::batch_fit_known(model, d.data, cfg, {}, {}, known);
    int at_bound = 0, at_bound_returned = 0, inside = 0, inside_returned = 0;
    for (std::int64_t k = 0; k < K; ++k) {
        ASSERT_TRUE(early.converged[k]) << "toy " << k;
        bool bound = false;
        for (int par : p.free) {
            const double x = known.bestfit[k * np + par];
            bound = bound || x <= cfg.bounds[par].first || x >= cfg.bounds[par].second;
        }
        const bool returned = early.bestfit[k * np + j] == known.bestfit[k * np + j];
        if (bound) {
            ++at_bound;
            at_bound_returned += returned ? 1 : 0;
            EXPECT_FALSE(returned) << "toy " << k << ": a known minimum at a bound was returned from 0.2 away";
            EXPECT_NEAR(early.twice_nll[k], d.from_init.twice_nll[k], 1e-6) << "toy " << k;
        } else {
            ++inside;
            inside_returned += returned ? 1 : 0;
        }
    }
    EXPECT_GT(at_bound, 0) << "no toy with its POI at the bound";
    EXPECT_GT(inside, 0) << "no toy with its minimum inside the bounds";
    EXPECT_GT(2 * inside_returned, inside) << "the wide rule rarely engaged";
    std::printf("[ agreement ] %d of %d known minima inside the bounds returned from 0.2 away, %d of %d at a bound\n",
                inside_returned, inside, at_bound_returned, at_bound);
}
