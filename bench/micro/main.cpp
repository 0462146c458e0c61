// hfcore micro benchmarks (Google Benchmark): Model::logpdf at one point and for batches of 10, 100 and
// 10^4 points, its gradient, the gradient with respect to the inputs (backend and host tape), one MLE fit and
// one asymptotic hypotest, on every usable backend and precision,
// for the eRJR workspace with one signal patch, an ATLAS sbottom model (both read from ../shared at run time,
// or HFCORE_SHARED_DIR; skipped with a message when absent) and a synthetic model.
//
//   build/bench/bin/hfcore_micro --benchmark_filter='logpdf/.*erjr'
#include <benchmark/benchmark.h>

#include <iostream>
#include <memory>
#include <string>

#include "hfcore/grad.hpp"
#include "hfcore/infer.hpp"
#include "registry.hpp"

namespace {

using hf::bench::BackendChoice;
using hf::bench::Workload;

// Parameter points and data on the device once; each iteration evaluates and downloads the K results
// (what a fit's line search or a scan does).
void bm_logpdf(benchmark::State& state, std::string name, BackendChoice backend, std::int64_t k) {
    const Workload& w = hf::bench::workload(name, backend);
    const hf::Model& m = *w.model;
    auto& b = *m.backend();
    const hf::Tensor pars = b.from_host(hf::bench::parameter_points(m, k), {k, m.n_pars()});
    const hf::Tensor data = b.from_host(w.data);
    for (auto _ : state) {
        auto lp = b.to_host_double(m.logpdf(pars, data));
        benchmark::DoNotOptimize(lp.data());
    }
    state.SetItemsProcessed(state.iterations() * k);
    state.counters["bins"] = static_cast<double>(m.n_main());
    state.counters["pars"] = static_cast<double>(m.n_pars());
}

// The host convenience, as pyhf's model.logpdf(pars, data) is called: upload pars and data, download 1 value.
void bm_logpdf_host(benchmark::State& state, std::string name, BackendChoice backend) {
    const Workload& w = hf::bench::workload(name, backend);
    const auto init = w.model->suggested_init();
    for (auto _ : state) benchmark::DoNotOptimize(w.model->logpdf(init, w.data));
}

void bm_gradient(benchmark::State& state, std::string name, BackendChoice backend) {
    const Workload& w = hf::bench::workload(name, backend);
    const hf::Model& m = *w.model;
    const hf::Tensor data = m.backend()->from_host(w.data);
    const auto init = m.suggested_init();
    std::vector<double> grad;
    for (auto _ : state) {
        benchmark::DoNotOptimize(m.bind(data).logpdf(init, &grad));
        benchmark::DoNotOptimize(grad.data());
    }
}

// d twice_nll / d inputs at the suggested init, the whole call (the structure traced each time, as a user calls it).
void bm_input_gradient(benchmark::State& state, std::string name, BackendChoice backend, hf::grad::Engine engine) {
    const Workload& w = hf::bench::workload(name, backend);
    const hf::Model& m = *w.model;
    const std::vector<double> main(w.data.begin(), w.data.begin() + m.n_main());
    const auto init = m.suggested_init();
    for (auto _ : state) {
        auto g = hf::grad::twice_nll_gradient(w.spec, m, init, main, engine);
        benchmark::DoNotOptimize(g.d_inputs.data());
    }
    state.counters["inputs"] = static_cast<double>(hf::grad::flatten_inputs(w.spec).size());
}

void bm_fit(benchmark::State& state, std::string name, BackendChoice backend) {
    const Workload& w = hf::bench::workload(name, backend);
    hf::infer::FitResult r;
    for (auto _ : state) r = hf::infer::fit(*w.model, w.data);
    state.counters["twice_nll"] = r.twice_nll;
    state.counters["converged"] = r.converged ? 1 : 0;
    state.counters["n_eval"] = static_cast<double>(r.minimizer.n_eval);
}

void bm_hypotest(benchmark::State& state, std::string name, BackendChoice backend) {
    const Workload& w = hf::bench::workload(name, backend);
    hf::infer::HypotestResult r;
    for (auto _ : state) r = hf::infer::hypotest(1.0, *w.model, w.data);
    state.counters["CLs_obs"] = r.obs;
    state.counters["converged"] = r.converged ? 1 : 0;
}

// Registers fn only when the workload builds on this backend (a model the backend rejects is skipped).
template <class Fn, class... Args>
void add(const std::string& label, const std::string& name, const BackendChoice& backend, Fn fn, Args... args) {
    try {
        (void)hf::bench::workload(name, backend);
    } catch (const std::exception& e) {
        std::cerr << "skipped " << label << ": " << e.what() << "\n";
        return;
    }
    benchmark::RegisterBenchmark(label.c_str(), fn, name, backend, args...)->Unit(benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    const auto backends = hf::bench::usable_backends();
    for (const auto& wc : hf::bench::workload_choices()) {
        if (!wc.available) {
            std::cerr << "skipped workload " << wc.name << ": " << wc.why_not << "\n";
            continue;
        }
        for (const auto& b : backends) {
            const std::string suffix = "/" + wc.name + "/" + b.label();
            add("logpdf_host/k=1" + suffix, wc.name, b, bm_logpdf_host);
            for (std::int64_t k : {1, 10, 100, 10000})
                add("logpdf/k=" + std::to_string(k) + suffix, wc.name, b, bm_logpdf, k);
            add("gradient" + suffix, wc.name, b, bm_gradient);
            add("input_gradient/backend" + suffix, wc.name, b, bm_input_gradient, hf::grad::Engine::backend);
            add("input_gradient/host_tape" + suffix, wc.name, b, bm_input_gradient, hf::grad::Engine::host_tape);
            add("fit" + suffix, wc.name, b, bm_fit);
            add("hypotest" + suffix, wc.name, b, bm_hypotest);
        }
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
