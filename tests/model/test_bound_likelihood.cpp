// Model::bind: a likelihood bound to its data gives Model::logpdf's numbers bit for bit (device and host entries,
// one data set or one row per point), and bound likelihoods of different data on one model never see each
// other's data, also from two threads at once (what a cache of "the last data" in the model or the plugin
// would get wrong). On a random workspace of ../shared/tools/random_workspace.py (every modifier type).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "hfcore/backend.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/loader.hpp"
#include "hfcore/model.hpp"
#include "hfcore/workspace.hpp"
#include "test_support.hpp"

namespace hf::test {
namespace {

struct Case {
    const char* plugin;
    Precision precision;
    bool fused;  // false: the core's Tier 1 fallback
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    return std::string(info.param.plugin) + (info.param.precision == Precision::f32 ? "32" : "64") +
           (info.param.fused ? "Fused" : "Fallback");
}

std::string random_workspace(int seed) {
    const std::string cmd = "python3 '" + (shared_dir() / "tools" / "random_workspace.py").string() + "' " +
                            std::to_string(seed) + " --channels 4 --bins 8";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
    std::string out;
    if (!pipe) return out;
    char buf[65536];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe.get())) > 0;) out.append(buf, n);
    return out;
}

// Why a plugin cannot be used here ("" when it can).
std::string unusable_reason(const std::string& plugin) {
    for (const auto& l : list_plugins()) {
        if (l.name != plugin) continue;
        if (!l.loaded) return plugin + " plugin does not load: " + l.load_error;
        return l.probe.usable ? "" : plugin + " unavailable on this machine: " + l.probe.reason;
    }
    return plugin + " plugin not built";
}

class BoundLikelihoodTest : public ::testing::TestWithParam<Case> {
protected:
    void SetUp() override {
        HF_REQUIRE_SHARED();
        // The cuda cases run where a GPU is (tests/gpu/run-on-device.sh) and skip elsewhere, as the cuda suite
        // does (stage 20 allows skips of tests named cuda only). The other plugins are on every CI machine.
        if (std::string(GetParam().plugin) == "cuda") {
            const std::string why = unusable_reason("cuda");
            if (!why.empty()) GTEST_SKIP() << "skipped: " << why;
        }
        const std::string text = random_workspace(17);
        ASSERT_FALSE(text.empty()) << "the generator did not run (python3 on PATH?)";
        ws_ = std::make_unique<Workspace>(Workspace::load_string(text, "random-17"));
        LoadOptions o;
        o.precision = GetParam().precision;
        ModelOptions mo;
        mo.prefer_fused = GetParam().fused;
        model_ = std::make_unique<Model>(ws_->model_spec(ModelRequest{}), load_backend(GetParam().plugin, o), mo);
        d1_ = model_->data_from_observations(ws_->spec().observations);
        // Other data: other counts and other aux data, so that every data-only constant differs.
        d2_ = d1_;
        for (std::size_t i = 0; i < d2_.size(); ++i)
            d2_[i] = i < static_cast<std::size_t>(model_->n_main()) ? d2_[i] + 3.0 + static_cast<double>(i % 5)
                                                                     : d2_[i] * 1.01;
        // Points around the initial values, inside the bounds.
        std::mt19937 rng(5);
        std::uniform_real_distribution<double> u(-0.2, 0.2);
        const auto init = model_->suggested_init();
        const auto bounds = model_->suggested_bounds();
        for (int k = 0; k < kPoints; ++k) {
            auto p = init;
            for (std::size_t i = 0; i < p.size(); ++i)
                p[i] = std::clamp(p[i] + u(rng), bounds[i].first, bounds[i].second);
            points_.push_back(p);
            flat_.insert(flat_.end(), p.begin(), p.end());
        }
    }

    Backend& be() const { return *model_->backend(); }
    Tensor pars() const { return be().from_host(flat_, {kPoints, model_->n_pars()}); }

    static constexpr int kPoints = 5;
    std::unique_ptr<Workspace> ws_;
    std::unique_ptr<Model> model_;
    std::vector<double> d1_, d2_, flat_;
    std::vector<std::vector<double>> points_;
};

