// The thread-safety contract (docs/architecture.md, "Threads"): one Workspace, one backend and one Model shared
// by many threads. Every thread evaluates, differentiates, fits and compiles models of its own on the shared
// backend at once, and must get what one thread alone gets. Run once per plugin found (cpu, opencl; cuda where a
// GPU is present); the `tsan` preset runs this suite under ThreadSanitizer (scripts/ci/60-sanitizers.sh).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "hfcore/errors.hpp"
#include "hfcore/backend.hpp"
#include "hfcore/infer.hpp"
#include "hfcore/loader.hpp"
#include "hfcore/model.hpp"
#include "hfcore/workspace.hpp"

namespace {

// Two channels with every modifier type, so that each kernel of the fused likelihoods runs: normfactor, lumi,
// normsys (code4), histosys (code4p), staterror, shapesys, shapefactor.
constexpr const char* kWorkspace = R"({
 "channels": [
  {"name": "SR", "samples": [
    {"name": "signal", "data": [5.0, 10.0, 3.0], "modifiers": [
      {"name": "mu", "type": "normfactor", "data": null},
      {"name": "lumi", "type": "lumi", "data": null},
      {"name": "sig_norm", "type": "normsys", "data": {"hi": 1.1, "lo": 0.92}}]},
    {"name": "bkg", "data": [50.0, 40.0, 20.0], "modifiers": [
      {"name": "lumi", "type": "lumi", "data": null},
      {"name": "jes", "type": "histosys", "data": {"hi_data": [53.0, 43.0, 21.0], "lo_data": [48.0, 38.5, 19.5]}},
      {"name": "bkg_norm", "type": "normsys", "data": {"hi": 1.05, "lo": 0.97}},
      {"name": "staterror_SR", "type": "staterror", "data": [2.0, 1.5, 1.0]}]}]},
  {"name": "CR", "samples": [
    {"name": "bkg", "data": [200.0, 150.0], "modifiers": [
      {"name": "jes", "type": "histosys", "data": {"hi_data": [205.0, 153.0], "lo_data": [196.0, 148.0]}},
      {"name": "cr_shape", "type": "shapesys", "data": [10.0, 8.0]},
      {"name": "cr_free", "type": "shapefactor", "data": null}]}]}
 ],
 "observations": [{"name": "SR", "data": [58.0, 52.0, 22.0]}, {"name": "CR", "data": [210.0, 149.0]}],
 "measurements": [{"name": "meas", "config": {"poi": "mu", "parameters": [
   {"name": "lumi", "auxdata": [1.0], "sigmas": [0.02], "bounds": [[0.9, 1.1]], "inits": [1.0]}]}}],
 "version": "1.0.0"
})";

struct Results {
    std::vector<double> logpdf;       // at each point
    std::vector<double> batch;        // all points in one call
    std::vector<double> grad;         // at the first point
    std::vector<double> expected;     // at the first point
    std::vector<double> by_sample;    // at the first point
    std::vector<double> bestfit;
};

std::vector<std::vector<double>> points(const hf::Model& m) {
    std::vector<std::vector<double>> pts;
    for (int i = 0; i < 6; ++i) {
        auto p = m.suggested_init();
        for (std::size_t j = 0; j < p.size(); ++j) p[j] *= 1.0 + 0.03 * ((i + static_cast<int>(j)) % 5 - 2);
        pts.push_back(p);
    }
    return pts;
}

Results evaluate(const hf::Model& m, const std::vector<double>& data, bool with_fit) {
    Results r;
    const auto pts = points(m);
    std::vector<double> flat;
    for (const auto& p : pts) {
        r.logpdf.push_back(m.logpdf(p, data));
        flat.insert(flat.end(), p.begin(), p.end());
    }
    hf::Backend& b = *m.backend();
    const hf::BoundLikelihood bound = m.bind(data);
    r.batch = b.to_host_double(bound.logpdf(b.from_host(flat, {static_cast<std::int64_t>(pts.size()), m.n_pars()})));
    bound.logpdf(pts[0], &r.grad);
    r.expected = m.expected_data(pts[0]);
    r.by_sample = m.expected_main_by_sample(pts[0]);
    if (with_fit) {
        const auto fit = hf::infer::fit(m, data);
        EXPECT_TRUE(fit.converged) << fit.reason;
        r.bestfit = fit.bestfit;
    }
    return r;
}

// 64b: a shared backend must give what a lone thread gets to the last bits a kernel can change by scheduling
// (the cpu plugin's threads split batches by point, so nothing is summed in another order: measured equal).
void expect_close(const std::vector<double>& got, const std::vector<double>& want, double rtol, const char* what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t i = 0; i < want.size(); ++i)
        EXPECT_LE(std::abs(got[i] - want[i]), rtol * (std::abs(want[i]) + 1.0)) << what << "[" << i << "]";
}

