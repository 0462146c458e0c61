// hfcore_timer: times hfcore on a workload, driven by bench/compare_pyhf.py over stdin/stdout so that the
// comparison can alternate hfcore and pyhf measurements in one run without paying process start and model
// compilation per measurement.
//
// One JSON request per line on stdin, one JSON answer per line on stdout:
//   {"cmd": "load", "id": "erjr", "workspace": "BkgOnly.json", "patches": ["patch.json"],
//    "synthetic": [bins, nuisance] (instead of workspace), "backend": "cpu", "precision": "64b"}
//     -> {"ok": true, "n_pars": P, "n_main": N, "n_aux": A, "seconds": load+compile time}
//   {"cmd": "time", "id": "erjr", "task": "logpdf"|"logpdf_device"|"batch"|"grad"|"fit"|"hypotest"|
//    "hypotest_grad"|"hypotest_grad_batch"|"input_grad"|"input_grad_tier1"|"upper_limit"|"toys"|"ranking"|"profile", "k": 10000 (batch), "gradient": false (batch: with the
//    points' gradients), "min_time": 0.2, "min_reps": 3,
//    "max_reps": 1000, "polish": false, "algorithm": "lbfgs", "tolerance": 1e-6 (fit options, optional),
//    "warmup": false (no untimed first call),
//    "mu": 1.0 (hypotest, toys), "ntoys": 1000, "seed": 0, "toy_batch": 1000 (toys: ntoys per stream, b and
//    s+b), "threads": 2 (toys: worker threads, each with its own model; ranking and profile: threads for
//    fits run alone), "values": [mu, ...] (profile: the POI grid)}
//     -> {"ok": true, "times": [wall seconds per call...], "cpu_times": [process CPU seconds per call...],
//         "median": s, "median_cpu": s, "result": {...}}
//   {"cmd": "quit"}
// Errors answer {"ok": false, "error": "..."} and the program goes on.
// With arguments instead (e.g. `hfcore_timer BkgOnly.json -p patch.json --task hypotest`), it loads one
// workload, times one task and prints one answer.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "common/workloads.hpp"
#include "grad_tasks.hpp"
#include "hfcore/diagnostics.hpp"
#include "hfcore/distributed.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/infer.hpp"
#include "hfcore/infer_advanced.hpp"
#include "hfcore/json.hpp"