TEST_P(BoundLikelihoodTest, EqualsModelLogpdfBitForBit) {
    const Model& m = *model_;
    const BoundLikelihood bound = m.bind(d1_);
    // Device entry, K points on one data set, with the gradient.
    Tensor g_bound, g_model;
    const auto lp_bound = be().to_host_double(bound.logpdf(pars(), &g_bound));
    const auto lp_model = be().to_host_double(m.logpdf(pars(), be().from_host(d1_), &g_model));
    EXPECT_EQ(lp_bound, lp_model);
    EXPECT_EQ(be().to_host_double(g_bound), be().to_host_double(g_model));
    // Host entry, one point at a time, against the model's host entry and a fresh bind of the device data.
    for (const auto& p : points_) {
        std::vector<double> grad, grad_model;
        EXPECT_EQ(bound.logpdf(p, &grad), m.logpdf(p, d1_));
        EXPECT_EQ(bound.logpdf(p), m.bind(be().from_host(d1_)).logpdf(p, &grad_model));
        EXPECT_EQ(grad, grad_model);
    }
    // One data row per point (rows alternate between the two data sets).
    std::vector<double> rows;
    for (int k = 0; k < kPoints; ++k) rows.insert(rows.end(), (k % 2 ? d2_ : d1_).begin(), (k % 2 ? d2_ : d1_).end());
    const Tensor rows_t = be().from_host(rows, {kPoints, m.n_main() + m.n_aux()});
    EXPECT_EQ(be().to_host_double(m.bind(rows_t).logpdf(pars())), be().to_host_double(m.logpdf(pars(), rows_t)));
    EXPECT_EQ(bound.data().size(), m.n_main() + m.n_aux());
}

TEST_P(BoundLikelihoodTest, TwoBoundLikelihoodsOfOneModelDoNotInterfere) {
    const Model& m = *model_;
    std::vector<double> want1, want2;
    for (const auto& p : points_) {
        want1.push_back(m.logpdf(p, d1_));
        want2.push_back(m.logpdf(p, d2_));
        EXPECT_NE(want1.back(), want2.back());
    }
    const BoundLikelihood b1 = m.bind(d1_), b2 = m.bind(d2_);
    // Interleaved on one thread: each keeps its own data and constants.
    for (int round = 0; round < 3; ++round)
        for (std::size_t k = 0; k < points_.size(); ++k) {
            EXPECT_EQ(b1.logpdf(points_[k]), want1[k]);
            EXPECT_EQ(b2.logpdf(points_[k]), want2[k]);
        }
    // From two threads at once, each on its own bound likelihood of the same model.
    int wrong[2] = {0, 0};
    auto work = [&](int t) {
        const BoundLikelihood& b = t == 0 ? b1 : b2;
        const auto& want = t == 0 ? want1 : want2;
        for (int i = 0; i < 200; ++i) {
            const std::size_t k = static_cast<std::size_t>(i) % points_.size();
            if (b.logpdf(points_[k]) != want[k]) ++wrong[t];
        }
    };
    std::thread other(work, 1);
    work(0);
    other.join();
    EXPECT_EQ(wrong[0], 0);
    EXPECT_EQ(wrong[1], 0);
    // A copy shares the binding.
    const BoundLikelihood copy = b2;
    EXPECT_EQ(copy.logpdf(points_[0]), want2[0]);
}

// The host entry keeps its last binding while the data are equal: alternating data, on one thread and on two at
// once, must still give each call the value of its own data.
TEST_P(BoundLikelihoodTest, HostEntryWithAlternatingDataFromTwoThreads) {
    const Model& m = *model_;
    const BoundLikelihood b1 = m.bind(d1_), b2 = m.bind(d2_);
    std::vector<double> want1, want2;
    for (const auto& p : points_) {
        want1.push_back(b1.logpdf(p));
        want2.push_back(b2.logpdf(p));
    }
    for (std::size_t k = 0; k < points_.size(); ++k) {
        EXPECT_EQ(m.logpdf(points_[k], d1_), want1[k]);
        EXPECT_EQ(m.logpdf(points_[k], d1_), want1[k]);  // the kept binding
        EXPECT_EQ(m.logpdf(points_[k], d2_), want2[k]);
    }
    int wrong[2] = {0, 0};
    auto work = [&](int t) {
        for (int i = 0; i < 400; ++i) {
            const std::size_t k = static_cast<std::size_t>(i) % points_.size();
            const bool first = (i + t) % 3 != 0;
            if (m.logpdf(points_[k], first ? d1_ : d2_) != (first ? want1 : want2)[k]) ++wrong[t];
        }
    };
    std::thread other(work, 1);
    work(0);
    other.join();
    EXPECT_EQ(wrong[0], 0);
    EXPECT_EQ(wrong[1], 0);
}

