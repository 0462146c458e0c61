// hfcore._core.Model: pyhf.Model's evaluations on numpy arrays (1-D pars, or [K, P] for K points in one call)
// and what hfcore.Model's config is built from.
#include <nanobind/stl/string.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>

#include <chrono>

#include "arrays.hpp"
#include "json_convert.hpp"
#include "py_model.hpp"
#include "hfcore/spec.hpp"
#include "hfcore/workspace.hpp"

namespace hfpy {

using namespace nb::literals;

PyModel::PyModel(hf::ModelSpec spec, BackendRef backend)
    : spec_(std::move(spec)), backend_(std::move(backend)), follows_default_(!backend_) {
    build();
}

void PyModel::build() {
    if (follows_default_) {
        generation_ = default_generation();
        backend_ = default_backend_handle();
    }
    BackendRef b = backend_;
    model_ = guarded(Kind::InvalidModel, [&] {
        nb::gil_scoped_release release;
        std::lock_guard<std::mutex> lock(b->mutex);
        return std::make_shared<const hf::Model>(spec_, b->backend);
    });
}

std::shared_ptr<const hf::Model> PyModel::current() {
    if (follows_default_ && generation_ != default_generation()) build();
    return model_;
}

void PyModel::set_poi(const std::string& poi) {
    const std::string old = spec_.measurement.poi;
    spec_.measurement.poi = poi;
    try {
        build();
    } catch (...) {
        spec_.measurement.poi = old;
        throw;
    }
}

namespace {

hf::ModifierSettings settings_from(const std::string& normsys, const std::string& histosys) {
    // pyhf raises InvalidInterpCode for codes it does not know; hfcore has pyhf's defaults and the kinked codes,
    // and the core says which (normsys code1/code4, histosys code0/code2/code4p).
    return guarded(Kind::InvalidInterpCode, [&] {
        hf::ModifierSettings s;
        s.set(hf::modifier_type_name(hf::ModifierType::normsys), hf::parse_interpcode(normsys));
        s.set(hf::modifier_type_name(hf::ModifierType::histosys), hf::parse_interpcode(histosys));
        return s;
    });
}

nb::list str_list(const std::vector<std::string>& v) {
    nb::list out;
    for (const auto& s : v) out.append(nb::str(s.c_str(), s.size()));
    return out;
}

nb::list float_list(const std::vector<double>& v) {
    nb::list out;
    for (double x : v) out.append(nb::float_(x));
    return out;
}

nb::list bounds_list(const std::vector<std::pair<double, double>>& v) {
    nb::list out;
    for (const auto& [lo, hi] : v) out.append(nb::make_tuple(lo, hi));
    return out;
}

nb::list bool_list(const std::vector<bool>& v) {
    nb::list out;
    for (bool b : v) out.append(nb::bool_(b));
    return out;
}

// Everything hfcore.pdf._ModelConfig shows, read once when a model is built.
nb::dict config_info(PyModel& self) {
    const auto m = self.current();
    nb::dict d;
    d["channels"] = str_list(m->channels());
    d["samples"] = str_list(m->samples());
    nb::list nbins;
    for (auto n : m->channel_nbins()) nbins.append(nb::int_(n));
    d["channel_nbins"] = nbins;
    d["par_order"] = str_list(m->par_order());
    d["par_names"] = str_list(m->par_names());
    d["npars"] = m->n_pars();
    d["nmaindata"] = m->n_main();
    d["nauxdata"] = m->n_aux();
    d["poi_name"] = m->poi_name().empty() ? nb::none() : nb::object(nb::str(m->poi_name().c_str()));
    d["poi_index"] = m->poi_index() < 0 ? nb::none() : nb::object(nb::int_(m->poi_index()));
    d["auxdata"] = float_list(m->auxdata());
    nb::list sets;
    for (const auto& s : m->parameter_sets()) {
        nb::dict p;
        p["name"] = s.name;
        p["modifier_type"] = hf::modifier_type_name(s.modifier_type);
        p["offset"] = s.offset;
        p["n"] = s.n;
        p["constrained"] = s.constrained;
        p["constraint"] = s.constraint.empty() ? nb::none() : nb::object(nb::str(s.constraint.c_str()));
        p["inits"] = float_list(s.inits);
        p["bounds"] = bounds_list(s.bounds);
        p["fixed"] = bool_list(s.fixed);
        p["auxdata"] = float_list(s.auxdata);
        p["sigmas"] = float_list(s.sigmas);
        p["factors"] = float_list(s.factors);
        sets.append(p);
    }
    d["parameter_sets"] = sets;
    nb::dict settings;
    auto interpcode = [&](hf::ModifierType type, hf::InterpCode code) {
        nb::dict entry;
        entry["interpcode"] = hf::interpcode_name(code);
        settings[hf::modifier_type_name(type)] = entry;
    };
    interpcode(hf::ModifierType::normsys, m->modifier_settings().normsys_interpcode);
    interpcode(hf::ModifierType::histosys, m->modifier_settings().histosys_interpcode);
    d["modifier_settings"] = settings;
    d["implementation"] = m->implementation();
    return d;
}

struct Inputs {
    HostMatrix pars, data;
    std::int64_t k = 1;
};

Inputs read_inputs(const hf::Model& m, nb::handle pars, nb::handle data) {
    Inputs in;
    in.pars = read_matrix(pars, {"pars", Kind::InvalidPdfParameters, m.n_pars()});
    in.data = read_matrix(data, {"data", Kind::InvalidPdfData, m.n_main() + m.n_aux()});
    in.k = in.pars.rows;
    if (in.data.two_d && in.data.rows != 1) {
        if (in.pars.rows == 1) {
            in.k = in.data.rows;
        } else if (in.pars.rows != in.data.rows) {
            raise(Kind::InvalidPdfData, "data: " + std::to_string(in.data.rows) + " rows for " +
                                            std::to_string(in.pars.rows) + " parameter points; give one data row, or one per point");
        }
    }
    return in;
}

// [K, P] pars as a flat vector, a single point repeated when only the data has K rows.
std::vector<double> pars_rows(const Inputs& in) {
    if (in.pars.rows == in.k) return in.pars.all();
    std::vector<double> out;
    out.reserve(static_cast<std::size_t>(in.k * in.pars.cols));
    for (std::int64_t r = 0; r < in.k; ++r) out.insert(out.end(), in.pars.ptr, in.pars.ptr + in.pars.cols);
    return out;
}

nb::object logpdf(PyModel& self, nb::handle pars, nb::handle data) {
    const auto model = self.current();
    Inputs in = read_inputs(*model, pars, data);
    std::vector<double> out = self.run(Kind::InvalidPdfData, [&](const hf::Model& m) {
        const bool data_per_point = in.data.two_d && in.data.rows > 1;
        if (in.k == 1 && !data_per_point) {
            // The per-call path: host vectors reused by this thread, as a C++ caller would keep its own.
            thread_local std::vector<double> p, d;
            return std::vector<double>{m.logpdf(in.pars.row_into(p), in.data.row_into(d))};
        }
        hf::Backend& b = *m.backend();
        hf::Tensor p = b.from_host(pars_rows(in), {in.k, in.pars.cols});
        if (!data_per_point) return b.to_host_double(m.bind(in.data.row_vector()).logpdf(p));
        hf::Tensor d = b.from_host(in.data.all(), {in.k, in.data.cols});
        return b.to_host_double(m.logpdf(p, d));
    });
    return to_numpy(out);
}

nb::object logpdf_and_grad(PyModel& self, nb::handle pars, nb::handle data) {
    const auto model = self.current();
    Inputs in = read_inputs(*model, pars, data);
    std::vector<double> value, grad;
    self.run(Kind::InvalidPdfData, [&](const hf::Model& m) {
        hf::Backend& b = *m.backend();
        hf::Tensor p = b.from_host(pars_rows(in), {in.k, in.pars.cols});
        const bool data_per_point = in.data.two_d && in.data.rows > 1;
        hf::Tensor d = data_per_point ? b.from_host(in.data.all(), {in.k, in.data.cols}) : b.from_host(in.data.row_vector());
        hf::Tensor g;
        value = b.to_host_double(m.logpdf(p, d, &g));
        grad = b.to_host_double(g);
        return 0;
    });
    const bool batched = in.pars.two_d || (in.data.two_d && in.data.rows > 1);
    return nb::make_tuple(to_numpy(value), batched ? to_numpy(grad, in.k, in.pars.cols) : to_numpy(grad));
}

enum class Part { all, main, aux };

nb::object expected(PyModel& self, nb::handle pars, Part part) {
    const auto model = self.current();
    HostMatrix p = read_matrix(pars, {"pars", Kind::InvalidPdfParameters, model->n_pars()});
    const std::int64_t n_main = model->n_main(), n_aux = model->n_aux();
    const std::int64_t width = part == Part::all ? n_main + n_aux : part == Part::main ? n_main : n_aux;
    std::vector<double> out = self.run(Kind::InvalidPdfParameters, [&](const hf::Model& m) {
        if (!p.two_d) {
            if (part == Part::main) return m.expected_actualdata(p.row_vector());
            if (part == Part::aux) return m.expected_auxdata(p.row_vector());
            return m.expected_data(p.row_vector(), true);
        }
        hf::Backend& b = *m.backend();
        hf::Tensor t = b.from_host(p.all(), {p.rows, p.cols});
        std::vector<double> full = b.to_host_double(m.expected_data(t, part != Part::main));
        if (part != Part::aux) return full;
        std::vector<double> aux;
        aux.reserve(static_cast<std::size_t>(p.rows * n_aux));
        for (std::int64_t r = 0; r < p.rows; ++r)
            aux.insert(aux.end(), full.begin() + r * (n_main + n_aux) + n_main, full.begin() + (r + 1) * (n_main + n_aux));
        return aux;
    });
    return p.two_d ? to_numpy(out, p.rows, width) : to_numpy(out);
}

// Expected main rates per sample at K points ([P] or [K, P] pars): [K * S, N], row k * S + j for sample j
// (hf::Model::expected_main_by_sample); hfcore.pdf reshapes it to pyhf's return_by_sample layout.
nb::object expected_by_sample(PyModel& self, nb::handle pars) {
    const auto model = self.current();
    const HostMatrix p = read_matrix(pars, {"pars", Kind::InvalidPdfParameters, model->n_pars()});
    const auto s = static_cast<std::int64_t>(model->samples().size());
    std::vector<double> out = self.run(Kind::InvalidPdfParameters, [&](const hf::Model& m) {
        return m.expected_main_by_sample(p.all(), p.rows);
    });
    return to_numpy(out, p.rows * s, model->n_main());
}

// Model.bind(data): the likelihood bound to data once (hf::Model::bind: one upload, the data-only constants once),
// then logpdf(pars) at as many points as wanted. Holds the model it was bound with, and its backend's lock.
struct PyBound {
    std::shared_ptr<const hf::Model> model;
    BackendRef backend;
    hf::BoundLikelihood bound;

