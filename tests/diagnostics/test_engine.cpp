// How the diagnostics work, on examples/workspaces/example.json: per-sample yields, definitions of widths and
// degrees of freedom, batched fixed fits against fits run alone (and on threads), the global-minimum guard,
// profile intervals against MINOS, and the CLI's JSON keys.
#include <cstdlib>
#include <map>
#include <random>
#include <set>

#include "diagnostics_support.hpp"
#include "hfcore/distributed.hpp"

namespace hf::test {
namespace {

class Engine : public ::testing::Test {
protected:
    Engine() : ws_(Workspace::load_file(example_path())),
               model_(ws_.model_spec(ModelRequest{}), load_backend("cpu")),
               data_(model_.data_from_observations(ws_.spec().observations)) {}
    std::size_t index(const std::string& name) const {
        const auto names = model_.par_names();
        return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
    }
    Workspace ws_;
    Model model_;
    std::vector<double> data_;
};

TEST_F(Engine, PerSampleYieldsSumToTheExpectedData) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(0.8, 1.2);
    const auto np = static_cast<std::size_t>(model_.n_pars());
    std::vector<double> pts;
    for (int k = 0; k < 3; ++k) {
        auto p = model_.suggested_init();
        for (auto& v : p) v = v == 0.0 ? u(rng) - 1.0 : v * u(rng);
        pts.insert(pts.end(), p.begin(), p.end());
    }
    const auto by_sample = model_.expected_main_by_sample(pts, 3);
    const std::size_t ns = model_.samples().size(), nm = static_cast<std::size_t>(model_.n_main());
    ASSERT_EQ(by_sample.size(), 3 * ns * nm);
    for (std::size_t k = 0; k < 3; ++k) {
        const auto total = model_.expected_actualdata(std::vector<double>(pts.begin() + k * np, pts.begin() + (k + 1) * np));
        for (std::size_t b = 0; b < nm; ++b) {
            double sum = 0;
            for (std::size_t s = 0; s < ns; ++s) sum += by_sample[(k * ns + s) * nm + b];
            EXPECT_NEAR(sum, total[b], 1e-12 * total[b]) << k << " " << b;
        }
    }
    // A sample absent from a channel contributes zeros: "signal" is only in SR.
    const auto& ch = model_.channels();
    const auto& samples = model_.samples();
    const std::size_t sig = static_cast<std::size_t>(std::find(samples.begin(), samples.end(), "signal") - samples.begin());
    std::size_t first = 0;
    for (std::size_t c = 0; c < ch.size(); ++c) {
        if (ch[c] != "SR") {
            for (std::int64_t b = 0; b < model_.channel_nbins()[c]; ++b) EXPECT_EQ(by_sample[sig * nm + first + b], 0.0);
        }
        first += static_cast<std::size_t>(model_.channel_nbins()[c]);
    }
}

TEST_F(Engine, PrefitWidthsCentresAndDegreesOfFreedom) {
    const auto w = infer::prefit_uncertainties(model_);
    // staterror: sqrt(sum of squared deltas) / sum of nominals over the samples that carry it (bin 0 of SR).
    EXPECT_NEAR(w[index("staterror_SR[0]")], std::sqrt(1.5 * 1.5 + 1.2 * 1.2 + 0.4 * 0.4) / (20.0 + 12.0 + 4.0), 1e-15);
    // shapesys: 1/sqrt(tau) = delta / nominal; normsys/histosys 1; lumi its sigma; unconstrained 0.
    EXPECT_NEAR(w[index("wjets_extrapolation[0]")], 2.0 / 12.0, 1e-15);
    EXPECT_EQ(w[index("jes")], 1.0);
    EXPECT_EQ(w[index("mu")], 0.0);
    EXPECT_EQ(w[index("ttbar_shape[1]")], 0.0);
    const auto centre = infer::constraint_centres(model_, data_);
    EXPECT_NEAR(centre[index("wjets_extrapolation[0]")], 1.0, 1e-15);
    EXPECT_EQ(centre[index("jes")], 0.0);
    const auto g = infer::goodness_of_fit(model_, data_);
    // Main bins minus the free unconstrained parameters (mu, mu_wjets, the ttbar_shape bins).
    std::int64_t unconstrained = 0;
    for (const auto& ps : model_.parameter_sets())
        if (!ps.constrained) unconstrained += ps.n;
    EXPECT_EQ(g.ndof, model_.n_main() - unconstrained);
    EXPECT_NEAR(g.chi2, g.twice_nll - g.twice_nll_saturated, 1e-12);
}

void expect_same_impacts(const infer::RankingResult& a, const infer::RankingResult& b, double tol) {
    ASSERT_EQ(a.ranking.size(), b.ranking.size());
    std::map<std::string, const infer::RankingEntry*> bm;
    for (const auto& e : b.ranking) bm[e.name] = &e;
    for (const auto& e : a.ranking) {
        const auto& o = *bm.at(e.name);
        EXPECT_NEAR(e.impact_prefit_up, o.impact_prefit_up, tol) << e.name;
        EXPECT_NEAR(e.impact_prefit_down, o.impact_prefit_down, tol) << e.name;
        EXPECT_NEAR(e.impact_postfit_up, o.impact_postfit_up, tol) << e.name;
        EXPECT_NEAR(e.impact_postfit_down, o.impact_postfit_down, tol) << e.name;
    }
}

TEST_F(Engine, BatchedFitsAgreeWithFitsRunAloneOnThreads) {
    const auto batched = infer::ranking(model_, data_);
    ASSERT_TRUE(batched.converged);
    EXPECT_EQ(batched.n_batched, batched.n_fits);  // the batch alone finishes them on this model
    infer::RankingOptions alone;
    alone.batched = false;
    alone.threads = 1;
    const auto one = infer::ranking(model_, data_, alone);
    alone.threads = 3;
    const auto three = infer::ranking(model_, data_, alone);
    EXPECT_EQ(one.n_refits, one.n_fits);
    // Both converge to edm < 1e-9: the POI agrees far inside its uncertainty (0.6).
    expect_same_impacts(batched, one, 1e-5);
    // Each fit is the same computation whatever thread runs it.
    expect_same_impacts(one, three, 0.0);
}

// The held fits dealt in blocks to worker threads (as the CLI and MPI ranks run them): the same fits whatever
// the number of threads, and the same as one batch (each problem's iterations depend on its own point only;
// measured identical on eRJR and a 250-parameter model).
TEST_F(Engine, HeldFitsInBlocksOnThreadsAreTheOneBatchFits) {
    auto models = [this](int) -> std::shared_ptr<const Model> {
        return std::make_shared<Model>(ws_.model_spec(ModelRequest{}), load_backend("cpu"));
    };
    auto with_threads = [&](int threads) {
        infer::RankingOptions o;
        run::ExecutorOptions ex;
        ex.threads = threads;
        o.held_runner = infer::make_held_fit_runner(models, ex);
        o.held_block = 3;
        return o;
    };
    const auto batched = infer::ranking(model_, data_);
    const auto one = infer::ranking(model_, data_, with_threads(1));
    const auto three = infer::ranking(model_, data_, with_threads(3));
    ASSERT_TRUE(one.converged);
    EXPECT_EQ(one.n_batched, batched.n_batched);
    expect_same_impacts(one, three, 0.0);
    expect_same_impacts(batched, one, 1e-12);

    const std::vector<infer::ScanAxis> axes{infer::ScanAxis::linear("mu", 0.0, 3.0, 13)};
    const auto p0 = infer::profile_scan(model_, data_, axes);
    const auto p1 = infer::profile_scan(model_, data_, axes, with_threads(1));
    const auto p3 = infer::profile_scan(model_, data_, axes, with_threads(3));
    ASSERT_EQ(p1.points.size(), p3.points.size());
    for (std::size_t j = 0; j < p1.points.size(); ++j) {
        EXPECT_EQ(p1.points[j].delta_twice_nll, p3.points[j].delta_twice_nll) << j;
        EXPECT_NEAR(p0.points[j].delta_twice_nll, p1.points[j].delta_twice_nll, 1e-10) << j;
    }
}

// The held fits' basin searches in lockstep (HFCORE_HELD_LOCKSTEP=1; the default on backends whose batched calls
// pay), on threads and in blocks dealt to threads, so that several lockstep schedulers run at once (the TSan
// pass runs this): the fits of the searches one at a time.
TEST_F(Engine, LockstepSearchesOnThreadsAreTheSearchesOneAtATime) {
    auto models = [this](int) -> std::shared_ptr<const Model> {
        return std::make_shared<Model>(ws_.model_spec(ModelRequest{}), load_backend("cpu"));
    };
    infer::RankingOptions threads;
    threads.threads = 2;
    infer::RankingOptions blocks;
    run::ExecutorOptions ex;
    ex.threads = 3;
    blocks.held_runner = infer::make_held_fit_runner(models, ex);
    blocks.held_block = 3;
    const std::vector<infer::ScanAxis> axes{infer::ScanAxis::linear("mu", 0.0, 3.0, 13)};
    auto run = [&](const char* lockstep, const infer::RankingOptions& o) {
        setenv("HFCORE_HELD_LOCKSTEP", lockstep, 1);
        auto r = std::make_pair(infer::ranking(model_, data_, o), infer::profile_scan(model_, data_, axes, o));
        unsetenv("HFCORE_HELD_LOCKSTEP");
        return r;
    };
    for (const auto* o : {&threads, &blocks}) {
        const auto alone = run("0", *o);
        const auto lockstep = run("1", *o);
        ASSERT_TRUE(lockstep.first.converged);
        expect_same_impacts(alone.first, lockstep.first, 0.0);
        ASSERT_EQ(alone.second.points.size(), lockstep.second.points.size());
        for (std::size_t j = 0; j < alone.second.points.size(); ++j)
            EXPECT_EQ(alone.second.points[j].twice_nll, lockstep.second.points[j].twice_nll) << j;
    }
}

TEST_F(Engine, GlobalMinimumGuardRedoesAFreeFitThatIsNotTheMinimum) {
    // A "free fit" 0.5 sigma off in every parameter: the fixed fits go below it, the free fit is redone and the
    // intervals are those of the true minimum.
    infer::FitOptions fo;
    fo.uncertainties = true;
    const auto good = infer::fit(model_, data_, {}, fo);
    auto bad = good;
    for (std::size_t i = 0; i < bad.bestfit.size(); ++i)
        bad.bestfit[i] = std::clamp(bad.bestfit[i] + 0.5 * bad.uncertainties[i], model_.suggested_bounds()[i].first,
                                    model_.suggested_bounds()[i].second);
    bad.twice_nll = infer::twice_nll(model_, bad.bestfit, data_);
    ASSERT_GT(bad.twice_nll, good.twice_nll + 0.1);
    const auto ref = infer::minos(model_, data_, {"mu"}, {}, &good);
    const auto guarded = infer::minos(model_, data_, {"mu"}, {}, &bad);
    EXPECT_NEAR(guarded[0].value, ref[0].value, 1e-6);
    EXPECT_NEAR(guarded[0].lower, ref[0].lower, 1e-6);
    EXPECT_NEAR(guarded[0].upper, ref[0].upper, 1e-6);
}

TEST_F(Engine, ProfileCrossingsAgreeWithMinos) {
    const auto m = infer::minos(model_, data_, {"mu"});
    ASSERT_TRUE(m[0].valid) << m[0].reason;
    // The profile at the MINOS ends is 1 above the minimum (to the fits' tolerance).
    const auto p = infer::profile_scan(model_, data_, {{"mu", {m[0].lower, m[0].value, m[0].upper}}});
    EXPECT_NEAR(p.points[0].delta_twice_nll, 1.0, 1e-6);
    EXPECT_NEAR(p.points[1].delta_twice_nll, 0.0, 1e-7);
    EXPECT_NEAR(p.points[2].delta_twice_nll, 1.0, 1e-6);
    // A 61-point grid: its interpolated 68% crossings are within a small fraction of a grid step of MINOS.
    const auto scan = infer::profile_scan(model_, data_, {infer::ScanAxis::linear("mu", 0.0, 4.0, 61)});
    ASSERT_TRUE(scan.converged);
    const auto& iv = scan.intervals.at("68");
    ASSERT_TRUE(iv.first && iv.second);
    const double step = 4.0 / 60;
    EXPECT_NEAR(*iv.first, m[0].lower, 0.02 * step);
    EXPECT_NEAR(*iv.second, m[0].upper, 0.02 * step);
    ASSERT_TRUE(scan.intervals.at("95").first.has_value());
    EXPECT_LT(*scan.intervals.at("95").first, *iv.first);
}

TEST_F(Engine, TwoDimensionalScanHoldsBothParameters) {
    const auto r = infer::profile_scan(model_, data_, {{"mu", {0.5, 1.5, 2.5}}, {"jes", {-1.0, 0.0, 1.0}}});
    ASSERT_EQ(r.points.size(), 9u);
    EXPECT_TRUE(r.intervals.empty());
    for (std::size_t j = 0; j < 9; ++j) {
        EXPECT_EQ(r.points[j].values[0], (std::vector<double>{0.5, 1.5, 2.5})[j / 3]);
        EXPECT_EQ(r.points[j].values[1], (std::vector<double>{-1.0, 0.0, 1.0})[j % 3]);
        EXPECT_EQ(r.points[j].bestfit[index("mu")], r.points[j].values[0]);
        EXPECT_EQ(r.points[j].bestfit[index("jes")], r.points[j].values[1]);
        EXPECT_GE(r.points[j].delta_twice_nll, 0.0);
        // Each point is the minimum with both held: a fit alone from the suggested init agrees.
        infer::FitConfig c = infer::FitConfig::suggested(model_);
        c.fixed[index("mu")] = c.fixed[index("jes")] = true;
        c.init[index("mu")] = r.points[j].values[0];
        c.init[index("jes")] = r.points[j].values[1];
        EXPECT_NEAR(infer::fit(model_, data_, c).twice_nll, r.points[j].twice_nll, 1e-7) << j;
    }
}

TEST_F(Engine, CliOutputsTheIssuesKeys) {
    auto keys_of = [](const json::Value& v) {
        std::set<std::string> k;
        for (const auto& [key, _] : v.as_object()) k.insert(key);
        return k;
    };
    auto has = [&](const json::Value& v, std::initializer_list<const char*> want) {
        const auto k = keys_of(v);
        for (const char* w : want) EXPECT_TRUE(k.count(w)) << w;
    };
    const std::string ws = example_path();
    auto r = run_cli("pulls " + ws);
    ASSERT_EQ(r.rc, 0) << r.err;
    auto j = json::parse(r.out);
    has(j["parameters"][0], {"name", "value", "uncertainty", "pull", "constraint"});
    for (const auto& p : j["parameters"].as_array()) {
        if (p["name"].as_string() != "mu") continue;
        EXPECT_TRUE(p["pull"].is_null() && p["constraint"].is_null());
    }

    r = run_cli("ranking " + ws + " --threads 2");
    ASSERT_EQ(r.rc, 0) << r.err;
    j = json::parse(r.out);
    has(j, {"poi", "poi_hat", "ranking"});
    has(j["ranking"][0], {"name", "value", "uncertainty", "impact_prefit_up", "impact_prefit_down", "impact_postfit_up",
                          "impact_postfit_down"});

    r = run_cli("yields " + ws + " --postfit");
    ASSERT_EQ(r.rc, 0) << r.err;
    j = json::parse(r.out);
    has(j, {"postfit", "channels"});
    EXPECT_TRUE(j["postfit"].as_bool());
    has(j["channels"][0], {"name", "samples", "total", "total_stdev", "data"});
    has(j["channels"][0]["samples"][0], {"name", "yields"});

    r = run_cli("profile --par mu --range 0,3,7 " + ws);  // options before the workspace too
    ASSERT_EQ(r.rc, 0) << r.err;
    j = json::parse(r.out);
    has(j, {"pars", "points", "intervals"});
    has(j["points"][0], {"values", "delta_twice_nll"});
    has(j["intervals"], {"68", "95"});

    r = run_cli("profile " + ws + " --par mu --range 0,3,3 --par jes --range -1,1,3");
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["points"].as_array().size(), 9u);

    r = run_cli("fit --minos mu jes " + ws);  // --minos takes names up to the workspace
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["minos"].as_object().size(), 2u);
    r = run_cli("fit " + ws + " --minos mu,jes");
    ASSERT_EQ(r.rc, 0) << r.err;
    j = json::parse(r.out);
    has(j["minos"], {"mu", "jes"});
    EXPECT_LT(j["minos"]["mu"][0].as_double(), j["mle_parameters"]["mu"][0].as_double());
    EXPECT_GT(j["minos"]["mu"][1].as_double(), j["mle_parameters"]["mu"][0].as_double());

    r = run_cli("gof " + ws);
    ASSERT_EQ(r.rc, 0) << r.err;
    has(json::parse(r.out), {"twice_nll", "twice_nll_saturated", "chi2", "ndof", "p_value"});
}

}  // namespace
}  // namespace hf::test