// Rows of bound per-point data (BoundLikelihood::rows; a batched fit's subset as toys leave it) give what binding
// those rows afresh gives, bit for bit: the constants taken over belong to the rows asked for, in their order.
TEST_P(BoundLikelihoodTest, RowsOfBoundDataEqualThoseRowsBoundAfresh) {
    const Model& m = *model_;
    const std::int64_t width = m.n_main() + m.n_aux();
    std::vector<double> all;
    for (int k = 0; k < kPoints; ++k) {
        std::vector<double> d = k % 2 ? d2_ : d1_;
        for (std::int64_t i = 0; i < m.n_main(); ++i) d[static_cast<std::size_t>(i)] += k;  // every row its own
        all.insert(all.end(), d.begin(), d.end());
    }
    const BoundLikelihood bound = m.bind(be().from_host(all, {kPoints, width}));
    for (const std::vector<std::int64_t>& rows :
         {std::vector<std::int64_t>{4, 1, 2}, std::vector<std::int64_t>{3}, std::vector<std::int64_t>{0, 1, 2, 3, 4}}) {
        std::vector<double> picked, pts;
        for (std::int64_t r : rows) {
            picked.insert(picked.end(), all.begin() + r * width, all.begin() + (r + 1) * width);
            pts.insert(pts.end(), flat_.begin() + r * m.n_pars(), flat_.begin() + (r + 1) * m.n_pars());
        }
        const auto n = static_cast<std::int64_t>(rows.size());
        const Tensor p = be().from_host(pts, {n, m.n_pars()});
        Tensor g_rows, g_fresh;
        const auto lp_rows = be().to_host_double(bound.rows(rows).logpdf(p, &g_rows));
        const auto lp_fresh = be().to_host_double(m.bind(be().from_host(picked, {n, width})).logpdf(p, &g_fresh));
        EXPECT_EQ(lp_rows, lp_fresh) << rows.size() << " rows";
        EXPECT_EQ(be().to_host_double(g_rows), be().to_host_double(g_fresh));
        EXPECT_EQ(be().to_host_double(bound.rows(rows).data()), be().to_host_double(be().from_host(picked)));
    }
    EXPECT_THROW(bound.rows({kPoints}), InputError);
    EXPECT_THROW(bound.rows({-1}), InputError);
    EXPECT_THROW(m.bind(d1_).rows({0}), InputError);  // one data set for every point has no rows to pick
}

// Points evaluated in one call equal the same points evaluated one at a time, value and gradient bit for bit: a
// point's numbers must not depend on its neighbours in a call (nor on how a plugin splits the call over
// threads), or toy results would depend on how toys are grouped and threaded.
TEST_P(BoundLikelihoodTest, PointsTogetherEqualPointsAlone) {
    const Model& m = *model_;
    const std::int64_t width = m.n_main() + m.n_aux(), np = m.n_pars();
    constexpr int kMany = 11;
    std::mt19937 rng(9);
    std::uniform_real_distribution<double> u(-0.3, 0.3);
    const auto init = m.suggested_init();
    const auto bounds = m.suggested_bounds();
    std::vector<double> pts, rows;
    for (int k = 0; k < kMany; ++k) {
        for (std::size_t i = 0; i < init.size(); ++i)
            pts.push_back(std::clamp(init[i] + u(rng), bounds[i].first, bounds[i].second));
        std::vector<double> d = k % 2 ? d2_ : d1_;
        for (std::int64_t i = 0; i < m.n_main(); ++i) d[static_cast<std::size_t>(i)] += (k * 7 + i) % 4;
        rows.insert(rows.end(), d.begin(), d.end());
    }
    for (const bool per_point : {true, false}) {
        const BoundLikelihood together =
            per_point ? m.bind(be().from_host(rows, {kMany, width})) : m.bind(d1_);
        Tensor g_all;
        const auto lp_all = be().to_host_double(together.logpdf(be().from_host(pts, {kMany, np}), &g_all));
        const auto grad_all = be().to_host_double(g_all);
        for (int k = 0; k < kMany; ++k) {
            const std::vector<double> x(pts.begin() + k * np, pts.begin() + (k + 1) * np);
            const std::vector<double> d =
                per_point ? std::vector<double>(rows.begin() + k * width, rows.begin() + (k + 1) * width) : d1_;
            std::vector<double> grad;
            EXPECT_EQ(m.bind(d).logpdf(x, &grad), lp_all[static_cast<std::size_t>(k)])
                << "point " << k << (per_point ? " (its own data row)" : " (shared data)");
            EXPECT_EQ(grad, std::vector<double>(grad_all.begin() + k * np, grad_all.begin() + (k + 1) * np))
                << "point " << k;
        }
    }
}

TEST_P(BoundLikelihoodTest, RejectsWrongSizes) {
    const Model& m = *model_;
    EXPECT_THROW(m.bind(std::vector<double>(d1_.size() + 1, 1.0)), InputError);
    EXPECT_THROW(m.bind(d1_).logpdf(std::vector<double>(points_[0].size() + 1, 1.0)), InputError);
    EXPECT_THROW(BoundLikelihood().logpdf(points_[0]), InputError);
}

INSTANTIATE_TEST_SUITE_P(Plugins, BoundLikelihoodTest,
                         ::testing::Values(Case{"cpu", Precision::f64, true}, Case{"cpu", Precision::f32, true},
                                           Case{"cpu", Precision::f64, false}, Case{"opencl", Precision::f64, true},
                                           Case{"cuda", Precision::f64, true}, Case{"cuda", Precision::f32, true}),
                         case_name);

}  // namespace
}  // namespace hf::test
