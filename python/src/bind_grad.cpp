// hfcore._core's input gradients (hfcore/grad.hpp) for python/hfcore/grad.py: each call takes the model's input
// values as a flat array (the model's spec with them is compiled for the call), so that an optimisation loop can
// change the histograms between calls.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "arrays.hpp"
#include "errors.hpp"
#include "hfcore/grad.hpp"
#include "infer_args.hpp"
#include "py_model.hpp"

namespace hfpy {

namespace {

namespace gr = hf::grad;
using namespace nb::literals;

hf::ModelSpec spec_with(PyModel& self, nb::handle inputs) {
    const auto n = static_cast<std::int64_t>(gr::flatten_inputs(self.spec()).size());
    const auto y = read_vector(inputs, {"inputs", Kind::InvalidPdfParameters, n, false});
    return guarded(Kind::HFCoreError, [&] { return gr::with_inputs(self.spec(), y); });
}

gr::Engine engine_named(const std::string& name) {
    for (gr::Engine e : {gr::Engine::automatic, gr::Engine::backend, gr::Engine::host_tape})
        if (name == gr::engine_name(e)) return e;
    raise(Kind::HFCoreError, "engine must be 'automatic', 'backend' or 'host_tape', got '" + name + "'");
}

std::vector<double> main_data(const hf::Model& m, nb::handle data) {
    return read_vector(data, {"data", Kind::InvalidPdfData, m.n_main(), false});
}

nb::dict hypotest_dict(const gr::HypotestGradient& g, std::int64_t n_inputs) {
    nb::dict d;
    d["status"] = gr::status_name(g.status);
    d["reason"] = g.reason;
    d["notes"] = g.notes;
    d["held"] = g.held;
    d["q_obs"] = g.q_obs;
    d["q_asimov"] = g.q_asimov;
    d["obs"] = g.obs;
    d["exp"] = std::vector<double>(g.exp.begin(), g.exp.end());
    d["route_obs"] = g.route_obs;
    d["route_asimov"] = g.route_asimov;
    if (g.status == gr::Status::ok) {
        d["d_q_obs"] = to_numpy(g.d_q_obs);
        d["d_q_asimov"] = to_numpy(g.d_q_asimov);
        d["d_obs"] = to_numpy(g.d_obs);
        std::vector<double> e;
        for (const auto& row : g.d_exp) e.insert(e.end(), row.begin(), row.end());
        d["d_exp"] = to_numpy(e, 5, n_inputs);
        d["d_q_obs_data"] = to_numpy(g.d_q_obs_data);
        d["d_q_asimov_data"] = to_numpy(g.d_q_asimov_data);
        d["d_obs_data"] = to_numpy(g.d_obs_data);
        std::vector<double> ed;
        for (const auto& row : g.d_exp_data) ed.insert(ed.end(), row.begin(), row.end());
        d["d_exp_data"] = to_numpy(ed, 5, static_cast<std::int64_t>(g.d_obs_data.size()));
    }
    return d;
}

}  // namespace

void bind_grad(nb::module_& m) {
    m.def("_grad_input_layout", [](PyModel& self) {
        nb::list out;
        for (const auto& b : gr::input_layout(self.spec()))
            out.append(nb::make_tuple(b.json_path, b.field, b.offset, b.size));
        return out;
    });
    m.def("_grad_inputs", [](PyModel& self) { return to_numpy(gr::flatten_inputs(self.spec())); });
    m.def(
        "_grad_twice_nll",
        [](PyModel& self, nb::handle inputs, nb::handle pars, nb::handle data, const std::string& engine) {
            const gr::Engine e = engine_named(engine);
            const hf::ModelSpec spec = spec_with(self, inputs);
            const auto model = self.current();
            const auto p = read_vector(pars, {"pars", Kind::InvalidPdfParameters, model->n_pars(), false});
            const auto n = main_data(*model, data);
            const auto g = self.run(Kind::HFCoreError, [&](const hf::Model& mm) {
                const hf::Model changed(spec, mm.backend());
                return gr::twice_nll_gradient(spec, changed, p, n, e);
            });
            return nb::make_tuple(g.value, to_numpy(g.d_inputs), to_numpy(g.d_pars), to_numpy(g.d_main_data),
                                  gr::engine_name(g.engine), g.route);
        },
        "model"_a, "inputs"_a, "pars"_a, "data"_a, "engine"_a = "automatic");
    m.def(
        "_grad_profiled_twice_nll",
        [](PyModel& self, nb::handle inputs, nb::handle data, nb::handle poi_value, nb::handle init,
           nb::handle bounds, nb::handle fixed) {
            const hf::ModelSpec spec = spec_with(self, inputs);
            const auto model = self.current();
            const auto n = main_data(*model, data);
            const hf::infer::FitConfig cfg = fit_config(*model, init, bounds, fixed);
            const bool held = !poi_value.is_none();
            const double mu = held ? nb::cast<double>(poi_value) : 0.0;
            const auto g = self.run(Kind::InvalidFitInput, [&](const hf::Model& mm) {
                const hf::Model changed(spec, mm.backend());
                return gr::profiled_twice_nll_gradient(spec, changed, n, held ? &mu : nullptr, cfg);
            });
            nb::dict d;
            d["status"] = gr::status_name(g.status);
            d["reason"] = g.reason;
            d["held"] = g.held;
            d["twice_nll"] = g.twice_nll;
            d["bestfit"] = to_numpy(g.bestfit);
            d["route"] = g.route;
            if (g.status == gr::Status::ok) d["d_inputs"] = to_numpy(g.d_inputs);
            return d;
        },
        "model"_a, "inputs"_a, "data"_a, "poi_value"_a.none() = nb::none(), "init_pars"_a.none() = nb::none(),
        "par_bounds"_a.none() = nb::none(), "fixed_params"_a.none() = nb::none());
    m.def(
        "_grad_hypotest",
        [](double poi, PyModel& self, nb::handle inputs, nb::handle data, const std::string& test_stat,
           nb::handle init, nb::handle bounds, nb::handle fixed, const std::string& engine) {
            const gr::Engine e = engine_named(engine);
            const hf::ModelSpec spec = spec_with(self, inputs);
            const auto model = self.current();
            const auto n = main_data(*model, data);
            hf::infer::HypotestOptions o;
            o.config = fit_config(*model, init, bounds, fixed);
            o.test_stat = guarded(Kind::HFCoreError, [&] { return hf::infer::parse_test_stat(test_stat); });
            const auto g = self.run(Kind::InvalidFitInput, [&](const hf::Model& mm) {
                const hf::Model changed(spec, mm.backend());
                return gr::hypotest_gradient(poi, spec, changed, n, o, e);
            });
            return hypotest_dict(g, static_cast<std::int64_t>(gr::flatten_inputs(spec).size()));
        },
        "poi_test"_a, "model"_a, "inputs"_a, "data"_a, "test_stat"_a = "qtilde", "init_pars"_a.none() = nb::none(),
        "par_bounds"_a.none() = nb::none(), "fixed_params"_a.none() = nb::none(), "engine"_a = "automatic");
    m.def(
        "_grad_hypotest_batch",
        [](double poi, PyModel& self, nb::handle inputs, nb::handle data, const std::string& test_stat, int threads) {
            const auto model = self.current();
            const auto n_in = static_cast<std::int64_t>(gr::flatten_inputs(self.spec()).size());
            const auto y = read_matrix(inputs, {"inputs", Kind::InvalidPdfParameters, n_in, true});
            const auto d = read_matrix(data, {"data", Kind::InvalidPdfData, model->n_main(), true});
            std::vector<std::vector<double>> ys, ds;
            for (std::int64_t r = 0; r < y.rows; ++r) ys.push_back(y.row_vector(r));
            for (std::int64_t r = 0; r < d.rows; ++r) ds.push_back(d.row_vector(r));
            hf::infer::HypotestOptions o;
            o.test_stat = guarded(Kind::HFCoreError, [&] { return hf::infer::parse_test_stat(test_stat); });
            const auto gs = self.run(Kind::InvalidFitInput, [&](const hf::Model& mm) {
                return gr::hypotest_gradients(poi, self.spec(), mm, ys, ds, o, threads);
            });
            nb::list out;
            for (const auto& g : gs) out.append(hypotest_dict(g, n_in));
            return out;
        },
        "poi_test"_a, "model"_a, "inputs"_a, "data"_a, "test_stat"_a = "qtilde", "threads"_a = 0);
}

}  // namespace hfpy
