// hfcore._core's fit diagnostics (hfcore/diagnostics.hpp, hfcore/breakdown.hpp): pulls, ranking, uncertainty
// breakdown, yields, profile scans, MINOS intervals and goodness of fit, the GIL released. Each returns the dict of the CLI's JSON (hf::infer::to_json,
// docs/diagnostics.md); hfcore/infer/diagnostics.py gives
// them pyhf's argument order. Bad requests (an unknown parameter, a fixed one scanned, a value outside the
// bounds, nothing to rank) raise InvalidFitInput (a ValueError).
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "arrays.hpp"
#include "infer_args.hpp"
#include "json_convert.hpp"
#include "py_model.hpp"
#include "hfcore/breakdown.hpp"
#include "hfcore/diagnostics.hpp"
#include "hfcore/yield_tables.hpp"

namespace hfpy {

using namespace nb::literals;
namespace inf = hf::infer;

namespace {

inf::DiagnosticOptions options(const hf::Model& m, nb::handle init, nb::handle bounds, nb::handle fixed, int threads,
                               bool batched, bool hessian, nb::handle progress = nb::none()) {
    inf::DiagnosticOptions o;
    o.progress = python_progress(progress);
    o.config = fit_config(m, init, bounds, fixed);
    o.threads = threads;
    o.batched = batched;
    o.uncertainties = hessian ? inf::UncertaintyConvention::hessian : inf::UncertaintyConvention::minuit;
    return o;
}

}  // namespace

void bind_diagnostics(nb::module_& m) {
#define HFPY_DIAG_FIT_ARGS "init_pars"_a.none() = nb::none(), "par_bounds"_a.none() = nb::none(), \
                           "fixed_params"_a.none() = nb::none()
    m.def(
        "pulls",
        [](PyModel& self, nb::handle data, nb::handle init, nb::handle bounds, nb::handle fixed, bool hessian) {
            const auto model = self.current();
            const auto d = read_data(*model, data);
            const auto o = options(*model, init, bounds, fixed, 1, true, hessian);
            auto r = self.run(Kind::InvalidFitInput, [&](const hf::Model& mm) { return inf::pulls(mm, d, o); });
            return from_json(inf::to_json(r, true));
        },
        "model"_a, "data"_a, HFPY_DIAG_FIT_ARGS, "hessian_uncertainties"_a = false);

    m.def(
        "ranking",
        [](PyModel& self, nb::handle data, nb::handle init, nb::handle bounds, nb::handle fixed,
           std::optional<std::string> poi, int threads, bool batched, bool hessian, nb::handle progress) {
            const auto model = self.current();
            const auto d = read_data(*model, data);
            inf::RankingOptions o;
            static_cast<inf::DiagnosticOptions&>(o) =
                options(*model, init, bounds, fixed, threads, batched, hessian, progress);
            o.poi = poi.value_or("");
            auto r = self.run(Kind::InvalidFitInput, [&](const hf::Model& mm) { return inf::ranking(mm, d, o); });
            return from_json(inf::to_json(r));
        },
        "model"_a, "data"_a, HFPY_DIAG_FIT_ARGS, "poi_name"_a.none() = nb::none(), "threads"_a = 0,
        "batched"_a = true, "hessian_uncertainties"_a = false, "progress"_a.none() = nb::none());

    // groups: (name, shell patterns) pairs, or None for one group per modifier type.
    m.def(
        "breakdown",
        [](PyModel& self, nb::handle data,
           std::optional<std::vector<std::pair<std::string, std::vector<std::string>>>> groups, nb::handle init,
           nb::handle bounds, nb::handle fixed, std::optional<std::string> poi, bool hessian) {
            const auto model = self.current();
            const auto d = read_data(*model, data);
            inf::BreakdownOptions o;
            static_cast<inf::DiagnosticOptions&>(o) = options(*model, init, bounds, fixed, 1, true, hessian);
            o.poi = poi.value_or("");
            auto r = self.run(Kind::InvalidFitInput, [&](const hf::Model& mm) {
                if (!groups) return inf::breakdown(mm, d, inf::groups_by_modifier_type(mm), o);
                std::vector<inf::GroupPatterns> patterns;
                for (const auto& [name, p] : *groups) patterns.push_back({name, p});
                return inf::breakdown(mm, d, inf::groups_by_pattern(mm, patterns, "groups"), o);
            });
            return from_json(inf::to_json(r));
        },
        "model"_a, "data"_a, "groups"_a.none() = nb::none(), HFPY_DIAG_FIT_ARGS, "poi_name"_a.none() = nb::none(),
        "hessian_uncertainties"_a = false);

    m.def(
        "yields",
        [](PyModel& self, nb::handle data, bool postfit, nb::handle init, nb::handle bounds, nb::handle fixed,
           bool hessian) {
            const auto model = self.current();
            const auto d = read_data(*model, data);
            const auto o = options(*model, init, bounds, fixed, 1, true, hessian);
            auto r = self.run(Kind::InvalidFitInput, [&](const hf::Model& mm) { return inf::yields(mm, d, postfit, o); });
            return from_json(inf::to_json(r));
        },
        "model"_a, "data"_a, "postfit"_a = false, HFPY_DIAG_FIT_ARGS, "hessian_uncertainties"_a = false);

    // Tables of a yields result (the dict above or a saved `hfcore yields` JSON): hfcore/tabulate.py.
    m.def(
        "yield_tables",
        [](nb::handle result, const std::string& format, int digits, const std::vector<std::string>& blinded) {
            return guarded(Kind::InvalidFitInput, [&] {
                hf::infer::YieldTableOptions o;
                o.format = inf::parse_table_format(format, "table_format");
                o.digits = digits;
                o.blinded_channels = blinded;
                return inf::format_yield_tables(inf::yields_from_json(to_json(result), "yields result"), o);
            });
        },
        "result"_a, "table_format"_a = "text", "digits"_a = 2, "blinded_channels"_a = std::vector<std::string>{});

    m.def(
        "profile_scan",
        [](PyModel& self, nb::handle data, const std::vector<std::pair<std::string, nb::object>>& axes,
           nb::handle init, nb::handle bounds, nb::handle fixed, int threads, bool batched, nb::handle progress) {
            const auto model = self.current();
            const auto d = read_data(*model, data);
            std::vector<inf::ScanAxis> ax;
            for (const auto& [name, values] : axes)
                ax.push_back({name, read_vector(values, {"values", Kind::InvalidFitInput, -1, false})});
            const auto o = options(*model, init, bounds, fixed, threads, batched, false, progress);
            auto r = self.run(Kind::InvalidFitInput, [&](const hf::Model& mm) { return inf::profile_scan(mm, d, ax, o); });
            return from_json(inf::to_json(r));
        },
        "model"_a, "data"_a, "axes"_a, HFPY_DIAG_FIT_ARGS, "threads"_a = 0, "batched"_a = true,
        "progress"_a.none() = nb::none());

    m.def(
        "minos",
        [](PyModel& self, nb::handle data, const std::vector<std::string>& names, nb::handle init, nb::handle bounds,
           nb::handle fixed, int threads, bool batched) {
            const auto model = self.current();
            const auto d = read_data(*model, data);
            const auto o = options(*model, init, bounds, fixed, threads, batched, false);
            auto r = self.run(Kind::InvalidFitInput, [&](const hf::Model& mm) { return inf::minos(mm, d, names, o); });
            return from_json(inf::to_json(r));
        },
        "model"_a, "data"_a, "names"_a, HFPY_DIAG_FIT_ARGS, "threads"_a = 0, "batched"_a = true);

    m.def(
        "goodness_of_fit",
        [](PyModel& self, nb::handle data, nb::handle init, nb::handle bounds, nb::handle fixed) {
            const auto model = self.current();
            const auto d = read_data(*model, data);
            const auto o = options(*model, init, bounds, fixed, 1, true, false);
            auto r = self.run(Kind::InvalidFitInput, [&](const hf::Model& mm) { return inf::goodness_of_fit(mm, d, o); });
            return from_json(inf::to_json(r));
        },
        "model"_a, "data"_a, HFPY_DIAG_FIT_ARGS);
#undef HFPY_DIAG_FIT_ARGS
}

}  // namespace hfpy