void expect_same(const Results& got, const Results& want, double rtol, double fit_tol) {
    expect_close(got.logpdf, want.logpdf, rtol, "logpdf");
    expect_close(got.batch, want.batch, rtol, "batched logpdf");
    expect_close(got.grad, want.grad, rtol, "gradient");
    expect_close(got.expected, want.expected, rtol, "expected_data");
    expect_close(got.by_sample, want.by_sample, rtol, "expected_main_by_sample");
    if (!got.bestfit.empty()) expect_close(got.bestfit, want.bestfit, fit_tol, "bestfit");
}

struct PluginCase {
    std::string plugin, precision;
};

void PrintTo(const PluginCase& c, std::ostream* os) { *os << c.plugin << " " << c.precision; }

std::vector<PluginCase> cases() {
    std::vector<PluginCase> out;
    for (const auto& l : hf::list_plugins())
        for (const char* prec : {"64b", "32b"}) out.push_back({l.name, prec});
    return out;
}

class SharedAcrossThreads : public ::testing::TestWithParam<PluginCase> {
protected:
    hf::BackendPtr backend_;
    void SetUp() override {
        const auto& c = GetParam();
        for (const auto& l : hf::list_plugins()) {
            if (l.name != c.plugin) continue;
            if (!l.loaded) GTEST_SKIP() << c.plugin << " does not load: " << l.load_error;
            if (!l.probe.usable) GTEST_SKIP() << c.plugin << " unusable here: " << l.probe.reason;
            if (l.probe.devices.empty()) GTEST_SKIP() << c.plugin << ": no device";
            if (c.precision == "64b" && !l.probe.devices.front().fp64) GTEST_SKIP() << c.plugin << ": no fp64";
        }
        hf::LoadOptions o;
        o.precision = hf::parse_precision(c.precision);
        backend_ = hf::load_backend(c.plugin, o);
    }
};

constexpr int kThreads = 8;
constexpr int kRounds = 3;

TEST_P(SharedAcrossThreads, OneModelOneBackendManyThreads) {
    const bool f64 = GetParam().precision == "64b";
    const double rtol = f64 ? 1e-13 : 1e-6;
    const double fit_tol = f64 ? 1e-9 : 1e-3;  // the same minimizer from the same start: bitwise equal when measured
    const hf::Workspace ws = hf::Workspace::load_string(kWorkspace, "threads.json");
    const hf::ModelSpec spec = ws.model_spec();
    const hf::Model model(spec, backend_);
    std::vector<double> data = ws.observed_main_data(spec);
    const auto aux = model.auxdata();
    data.insert(data.end(), aux.begin(), aux.end());
    const Results want = evaluate(model, data, true);

    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            try {
                for (int r = 0; r < kRounds; ++r) {
                    // The shared model, and every other thread a model of its own compiled on the shared backend
                    // from the shared workspace.
                    if ((t + r) % 2 == 0) {
                        expect_same(evaluate(model, data, r == 0), want, rtol, fit_tol);
                    } else {
                        const hf::Model own(ws.model_spec(), backend_);
                        expect_same(evaluate(own, data, r == 1), want, rtol, fit_tol);
                    }
                }
            } catch (const std::exception& e) {
                ADD_FAILURE() << "thread " << t << ": " << e.what();
                failures++;
            }
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(failures.load(), 0);
}

// Tensors of one backend made and combined by many threads at once: the Tier 1 operations and the transfer
// counters.
TEST_P(SharedAcrossThreads, TensorOperationsManyThreads) {
    const auto before = backend_->transfers();
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            hf::Backend& b = *backend_;
            for (int r = 0; r < 20; ++r) {
                std::vector<double> v(257);
                for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.5 * static_cast<double>(i % 7) + t;
                const hf::Tensor x = b.from_host(v, {257});
                const hf::Tensor y = b.binary(hf::BinaryOp::mul, x, b.unary(hf::UnaryOp::exp, b.full({1}, 0.0)));
                const double s = b.to_host_double(b.reduce_all(hf::ReduceOp::sum, y))[0];
                double want = 0;
                for (double e : v) want += e;
                if (std::abs(s - want) > 1e-4 * want) wrong++;
            }
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(wrong.load(), 0);
    const auto after = backend_->transfers();
    // from_host of v: one upload per round and thread (full() may upload too on some plugins, never less).
    EXPECT_GE(after.uploads - before.uploads, static_cast<std::uint64_t>(kThreads * 20));
    EXPECT_EQ(after.downloads - before.downloads, static_cast<std::uint64_t>(kThreads * 20));
}

INSTANTIATE_TEST_SUITE_P(Plugins, SharedAcrossThreads, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<PluginCase>& i) {
                             return i.param.plugin + "_" + i.param.precision;
                         });

}  // namespace