namespace {

using Clock = std::chrono::steady_clock;
namespace json = hf::json;

struct Loaded {
    std::string backend_name;
    hf::LoadOptions load_options;
    hf::BackendPtr backend;
    hf::bench::Workload w;
    hf::Tensor data_device;
    std::vector<std::shared_ptr<const hf::Model>> worker_models;  // toys: one per worker thread
};

std::map<std::string, Loaded> g_loaded;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

json::Value to_json(const std::vector<double>& v) { return json::Array(v.begin(), v.end()); }
template <std::size_t N>
json::Value to_json(const std::array<double, N>& v) { return json::Array(v.begin(), v.end()); }

std::string get_string(const json::Value& req, const char* key, const std::string& dflt) {
    const auto* v = req.find(key);
    return v && v->is_string() ? v->as_string() : dflt;
}
double get_number(const json::Value& req, const char* key, double dflt) {
    const auto* v = req.find(key);
    return v && v->is_number() ? v->as_double() : dflt;
}

json::Value cmd_load(const json::Value& req) {
    const auto t0 = Clock::now();
    const std::string id = get_string(req, "id", "default");
    hf::LoadOptions lo;
    lo.precision = hf::parse_precision(get_string(req, "precision", "64b"));
    Loaded l;
    l.backend_name = get_string(req, "backend", "cpu");
    l.load_options = lo;
    l.backend = hf::load_backend(l.backend_name, lo);
    if (const auto* syn = req.find("synthetic")) {
        const auto& a = syn->as_array();
        l.w = hf::bench::load_workload_from_string(
            id, hf::bench::synthetic_workspace(static_cast<std::int64_t>(a.at(0).as_double()),
                                               static_cast<std::int64_t>(a.at(1).as_double())),
            l.backend);
    } else {
        std::vector<std::string> patches;
        if (const auto* p = req.find("patches"))
            for (const auto& x : p->as_array()) patches.push_back(x.as_string());
        l.w = hf::bench::load_workload(id, get_string(req, "workspace", ""), patches, l.backend);
    }
    l.data_device = l.backend->from_host(l.w.data);
    json::Object out;
    out.set("ok", json::Value(true));
    out.set("n_pars", json::Value(l.w.model->n_pars()));
    out.set("n_main", json::Value(l.w.model->n_main()));
    out.set("n_aux", json::Value(l.w.model->n_aux()));
    out.set("backend", json::Value(l.backend->description()));
    out.set("implementation", json::Value(l.w.model->implementation()));
    g_loaded[id] = std::move(l);
    out.set("seconds", json::Value(seconds_since(t0)));
    return out;
}

// Calls `fn` until min_time has passed and min_reps calls were made (at most max_reps). Calls shorter than
// ~50 us are timed in groups so that the clock's overhead does not count.
// CPU seconds of the whole process (all threads): on a shared machine the wall time also counts the time
// the process waited for a core.
double process_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Samples {
    std::vector<double> wall, cpu;
};

Samples repeat(const std::function<void()>& fn, double min_time, int min_reps, int max_reps) {
    const double c_probe = process_cpu_seconds();
    const auto t_probe = Clock::now();
    fn();
    const double first = seconds_since(t_probe), first_cpu = process_cpu_seconds() - c_probe;
    int group = 1;
    if (first < 50e-6) group = static_cast<int>(std::min(1000.0, 50e-6 / std::max(first, 1e-9)) + 1);
    Samples s;
    if (group == 1) {  // a slow call is a sample of its own
        s.wall.push_back(first);
        s.cpu.push_back(first_cpu);
    }
    const auto t_start = Clock::now();
    while (static_cast<int>(s.wall.size()) < max_reps &&
           (static_cast<int>(s.wall.size()) < min_reps || seconds_since(t_start) < min_time)) {
        const double c0 = process_cpu_seconds();
        const auto t0 = Clock::now();
        for (int i = 0; i < group; ++i) fn();
        s.wall.push_back(seconds_since(t0) / group);
        s.cpu.push_back((process_cpu_seconds() - c0) / group);
    }
    return s;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

json::Value cmd_time(const json::Value& req) {
    const std::string id = get_string(req, "id", "default");
    auto it = g_loaded.find(id);
    if (it == g_loaded.end()) throw hf::Error("no workload loaded with id '" + id + "'");
    Loaded& l = it->second;
    const hf::Model& m = *l.w.model;
    const auto& data = l.w.data;
    const std::string task = get_string(req, "task", "logpdf");
    const double min_time = get_number(req, "min_time", 0.2);
    const int min_reps = static_cast<int>(get_number(req, "min_reps", 3));
    const int max_reps = static_cast<int>(get_number(req, "max_reps", 100000));
    const std::vector<double> init = m.suggested_init();
    // Fit options for fit / hypotest / upper_limit ("polish": false skips the Newton polish, for profiling).
    hf::infer::HypotestOptions hopts;
    if (const auto* v = req.find("polish"); v && v->is_bool()) {
        hf::infer::MinimizerControls controls;
        controls.polish = v->as_bool();
        hopts.fit = hf::infer::with_minimizer_controls(hopts.fit, std::move(controls));
    }
    hopts.fit.algorithm = hf::infer::parse_fit_algorithm(get_string(req, "algorithm", "auto"));
    hopts.fit.tolerance = get_number(req, "tolerance", hopts.fit.tolerance);

    // fn is what is timed; report() reads what its last call left (after the timing, so that a slow task is
    // not run once more only for its answer).
    json::Object result;
    std::function<void()> fn, report = [] {};
    if (task == "logpdf") {
        auto lp = std::make_shared<double>(0.0);
        fn = [&m, &data, &init, lp] { *lp = m.logpdf(init, data); };
        report = [&result, lp] { result.set("logpdf", json::Value(*lp)); };
    } else if (task == "logpdf_device") {
        // Parameters and data already on the device: the evaluation alone plus one download.
        hf::Tensor p = l.backend->from_host(init, {1, m.n_pars()});
        fn = [&m, &l, p] { (void)l.backend->to_host_double(m.logpdf(p, l.data_device)); };
    } else if (task == "batch") {
        const auto k = static_cast<std::int64_t>(get_number(req, "k", 10000));
        auto pts = std::make_shared<std::vector<double>>(hf::bench::parameter_points(m, k));
        auto out = std::make_shared<std::vector<double>>();
        const auto* g = req.find("gradient");
        const bool with_grad = g && g->is_bool() && g->as_bool();
        // Host data bound per call, the k points (with their gradients where asked: what a batched fit's step
        // evaluates) in one device evaluation and one download.
        fn = [&m, &data, pts, out, k, with_grad] {
            hf::Backend& b = *m.backend();
            hf::Tensor grad;
            *out = b.to_host_double(
                m.bind(data).logpdf(b.from_host(*pts, {k, m.n_pars()}), with_grad ? &grad : nullptr));
        };
        report = [&result, out, k] {
            result.set("k", json::Value(k));
            result.set("logpdf_first", json::Value(out->at(0)));
        };
    } else if (task == "grad") {
        auto g = std::make_shared<std::vector<double>>();
        fn = [&m, &l, &init, g] { (void)m.bind(l.data_device).logpdf(init, g.get()); };
    } else if (task == "fit") {
        auto r = std::make_shared<hf::infer::FitResult>();
        fn = [&m, &data, hopts, r] { *r = hf::infer::fit(m, data, {}, hopts.fit); };
        report = [&result, &m, r] {
            result.set("twice_nll", json::Value(r->twice_nll));
            result.set("converged", json::Value(r->converged));
            result.set("reason", json::Value(r->reason));
            result.set("mu_hat", json::Value(m.poi_index() >= 0 ? r->bestfit.at(m.poi_index()) : 0.0));
            result.set("n_eval", json::Value(r->minimizer.n_eval));
        };
    } else if (task == "hypotest") {
        const double mu = get_number(req, "mu", 1.0);
        auto r = std::make_shared<hf::infer::HypotestResult>();
        fn = [&m, &data, hopts, r, mu] { *r = hf::infer::hypotest(mu, m, data, hopts); };
        report = [&result, r] {
            result.set("CLs_obs", json::Value(r->obs));
            result.set("CLs_exp", to_json(r->exp));
            result.set("twice_nll", json::Value(r->twice_nll_free));
            result.set("converged", json::Value(r->converged));
        };
    } else if (task == "hypotest_grad" || task == "hypotest_grad_batch" || task == "input_grad" ||
               task == "input_grad_tier1") {
        hf::bench::GradTask t{get_number(req, "mu", 1.0), static_cast<std::size_t>(get_number(req, "k", 64)),
                              static_cast<int>(get_number(req, "threads", 0))};
        hf::bench::set_grad_task(task, t, l.w.spec, m, data, hopts, fn, report, result);
    } else if (task == "upper_limit") {
        hf::infer::Toms748Options t;
        t.rtol = get_number(req, "rtol", 1e-4);
        auto r = std::make_shared<hf::infer::UpperLimitResult>();
        fn = [&m, &data, hopts, r, t] { *r = hf::infer::upper_limit(m, data, t, hopts); };
        report = [&result, r] {
            result.set("obs", json::Value(r->obs));
            result.set("exp", to_json(r->exp));
            result.set("n_hypotests", json::Value(static_cast<std::int64_t>(r->scanned.size())));
        };
    } else if (task == "toys") {
        // A toy-based hypotest (qtilde) as `hfcore cls --calctype toybased` runs it: blocks of toy_batch toys
        // dealt to `threads` worker threads, each with its own model on its own backend instance.
        const double mu = get_number(req, "mu", 1.0);
        hf::infer::HypotestOptions t = hopts;
        t.calctype = hf::infer::CalcType::toybased;
        t.ntoys = static_cast<std::int64_t>(get_number(req, "ntoys", 1000));
        t.seed = static_cast<std::uint64_t>(get_number(req, "seed", 0));
        t.toy_batch = static_cast<std::int64_t>(get_number(req, "toy_batch", static_cast<double>(t.toy_batch)));
        hf::run::ExecutorOptions ex;
        ex.threads = static_cast<int>(get_number(req, "threads", 2));
        // The workers' models are compiled once, before the timing (as the workload's own model is).
        while (static_cast<int>(l.worker_models.size()) < ex.threads)
            l.worker_models.push_back(
                std::make_shared<const hf::Model>(l.w.spec, hf::load_backend(l.backend_name, l.load_options)));
        t.toy_runner = hf::infer::make_toy_runner(
            [&l](int worker) { return l.worker_models.at(static_cast<std::size_t>(worker)); }, ex);
        auto r = std::make_shared<hf::infer::HypotestResult>();
        fn = [&m, &data, t, r, mu] { *r = hf::infer::hypotest(mu, m, data, t); };
        report = [&result, r, t] {
            result.set("ntoys", json::Value(t.ntoys));
            result.set("CLs_obs", json::Value(r->CLs_obs));
            result.set("CLsb_obs", json::Value(r->CLsb_obs));
            result.set("CLb_obs", json::Value(r->CLb_obs));
            result.set("CLs_exp", to_json(r->CLs_exp));
            result.set("q_obs", json::Value(r->q_obs));
            result.set("converged", json::Value(r->converged));
            result.set("toy_fits_batched", json::Value(r->toy_fits_batched));
            result.set("toy_fits_fallback", json::Value(r->toy_fits_fallback));
            result.set("toy_fits_failed", json::Value(r->toy_fits_failed));
        };
    } else if (task == "ranking") {
        hf::infer::RankingOptions ro;
        ro.fit = hopts.fit;
        ro.threads = static_cast<int>(get_number(req, "threads", 2));
        auto r = std::make_shared<hf::infer::RankingResult>();
        fn = [&m, &data, ro, r] { *r = hf::infer::ranking(m, data, ro); };
        report = [&result, r] {
            result.set("poi_hat", json::Value(r->poi_hat));
            result.set("poi_uncertainty", json::Value(r->poi_uncertainty));
            result.set("twice_nll", json::Value(r->fit.twice_nll));
            result.set("converged", json::Value(r->converged));
            result.set("n_fits", json::Value(r->n_fits));
            json::Object impacts;  // name -> [post-fit up, post-fit down]
            for (const auto& e : r->ranking)
                impacts.set(e.name, json::Value(json::Array{json::Value(e.impact_postfit_up),
                                                            json::Value(e.impact_postfit_down)}));
            result.set("impacts", json::Value(std::move(impacts)));
        };
    } else if (task == "profile") {
        if (m.poi_index() < 0) throw hf::Error("profile: the model has no POI");
        hf::infer::ScanAxis axis;
        axis.name = m.par_names().at(static_cast<std::size_t>(m.poi_index()));
        if (const auto* v = req.find("values"))
            for (const auto& x : v->as_array()) axis.values.push_back(x.as_double());
        hf::infer::DiagnosticOptions d;
        d.fit = hopts.fit;
        d.threads = static_cast<int>(get_number(req, "threads", 2));
        auto r = std::make_shared<hf::infer::ProfileResult>();
        fn = [&m, &data, axis, d, r] { *r = hf::infer::profile_scan(m, data, {axis}, d); };
        report = [&result, r] {
            std::vector<double> delta;
            for (const auto& p : r->points) delta.push_back(p.delta_twice_nll);
            result.set("twice_nll_min", json::Value(r->twice_nll_min));
            result.set("delta_twice_nll", to_json(delta));
            result.set("converged", json::Value(r->converged));
        };
    } else {
        throw hf::Error("unknown task '" + task + "'");
    }
    // One untimed call first (caches, page faults), unless the request says "warmup": false.
    if (const auto* w = req.find("warmup"); !(w && w->is_bool() && !w->as_bool())) fn();
    const Samples times = repeat(fn, min_time, min_reps, max_reps);
    report();
    json::Object out;
    out.set("ok", json::Value(true));
    out.set("task", json::Value(task));
    out.set("times", to_json(times.wall));
    out.set("cpu_times", to_json(times.cpu));
    out.set("median", json::Value(median(times.wall)));
    out.set("median_cpu", json::Value(median(times.cpu)));
    out.set("result", json::Value(std::move(result)));
    return out;
}

json::Value handle(const json::Value& req) {
    const std::string cmd = get_string(req, "cmd", "");
    if (cmd == "load") return cmd_load(req);
    if (cmd == "time") return cmd_time(req);
    if (cmd == "unload") {
        g_loaded.erase(get_string(req, "id", "default"));
        json::Object out;
        out.set("ok", json::Value(true));
        return out;
    }
    throw hf::Error("unknown cmd '" + cmd + "'");
}

json::Value guarded(const json::Value& req) {
    try {
        return handle(req);
    } catch (const std::exception& e) {
        json::Object out;
        out.set("ok", json::Value(false));
        out.set("error", json::Value(e.what()));
        return out;
    }
}

int usage() {
    std::cerr << "usage: hfcore_timer                  (JSON requests on stdin, see the source)\n"
                 "       hfcore_timer WORKSPACE [-p PATCH]... [--task T] [--k K] [--backend B] [--precision P]\n"
                 "                    [--polish on|off] [--algorithm auto|lbfgs|slsqp]\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1) {
        std::string a1 = argv[1];
        if (a1 == "-h" || a1 == "--help") return usage();
        json::Object load, time;
        load.set("cmd", json::Value("load"));
        load.set("workspace", json::Value(a1));
        time.set("cmd", json::Value("time"));
        json::Array patches;
        for (int i = 2; i < argc; ++i) {
            std::string a = argv[i];
            if (i + 1 >= argc) return usage();
            std::string v = argv[++i];
            if (a == "-p" || a == "--patch") patches.emplace_back(v);
            else if (a == "--task") time.set("task", json::Value(v));
            else if (a == "--k") time.set("k", json::Value(std::stod(v)));
            else if (a == "--backend") load.set("backend", json::Value(v));
            else if (a == "--precision") load.set("precision", json::Value(v));
            else if (a == "--polish") time.set("polish", json::Value(v == "1" || v == "true" || v == "on"));
            else if (a == "--algorithm") time.set("algorithm", json::Value(v));
            else return usage();
        }
        load.set("patches", json::Value(std::move(patches)));
        json::Value r = guarded(json::Value(std::move(load)));
        if (r.find("ok")->as_bool()) r = guarded(json::Value(std::move(time)));
        std::cout << json::dump(r) << std::endl;
        return r.find("ok")->as_bool() ? 0 : 1;
    }
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        json::Value req;
        try {
            req = json::parse(line, "<stdin>");
        } catch (const std::exception& e) {
            json::Object out;
            out.set("ok", json::Value(false));
            out.set("error", json::Value(e.what()));
            std::cout << json::dump(json::Value(std::move(out))) << std::endl;
            continue;
        }
        if (get_string(req, "cmd", "") == "quit") break;
        std::cout << json::dump(guarded(req)) << std::endl;
    }
    return 0;
}
