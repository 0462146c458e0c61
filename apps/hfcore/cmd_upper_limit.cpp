// `hfcore upper-limit`: observed and expected upper limits on the POI at CLs = level, by root finding
// (TOMS 748, pyhf toms748_scan) or, with --scan, by interpolation on a linear grid (pyhf linear_grid_scan).
// With --scan the output also holds the CLs curve it scanned (what `hfcore-plot brazil` draws).
#include <memory>
#include <sstream>

#include "command.hpp"
#include "common_options.hpp"
#include "option_checks.hpp"
#include "progress_bar.hpp"
#include "run_options.hpp"

namespace cmd_upper_limit {
namespace {

struct Options {
    hf::cli::ModelOptions model;
    hf::cli::InferOptions infer;
    std::string scan;
    double level = 0.05;
    double rtol = 1e-4;
    double atol = 2e-12;
    double upper = std::numeric_limits<double>::quiet_NaN();
    hf::cli::RunOptions run;
};

std::vector<double> parse_scan(const std::string& text) {
    std::vector<double> parts;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        try {
            parts.push_back(std::stod(item));
        } catch (const std::exception&) {
            throw hf::InputError("--scan", text, "expected LO,HI,N");
        }
    }
    // N as in `hfcore profile`: each point is a hypotest, so more than 10^5 would run for days.
    if (parts.size() != 3 || !(parts[2] >= 2 && parts[2] <= 100000) || parts[2] != std::floor(parts[2]) ||
        !(parts[1] > parts[0]) || !std::isfinite(parts[0]) || !std::isfinite(parts[1]))
        throw hf::InputError("--scan", text, "expected LO,HI,N with finite LO < HI and 2 <= N <= 100000");
    const int n = static_cast<int>(parts[2]);
    std::vector<double> grid(n);
    for (int i = 0; i < n; ++i) grid[i] = parts[0] + (parts[1] - parts[0]) * i / (n - 1);  // numpy.linspace
    return grid;
}

// {"values": [mu...], "CLs_obs": [...], "CLs_exp": [[-2, -1, 0, +1, +2 sigma] per value], "converged": [...]}
// in the order scanned (pyhf upper_limit(..., return_results=True) gives the same as (scan, results)).
hf::json::Value scanned_curve(const hf::infer::UpperLimitResult& r) {
    hf::json::Array obs, exp, converged;
    for (const auto& h : r.results) {
        obs.push_back(hf::json::Value(h.obs));
        exp.push_back(hf::cli::to_json(h.exp));
        converged.push_back(hf::json::Value(h.converged));
    }
    hf::json::Object curve;
    curve.set("values", hf::cli::to_json(r.scanned));
    curve.set("CLs_obs", hf::json::Value(std::move(obs)));
    curve.set("CLs_exp", hf::json::Value(std::move(exp)));
    curve.set("converged", hf::json::Value(std::move(converged)));
    return hf::json::Value(std::move(curve));
}

const hf::cli::Register reg(
    "upper-limit", "Observed and expected upper limits on the POI at CLs = level.", [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        o->model.add_data_options(sub);
        o->infer.add_to(sub, false);
        sub.add_option("--scan", o->scan, "Linear grid LO,HI,N instead of root finding");
        sub.add_option("--level", o->level, "CLs level")->capture_default_str()->check(hf::cli::kOpenUnitInterval);
        sub.add_option("--rtol", o->rtol, "Relative tolerance of the root")
            ->capture_default_str()
            ->check(hf::cli::kNonNegative);
        sub.add_option("--atol", o->atol, "Absolute tolerance of the root")
            ->capture_default_str()
            ->check(hf::cli::kNonNegative);
        sub.add_option("--upper", o->upper, "Upper end of the initial bracket (default: the POI's upper bound)")
            ->check(hf::cli::kFiniteNumber);
        o->run.add_to(sub);
        return [o]() {
            auto backend = o->model.make_backend();
            if (o->rtol == 0 && o->atol == 0)
                throw hf::InputError("--rtol", "", "--rtol and --atol are both 0: the root could never be reached");
            auto lm = hf::cli::load_model(o->model, backend);
            if (!std::isnan(o->upper)) hf::cli::check_poi_value(*lm.model, o->upper, "--upper");
            auto opts = o->infer.hypotest_options();
            const bool toys = opts.calctype == hf::infer::CalcType::toybased;
            // Toy-based: every hypotest's toy blocks go to threads and ranks and the journal (all ranks follow
            // the same search in lockstep); a resumed search replays the journaled blocks.
            hf::cli::RunContext ctx;
            if (toys) {
                hf::json::Value inputs = hf::cli::inputs_of(lm, o->model, o->infer);
                inputs.as_object().set("scan", hf::json::Value(o->scan));
                inputs.as_object().set("level", hf::json::Value(o->level));
                inputs.as_object().set("rtol", hf::json::Value(o->rtol));
                inputs.as_object().set("atol", hf::json::Value(o->atol));
                inputs.as_object().set("upper", hf::json::Value(std::isnan(o->upper) ? std::string("default")
                                                                                    : std::to_string(o->upper)));
                ctx = hf::cli::start_run("upper-limit", inputs, o->run, o->model.output_file);
            } else {
                ctx.comm = hf::run::Communicator::world();
            }
            hf::infer::UpperLimitResult r;
            if (!o->scan.empty()) {
                auto grid = parse_scan(o->scan);
                hf::cli::ProgressBar bar("scan", static_cast<std::int64_t>(grid.size()), ctx.root());
                opts.progress = bar.callback();
                if (toys) opts.toy_runner = hf::cli::toy_runner(ctx, o->model, lm.spec);
                r = hf::infer::upper_limit_scan(*lm.model, lm.data, grid, o->level, opts);
            } else {
                // Root finding with toys is long: a bar of the hypotests and their toys.
                hf::cli::ProgressBar bar("upper limit", 0, toys && ctx.root());
                if (toys) {
                    opts.progress = bar.callback();
                    opts.toy_runner = hf::cli::toy_runner(ctx, o->model, lm.spec, bar.callback());
                }
                hf::infer::Toms748Options t;
                t.level = o->level;
                t.rtol = o->rtol;
                t.atol = o->atol;
                t.high = o->upper;
                r = hf::infer::upper_limit(*lm.model, lm.data, t, opts);
            }
            if (!ctx.root()) return 0;
            if (!r.converged) hf::cli::warn("some fits did not converge; the limits may be inaccurate");
            hf::json::Object out;
            out.set("obs", r.obs);
            out.set("exp", hf::cli::to_json(r.exp));
            if (!o->scan.empty()) {
                out.set("poi", hf::json::Value(lm.model->poi_name()));
                out.set("level", o->level);
                out.set("scan", scanned_curve(r));
            }
            hf::cli::finish_run(ctx, hf::cli::presented(hf::json::Value(std::move(out)), o->model, lm), o->model.output_file);
            return 0;
        };
    });

}  // namespace
}  // namespace cmd_upper_limit