    template <class F>
    decltype(auto) run(Kind kind, F&& f) {
        return guarded(kind, [&]() -> decltype(auto) {
            nb::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(backend->mutex);
            return f(*model);
        });
    }
};

PyBound bind_data(PyModel& self, nb::handle data) {
    PyBound b{self.current(), self.backend(), {}};
    const HostMatrix d = read_matrix(data, {"data", Kind::InvalidPdfData, b.model->n_main() + b.model->n_aux()});
    b.bound = b.run(Kind::InvalidPdfData, [&](const hf::Model& m) {
        hf::Backend& be = *m.backend();
        return m.bind(d.two_d && d.rows > 1 ? be.from_host(d.all(), {d.rows, d.cols}) : be.from_host(d.row_vector()));
    });
    return b;
}

nb::object bound_logpdf(PyBound& self, nb::handle pars) {
    const HostMatrix p = read_matrix(pars, {"pars", Kind::InvalidPdfParameters, self.model->n_pars()});
    return to_numpy(self.run(Kind::InvalidPdfData, [&](const hf::Model& m) {
        hf::Backend& be = *m.backend();
        return be.to_host_double(self.bound.logpdf(be.from_host(p.all(), {p.rows, p.cols})));
    }));
}

// Mean seconds per call of the C++ host logpdf at one point, looped in C++: the reference the per-call cost
// of Model.logpdf from Python is measured against (bench/python_bench.py).
double time_cpp_logpdf(PyModel& self, nb::handle pars, nb::handle data, int n) {
    const auto model = self.current();
    Inputs in = read_inputs(*model, pars, data);
    const std::vector<double> p = in.pars.row_vector(), d = in.data.row_vector();
    return self.run(Kind::InvalidPdfData, [&](const hf::Model& m) {
        volatile double sink = 0;
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) sink = sink + m.logpdf(p, d);
        const auto t1 = std::chrono::steady_clock::now();
        return std::chrono::duration<double>(t1 - t0).count() / n;
    });
}

}  // namespace

