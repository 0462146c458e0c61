// hfcore._core.fit_toys: a toy study (hfcore/toy_study.hpp) with the GIL released, returned as the columns of
// `hfcore toys --per-toy` (numpy arrays, one row per toy) and the summary of its JSON. With threads != 1 the
// toy blocks run on worker threads, each with its own backend instance loaded as the model's was.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "arrays.hpp"
#include "infer_args.hpp"
#include "json_convert.hpp"
#include "py_model.hpp"
#include "hfcore/toy_study.hpp"

namespace hfpy {

using namespace nb::literals;
namespace inf = hf::infer;

namespace {

// The per-toy columns (hf::infer::toy_columns), the names of `hfcore toys --per-toy`'s arrays.
nb::dict columns(const inf::ToyStudyResult& r) {
    const auto c = inf::toy_columns(r);
    auto flags = [](const std::vector<std::uint8_t>& v) { return to_numpy_bool(std::vector<bool>(v.begin(), v.end())); };
    nb::dict d;
    d["parameter_names"] = nb::cast(r.par_names);
    d["poi_true"] = to_numpy(c.poi_true);
    d["toy"] = nb::module_::import_("numpy").attr("asarray")(
        to_numpy(std::vector<double>(c.toy.begin(), c.toy.end())), "dtype"_a = "int64");
    d["truth"] = to_numpy(c.truth, c.rows, c.cols);
    d["bestfit"] = to_numpy(c.bestfit, c.rows, c.cols);
    d["uncertainties"] = to_numpy(c.uncertainties, c.rows, c.cols);
    d["pull"] = to_numpy(c.pull, c.rows, c.cols);
    d["twice_nll"] = to_numpy(c.twice_nll);
    d["converged"] = flags(c.converged);
    d["hessian_ok"] = flags(c.hessian_ok);
    return d;
}

}  // namespace

void bind_toys(nb::module_& m) {
    m.def(
        "fit_toys",
        [](PyModel& self, nb::handle data, std::vector<double> poi_values, std::int64_t ntoys, std::uint64_t seed,
           const std::string& nuisance, const std::string& aux, nb::handle init, nb::handle bounds, nb::handle fixed,
           std::int64_t toy_batch, int threads, nb::handle progress) {
            const auto model = self.current();
            const auto d = read_data(*model, data);
            inf::ToyStudyOptions o;
            o.poi_values = std::move(poi_values);
            o.ntoys = ntoys;
            o.seed = seed;
            o.toy_batch = toy_batch;
            o.nuisance = guarded(Kind::InvalidFitInput, [&] { return inf::parse_toy_nuisance(nuisance); });
            o.aux = guarded(Kind::InvalidFitInput, [&] { return inf::parse_toy_aux(aux); });
            o.config = fit_config(*model, init, bounds, fixed);
            o.progress = python_progress(progress);
            if (threads != 1) {
                hf::run::ExecutorOptions ex;
                ex.threads = threads;
                if (o.progress) ex.progress = [p = o.progress](std::int64_t done, std::int64_t total) { p(done, total, "toys"); };
                const BackendRef like = self.backend();
                o.runner = inf::make_toy_study_runner(
                    [spec = self.spec(), name = like->name, options = like->options](int) {
                        return std::make_shared<const hf::Model>(spec, hf::load_backend(name, options));
                    },
                    ex);
            }
            const auto r = self.run(Kind::InvalidFitInput, [&](const hf::Model& mm) { return inf::toy_study(mm, d, o); });
            nb::dict out = columns(r);
            out["summary"] = from_json(inf::to_json(r, o));
            return out;
        },
        "model"_a, "data"_a, "poi_values"_a, "ntoys"_a = 1000, "seed"_a = 0, "nuisance"_a = "nominal",
        "aux"_a = "sampled", "init_pars"_a.none() = nb::none(), "par_bounds"_a.none() = nb::none(),
        "fixed_params"_a.none() = nb::none(), "toy_batch"_a = 1000, "threads"_a = 1, "progress"_a.none() = nb::none());
}

}  // namespace hfpy
