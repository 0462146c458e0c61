// hfcore._core's inference: fits, test statistics, hypotests and upper limits, all with the GIL released
// (many-patch scans: bind_scan.cpp). hfcore/infer/ gives them pyhf's signatures and return shapes.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <memory>

#include "arrays.hpp"
#include "infer_args.hpp"
#include "json_convert.hpp"
#include "py_model.hpp"
#include "hfcore/infer.hpp"
#include "hfcore/observed_data.hpp"
#include "hfcore/spec.hpp"

namespace hfpy {

using namespace nb::literals;
namespace inf = hf::infer;

inf::FitConfig fit_config(const hf::Model& m, nb::handle init, nb::handle bounds, nb::handle fixed) {
    inf::FitConfig c;
    const std::int64_t P = m.n_pars();
    if (!init.is_none()) c.init = read_vector(init, {"init_pars", Kind::InvalidFitInput, P});
    if (!bounds.is_none()) {
        HostMatrix b = read_matrix(bounds, {"par_bounds", Kind::InvalidFitInput, 2, true, false});
        if (!b.two_d || b.rows != P)
            raise(Kind::InvalidFitInput, "par_bounds: expected " + std::to_string(P) + " (lower, upper) pairs, got " +
                                             std::to_string(b.two_d ? b.rows : 1));
        for (std::int64_t i = 0; i < P; ++i) c.bounds.emplace_back(b.ptr[2 * i], b.ptr[2 * i + 1]);
    }
    if (!fixed.is_none()) {
        for (nb::handle x : fixed) c.fixed.push_back(PyObject_IsTrue(x.ptr()) == 1);
        if (static_cast<std::int64_t>(c.fixed.size()) != P)
            raise(Kind::InvalidFitInput, "fixed_params: has length " + std::to_string(c.fixed.size()) + " but " +
                                             std::to_string(P) + " was expected");
    }
    return c;
}

std::vector<double> read_data(const hf::Model& m, nb::handle data) {
    std::vector<double> d = read_vector(data, {"data", Kind::InvalidPdfData, m.n_main() + m.n_aux()});
    // The checks every entry point makes (counts >= 0, ...), here so that they raise pyhf's InvalidPdfData.
    try {
        hf::check_observed_data(m, d, "");
    } catch (const hf::InputError& e) {
        raise(Kind::InvalidPdfData, e.json_path() + ": " + e.detail(), "", e.json_path());
    }
    return d;
}

void set_test_options(inf::HypotestOptions& o, const std::string& test_stat, const std::string& calctype,
                      const std::string& base_dist, std::int64_t ntoys, std::uint64_t seed, std::int64_t toy_batch) {
    o.test_stat = guarded(Kind::HFCoreError, [&] { return inf::parse_test_stat(test_stat); });
    o.calctype = guarded(Kind::HFCoreError, [&] { return inf::parse_calctype(calctype); });
    o.calc_base_dist = guarded(Kind::HFCoreError, [&] { return inf::parse_base_dist(base_dist); });
    o.ntoys = ntoys;
    o.seed = seed;
    o.toy_batch = toy_batch;
}

hf::infer::ProgressFn python_progress(nb::handle callback) {
    if (callback.is_none()) return {};
    // The last reference may go on a thread without the GIL: take it to release the callable.
    std::shared_ptr<nb::object> cb(new nb::object(nb::borrow(callback)), [](nb::object* o) {
        nb::gil_scoped_acquire gil;
        delete o;
    });
    return [cb](std::int64_t done, std::int64_t total, const std::string& label) {
        nb::gil_scoped_acquire gil;
        try {
            (*cb)(done, total, label);
        } catch (nb::python_error& e) {
            e.discard_as_unraisable("hfcore progress callback");
        }
    };
}

namespace {

nb::object array5(const std::array<double, 5>& a) { return to_numpy(std::vector<double>(a.begin(), a.end())); }

nb::object maybe_array(const std::vector<double>& v) { return v.empty() ? nb::object(nb::none()) : to_numpy(v); }

// The minimiser's report as `minimizer`, and its figures also as the result's own attributes (the names Python
// users had before the report was one object): all of them for a fit, the basin search's for the totals.
template <class Result>
void bind_minimizer_report(nb::class_<Result>& c, bool fit) {
    c.def_ro("minimizer", &Result::minimizer)
        .def_prop_ro("basin_candidates", [](const Result& r) { return r.minimizer.basin_candidates; },
                     "Other starting points the basin search descended from (0 where the model cannot be "
                     "multimodal).")
        .def_prop_ro("other_basin", [](const Result& r) { return r.minimizer.other_basin; },
                     "The minimum came from another basin than the descent from the start's.");
    if (!fit) return;
    c.def_prop_ro("n_eval", [](const Result& r) { return r.minimizer.n_eval; })
        .def_prop_ro("edm", [](const Result& r) { return r.minimizer.edm; })
        .def_prop_ro("max_projected_gradient", [](const Result& r) { return r.minimizer.max_projected_gradient; });
}

void bind_results(nb::module_& m) {
    nb::class_<inf::MinimizerReport>(m, "MinimizerReport",
                                     "How the minimiser reached a minimum (a fit's, or the totals over a test's fits).")
        .def_ro("n_eval", &inf::MinimizerReport::n_eval)
        .def_ro("edm", &inf::MinimizerReport::edm)
        .def_ro("max_projected_gradient", &inf::MinimizerReport::max_projected_gradient)
        .def_ro("basin_candidates", &inf::MinimizerReport::basin_candidates)
        .def_ro("other_basin", &inf::MinimizerReport::other_basin);

    auto fit = nb::class_<inf::FitResult>(m, "FitResult", "One fit: best-fit point, -2 log L, convergence and why.")
        .def_prop_ro("bestfit", [](const inf::FitResult& r) { return to_numpy(r.bestfit); })
        .def_ro("twice_nll", &inf::FitResult::twice_nll)
        .def_ro("converged", &inf::FitResult::converged)
        .def_ro("reason", &inf::FitResult::reason)
        .def_ro("algorithm", &inf::FitResult::algorithm)
        .def_prop_ro("uncertainties", [](const inf::FitResult& r) { return maybe_array(r.uncertainties); })
        .def_prop_ro("correlations", [](const inf::FitResult& r) -> nb::object {
            if (r.correlations.empty()) return nb::none();
            const auto n = static_cast<std::int64_t>(r.bestfit.size());
            return to_numpy(r.correlations, n, n);
        })
        .def_ro("hessian_ok", &inf::FitResult::hessian_ok);
    bind_minimizer_report(fit, true);

    auto hypotest = nb::class_<inf::HypotestResult>(m, "HypotestResult", "One hypothesis test (CLs or p0) with its fits.")
        .def_ro("obs", &inf::HypotestResult::obs)
        .def_prop_ro("exp", [](const inf::HypotestResult& r) { return array5(r.exp); })
        .def_ro("CLs_obs", &inf::HypotestResult::CLs_obs)
        .def_ro("CLsb_obs", &inf::HypotestResult::CLsb_obs)
        .def_ro("CLb_obs", &inf::HypotestResult::CLb_obs)
        .def_prop_ro("CLs_exp", [](const inf::HypotestResult& r) { return array5(r.CLs_exp); })
        .def_prop_ro("CLsb_exp", [](const inf::HypotestResult& r) { return array5(r.CLsb_exp); })
        .def_prop_ro("CLb_exp", [](const inf::HypotestResult& r) { return array5(r.CLb_exp); })
        .def_ro("teststat", &inf::HypotestResult::teststat)
        .def_ro("q_obs", &inf::HypotestResult::q_obs)
        .def_ro("q_asimov", &inf::HypotestResult::q_asimov)
        .def_prop_ro("asimov_pars", [](const inf::HypotestResult& r) { return maybe_array(r.asimov_pars); })
        .def_prop_ro("free_fit_to_data", [](const inf::HypotestResult& r) { return maybe_array(r.free_fit_to_data); })
        .def_prop_ro("free_fit_to_asimov", [](const inf::HypotestResult& r) { return maybe_array(r.free_fit_to_asimov); })
        .def_prop_ro("fixed_poi_fit_to_data", [](const inf::HypotestResult& r) { return maybe_array(r.fixed_poi_fit_to_data); })
        .def_prop_ro("fixed_poi_fit_to_asimov", [](const inf::HypotestResult& r) { return maybe_array(r.fixed_poi_fit_to_asimov); })
        .def_ro("twice_nll_free", &inf::HypotestResult::twice_nll_free)
        .def_ro("converged", &inf::HypotestResult::converged)
        .def_ro("warnings", &inf::HypotestResult::warnings)
        .def_prop_ro("sb_teststats", [](const inf::HypotestResult& r) { return to_numpy(r.sb_teststats); })
        .def_prop_ro("b_teststats", [](const inf::HypotestResult& r) { return to_numpy(r.b_teststats); })
        .def_ro("toy_fits_batched", &inf::HypotestResult::toy_fits_batched)
        .def_ro("toy_fits_fallback", &inf::HypotestResult::toy_fits_fallback)
        .def_ro("toy_fits_failed", &inf::HypotestResult::toy_fits_failed);
    bind_minimizer_report(hypotest, false);

    auto limit = nb::class_<inf::UpperLimitResult>(m, "UpperLimitResult", "Observed and expected upper limits and the hypotests run.")
        .def_ro("obs", &inf::UpperLimitResult::obs)
        .def_prop_ro("exp", [](const inf::UpperLimitResult& r) { return array5(r.exp); })
        .def_ro("scanned", &inf::UpperLimitResult::scanned)
        .def_ro("results", &inf::UpperLimitResult::results)
        .def_ro("converged", &inf::UpperLimitResult::converged)
        .def_ro("bracket", &inf::UpperLimitResult::bracket)
        .def_ro("poi_bounds_used", &inf::UpperLimitResult::poi_bounds_used);
    bind_minimizer_report(limit, false);
}

inf::HypotestOptions hypotest_options(const hf::Model& m, nb::handle init, nb::handle bounds, nb::handle fixed,
                                      const std::string& test_stat, const std::string& calctype,
                                      const std::string& base_dist, std::int64_t ntoys, std::uint64_t seed,
                                      std::int64_t toy_batch, nb::handle progress) {
    inf::HypotestOptions o;
    o.progress = python_progress(progress);
    o.config = fit_config(m, init, bounds, fixed);
    set_test_options(o, test_stat, calctype, base_dist, ntoys, seed, toy_batch);
    return o;
}

}  // namespace

void bind_infer(nb::module_& m) {
    bind_results(m);

    m.def(
        "fit",
        [](PyModel& self, nb::handle data, nb::handle init, nb::handle bounds, nb::handle fixed,
           std::optional<double> fixed_poi, bool uncertainties, int max_eval, double tolerance) {
            const auto model = self.current();
            const std::vector<double> d = read_data(*model, data);
            const inf::FitConfig config = fit_config(*model, init, bounds, fixed);
            inf::FitOptions o;
            o.uncertainties = uncertainties;
            if (max_eval > 0) o.max_eval = max_eval;
            if (tolerance > 0) o.tolerance = tolerance;
            return self.run(Kind::InvalidFitInput, [&](const hf::Model& mm) {
                return fixed_poi ? inf::fixed_poi_fit(*fixed_poi, mm, d, config, o) : inf::fit(mm, d, config, o);
            });
        },
        "model"_a, "data"_a, HFPY_FIT_ARGS, "fixed_poi"_a.none() = nb::none(), "uncertainties"_a = false,
        "max_eval"_a = 0, "tolerance"_a = 0.0);

    m.def(
        "test_statistic",
        [](const std::string& name, double mu, PyModel& self, nb::handle data, nb::handle init, nb::handle bounds,
           nb::handle fixed) {
            const auto model = self.current();
            const std::vector<double> d = read_data(*model, data);
            const inf::FitConfig config = fit_config(*model, init, bounds, fixed);
            const inf::TestStat stat = guarded(Kind::HFCoreError, [&] { return inf::parse_test_stat(name); });
            inf::TestStatResult r = self.run(Kind::InvalidFitInput, [&](const hf::Model& mm) {
                return inf::test_statistic(stat, mu, mm, d, config);
            });
            return nb::make_tuple(r.value, nb::cast(std::move(r.fixed_fit)), nb::cast(std::move(r.free_fit)), r.warnings);
        },
        "name"_a, "mu"_a, "model"_a, "data"_a, HFPY_FIT_ARGS);

    m.def(
        "hypotest",
        [](double poi, PyModel& self, nb::handle data, nb::handle init, nb::handle bounds, nb::handle fixed,
           const std::string& test_stat, const std::string& calctype, const std::string& base_dist,
           std::int64_t ntoys, std::uint64_t seed, std::int64_t toy_batch, nb::handle progress) {
            const auto model = self.current();
            const std::vector<double> d = read_data(*model, data);
            const inf::HypotestOptions o =
                hypotest_options(*model, init, bounds, fixed, test_stat, calctype, base_dist, ntoys, seed, toy_batch,
                                 progress);
            return self.run(Kind::InvalidFitInput, [&](const hf::Model& mm) { return inf::hypotest(poi, mm, d, o); });
        },
        "poi_test"_a, "model"_a, "data"_a, HFPY_FIT_ARGS, HFPY_TEST_ARGS);

    m.def(
        "upper_limit",
        [](PyModel& self, nb::handle data, double level, double atol, double rtol, double low, double high,
           nb::handle init, nb::handle bounds, nb::handle fixed, const std::string& test_stat,
           const std::string& calctype, const std::string& base_dist, std::int64_t ntoys, std::uint64_t seed,
           std::int64_t toy_batch, nb::handle progress) {
            const auto model = self.current();
            const std::vector<double> d = read_data(*model, data);
            const inf::HypotestOptions o =
                hypotest_options(*model, init, bounds, fixed, test_stat, calctype, base_dist, ntoys, seed, toy_batch,
                                 progress);
            inf::Toms748Options t;
            t.level = level;
            t.atol = atol;
            t.rtol = rtol;
            t.low = low;
            t.high = high;
            return self.run(Kind::HFCoreError, [&](const hf::Model& mm) { return inf::upper_limit(mm, d, t, o); });
        },
        "model"_a, "data"_a, "level"_a = 0.05, "atol"_a = 2e-12, "rtol"_a = 1e-4, "low"_a = 0.0,
        "high"_a = std::numeric_limits<double>::quiet_NaN(), HFPY_FIT_ARGS, HFPY_TEST_ARGS);

    m.def(
        "upper_limit_scan",
        [](PyModel& self, nb::handle data, nb::handle scan, double level, nb::handle init, nb::handle bounds,
           nb::handle fixed, const std::string& test_stat, const std::string& calctype, const std::string& base_dist,
           std::int64_t ntoys, std::uint64_t seed, std::int64_t toy_batch, nb::handle progress) {
            const auto model = self.current();
            const std::vector<double> d = read_data(*model, data);
            const std::vector<double> grid = read_vector(scan, {"scan", Kind::InvalidFitInput, -1});
            const inf::HypotestOptions o =
                hypotest_options(*model, init, bounds, fixed, test_stat, calctype, base_dist, ntoys, seed, toy_batch,
                                 progress);
            return self.run(Kind::HFCoreError, [&](const hf::Model& mm) { return inf::upper_limit_scan(mm, d, grid, level, o); });
        },
        "model"_a, "data"_a, "scan"_a, "level"_a = 0.05, HFPY_FIT_ARGS, HFPY_TEST_ARGS);
}

}  // namespace hfpy