BackendRef backend_arg(nb::handle backend);  // bind_backend.cpp

void bind_model(nb::module_& m) {
    nb::class_<PyBound>(m, "BoundLikelihood", "A model's likelihood bound to data once (Model.bind).")
        .def("logpdf", &bound_logpdf, "pars"_a,
             nb::sig("def logpdf(self, pars: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float64]"),
             "log-likelihood at pars ([P] or [K, P]) for the bound data: an array of shape (K,).");
    nb::class_<PyModel>(m, "Model", "The compiled HistFactory model (use hfcore.Model).")
        .def(
            "__init__",
            [](PyModel* self, nb::handle spec, std::optional<std::string> poi_name, const std::string& normsys,
               const std::string& histosys, nb::handle backend, const std::string& source) {
                const hf::ModifierSettings settings = settings_from(normsys, histosys);
                hf::json::Value doc = to_json(spec);
                hf::ModelSpec ms = guarded(Kind::InvalidModel, [&] {
                    return hf::model_spec_from_json(doc, source, poi_name.value_or(""), settings);
                });
                BackendRef b = backend_arg(backend);
                new (self) PyModel(std::move(ms), std::move(b));
            },
            "spec"_a, "poi_name"_a.none(), nb::arg(hf::modifier_type_name(hf::ModifierType::normsys)) = "code4",
            nb::arg(hf::modifier_type_name(hf::ModifierType::histosys)) = "code4p", "backend"_a.none() = nb::none(),
            "source"_a = "<model spec>")
        .def("logpdf", &logpdf, "pars"_a, "data"_a,
             nb::sig("def logpdf(self, pars: numpy.typing.ArrayLike, data: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float64]"),
             "log-likelihood at pars ([P] or [K, P]) for data ([N + A] or [K, N + A]): an array of shape (K,).")
        .def("bind", &bind_data, "data"_a,
             nb::sig("def bind(self, data: numpy.typing.ArrayLike) -> BoundLikelihood"),
             "The likelihood bound to data ([N + A], or [K, N + A] for K points at once): uploaded once, then "
             "logpdf(pars) as often as needed.")
        .def("logpdf_and_grad", &logpdf_and_grad, "pars"_a, "data"_a,
             nb::sig("def logpdf_and_grad(self, pars: numpy.typing.ArrayLike, data: numpy.typing.ArrayLike) -> tuple[numpy.typing.NDArray[numpy.float64], numpy.typing.NDArray[numpy.float64]]"),
             "(logpdf, gradient of logpdf with respect to pars): shapes (K,) and (P,) or (K, P).")
        .def("expected_data", [](PyModel& s, nb::handle p, bool aux) { return expected(s, p, aux ? Part::all : Part::main); },
             "pars"_a, "include_auxdata"_a = true,
             nb::sig("def expected_data(self, pars: numpy.typing.ArrayLike, include_auxdata: bool = True) -> numpy.typing.NDArray[numpy.float64]"),
             "Expected main data (+ auxdata) at pars ([P] or [K, P]).")
        .def("expected_actualdata", [](PyModel& s, nb::handle p) { return expected(s, p, Part::main); }, "pars"_a,
             nb::sig("def expected_actualdata(self, pars: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float64]"),
             "Expected main data at pars.")
        .def("expected_auxdata", [](PyModel& s, nb::handle p) { return expected(s, p, Part::aux); }, "pars"_a,
             nb::sig("def expected_auxdata(self, pars: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float64]"),
             "Expected auxiliary data at pars.")
        .def("_config_info", &config_info)
        .def("_expected_by_sample", &expected_by_sample, "pars"_a)
        .def("_set_poi", [](PyModel& s, std::optional<std::string> poi) {
            guarded(Kind::InvalidModel, [&] { s.set_poi(poi.value_or("")); });
        })
        .def_prop_ro("_backend", [](PyModel& s) { return s.backend(); })
        .def_prop_ro("_follows_default_backend", &PyModel::follows_default)
        .def("_time_cpp_logpdf", &time_cpp_logpdf, "pars"_a, "data"_a, "n"_a);
}

}  // namespace hfpy
