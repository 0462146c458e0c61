// hfcore._core.scan: many signal patches of one background-only workspace through the executor of `hfcore scan`
// (core/run): dealt to threads and, under mpirun, to ranks (mpi_world.hpp), journaled as they finish, the GIL
// released. hfcore.infer.scan gives it its Python signature.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <memory>

#include "backend_handle.hpp"
#include "errors.hpp"
#include "infer_args.hpp"
#include "json_convert.hpp"
#include "mpi_world.hpp"
#include "hfcore/executor.hpp"
#include "hfcore/infer.hpp"
#include "hfcore/spec.hpp"
#include "hfcore/workspace.hpp"

namespace hfpy {

using namespace nb::literals;
namespace inf = hf::infer;

namespace {

// A scan point: one patch of the background-only workspace, fitted and tested on its own backend instance.
struct ScanJob {
    std::string name;
    hf::JsonPatch patch;
};

// One point of a scan as the journal keeps it and `hfcore scan` writes it.
hf::json::Value scan_point(const ScanJob& job, const inf::HypotestResult& h, const inf::UpperLimitResult* ul) {
    hf::json::Object d;
    d.set("name", hf::json::Value(job.name));
    d.set("CLs_obs", hf::json::Value(h.obs));
    hf::json::Array exp;
    for (double v : h.exp) exp.push_back(hf::json::Value(v));
    d.set("CLs_exp", hf::json::Value(std::move(exp)));
    d.set("twice_nll", hf::json::Value(h.twice_nll_free));
    d.set("converged", hf::json::Value(h.converged && (!ul || ul->converged)));
    if (ul) {
        hf::json::Object u;
        u.set("obs", hf::json::Value(ul->obs));
        hf::json::Array e;
        for (double v : ul->exp) e.push_back(hf::json::Value(v));
        u.set("exp", hf::json::Value(std::move(e)));
        d.set("upper_limit", hf::json::Value(std::move(u)));
    }
    return hf::json::Value(std::move(d));
}

// What decides a scan's results, for its journal: a journal made with other inputs is refused, not mixed in.
std::string scan_digest(const hf::Workspace& ws, const std::vector<ScanJob>& jobs, const hf::json::Value& settings) {
    hf::json::Object in;
    in.set("workspace", hf::json::Value(ws.digest()));
    hf::json::Array patches;
    for (const auto& j : jobs) {
        hf::json::Object p;
        p.set("name", hf::json::Value(j.name));
        p.set("ops", hf::json::Value(hf::digest(j.patch.json())));
        patches.push_back(hf::json::Value(std::move(p)));
    }
    in.set("patches", hf::json::Value(std::move(patches)));
    in.set("settings", settings);
    return hf::digest(hf::json::Value(std::move(in)));
}


}  // namespace

BackendRef backend_arg(nb::handle backend);

void bind_scan(nb::module_& m) {
    m.def(
        "scan",
        [](const hf::Workspace& ws, const std::vector<std::pair<std::string, nb::object>>& patches,
           std::optional<std::string> measurement_name, const std::string& normsys, const std::string& histosys,
           double poi_test, bool upper_limit, double level, double rtol, int threads, nb::handle backend,
           const std::string& test_stat, const std::string& calctype, const std::string& base_dist,
           std::int64_t ntoys, std::uint64_t seed, std::int64_t toy_batch, nb::handle progress,
           std::optional<std::string> journal, std::optional<bool> mpi) {
            // First, before anything can fail on one rank only: every rank takes the same path below.
            const hf::run::Communicator comm = python_world(mpi);
            std::vector<ScanJob> jobs;
            for (const auto& [name, ops] : patches) {
                hf::json::Value v = to_json(ops);
                jobs.push_back({name, guarded(Kind::InvalidSpecification, [&] { return hf::JsonPatch(std::move(v), name); })});
            }
            BackendRef like = backend_arg(backend);
            if (!like) like = default_backend_handle();
            inf::HypotestOptions o;
            set_test_options(o, test_stat, calctype, base_dist, ntoys, seed, toy_batch);
            hf::ModelRequest request;
            request.measurement_name = measurement_name;
            request.settings.normsys_interpcode = hf::parse_interpcode(normsys);
            request.settings.histosys_interpcode = hf::parse_interpcode(histosys);

            // What decides the results (the journal's digest).
            hf::json::Object settings;
            settings.set("measurement", hf::json::Value(measurement_name.value_or("")));
            settings.set("normsys", hf::json::Value(normsys));
            settings.set("histosys", hf::json::Value(histosys));
            settings.set("poi_test", hf::json::Value(poi_test));
            settings.set("upper_limit", hf::json::Value(upper_limit));
            settings.set("level", hf::json::Value(level));
            settings.set("rtol", hf::json::Value(rtol));
            settings.set("test_stat", hf::json::Value(test_stat));
            settings.set("calctype", hf::json::Value(calctype));
            settings.set("calc_base_dist", hf::json::Value(base_dist));
            settings.set("ntoys", hf::json::Value(ntoys));
            settings.set("seed", hf::json::Value(static_cast<std::int64_t>(seed)));
            settings.set("toy_batch", hf::json::Value(toy_batch));
            settings.set("backend", hf::json::Value(like->name));
            settings.set("precision", hf::json::Value(std::string(hf::precision_name(like->options.precision))));

            std::unique_ptr<hf::run::Journal> log;
            if (journal) {
                const bool resume = comm.is_root() && std::filesystem::exists(*journal);
                log = guarded(Kind::HFCoreError, [&] {
                    return hf::run::open_journal_on_root(comm, *journal, "python scan",
                                                         scan_digest(ws, jobs, hf::json::Value(settings)), resume);
                });
            }
            std::vector<std::string> keys;
            for (std::size_t j = 0; j < jobs.size(); ++j) keys.push_back(std::to_string(j) + ":" + jobs[j].name);
            hf::run::ExecutorOptions eo;
            eo.threads = threads;
            eo.comm = comm;
            eo.journal = log.get();
            if (const inf::ProgressFn report = python_progress(progress))  // made with the GIL held
                eo.progress = [report](std::int64_t done, std::int64_t total) { report(done, total, "scan"); };
            // A backend per worker (its queue and caches its own), each point's model compiled on it.
            auto factory = [&](int) -> hf::run::UnitFn {
                hf::BackendPtr b = hf::load_backend(like->name, like->options);
                return [&, b](std::size_t i) {
                    hf::ModelRequest r = request;
                    r.patches = {jobs[i].patch};
                    const hf::Model model(ws.model_spec(r), b);
                    const std::vector<double> data = model.data_from_observations(ws.spec().observations);
                    const inf::HypotestResult h = inf::hypotest(poi_test, model, data, o);
                    if (!upper_limit) return scan_point(jobs[i], h, nullptr);
                    inf::Toms748Options t;
                    t.level = level;
                    t.rtol = rtol;
                    const inf::UpperLimitResult ul = inf::upper_limit(model, data, t, o);
                    return scan_point(jobs[i], h, &ul);
                };
            };
            hf::run::ExecutorResult run;
            {
                nb::gil_scoped_release release;
                run = hf::run::run_units(keys, factory, eo);
            }
            // The results are gathered on rank 0 only; the other ranks return None (docs/python.md).
            if (!comm.is_root()) return nb::object(nb::none());
            nb::list out;
            for (std::size_t i = 0; i < jobs.size(); ++i) {
                // A failed point is {"error": message} from the executor: named here, as the others are.
                hf::json::Value& r = run.results[i];
                if (r.is_object() && !r.as_object().find("name")) r.as_object().set("name", hf::json::Value(jobs[i].name));
                out.append(from_json(r));
            }
            return nb::object(std::move(out));
        },
        "workspace"_a, "patches"_a, "measurement_name"_a.none() = nb::none(),
        nb::arg(hf::modifier_type_name(hf::ModifierType::normsys)) = "code4",
        nb::arg(hf::modifier_type_name(hf::ModifierType::histosys)) = "code4p", "poi_test"_a = 1.0,
        "upper_limit"_a = false, "level"_a = 0.05, "rtol"_a = 1e-4,
        "threads"_a = 0, "backend"_a.none() = nb::none(), HFPY_TEST_ARGS, "journal"_a.none() = nb::none(),
        "mpi"_a.none() = nb::none());
}

}  // namespace hfpy
