// `hfcore profile`: 1-D and 2-D profile-likelihood scans, with the 68% / 95% crossings of a 1-D scan. The
// held fits run in blocks dealt to threads and, under mpirun, to ranks; journaled, and resumed with --resume.
#include <memory>
#include <sstream>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_options.hpp"
#include "run_options.hpp"

namespace cmd_profile {
namespace {

struct Options {
    hf::cli::ModelOptions model;
    hf::cli::HeldFitOptions fits;
    hf::cli::RunOptions run;
    std::vector<std::string> pars, ranges;
};

// "LO,HI,N" -> the axis; InputError naming the option otherwise.
hf::infer::ScanAxis parse_range(const std::string& par, const std::string& text) {
    std::istringstream is(text);
    double lo = 0, hi = 0;
    long n = 0;
    char c1 = 0, c2 = 0;
    if (!(is >> lo >> c1 >> hi >> c2 >> n) || c1 != ',' || c2 != ',' || !is.eof())
        throw hf::InputError("profile", "--range " + text, "expected LO,HI,N (e.g. 0,2,31)");
    if (n < 2 || n > 100000) throw hf::InputError("profile", "--range " + text, "N must be between 2 and 100000");
    if (!(hi > lo)) throw hf::InputError("profile", "--range " + text, "HI must be above LO");
    return hf::infer::ScanAxis::linear(par, lo, hi, static_cast<int>(n));
}

const hf::cli::Register reg(
    "profile", "Profile-likelihood scan of one or two parameters (2 Delta NLL on a grid).", [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        o->model.add_data_options(sub);
        o->fits.add_to(sub, false);
        o->run.add_to(sub);
        // One value per occurrence, so a workspace after them stays the positional argument.
        sub.add_option("--par", o->pars, "Parameter to scan (par_names entry, e.g. mu or gamma[2]); once or twice")
            ->required()
            ->allow_extra_args(false);
        sub.add_option("--range", o->ranges, "LO,HI,N for the --par of the same position")
            ->required()
            ->allow_extra_args(false);
        return [o]() {
            if (o->pars.size() != o->ranges.size())
                throw hf::InputError("profile", "--range", "give one --range per --par (" + std::to_string(o->pars.size()) +
                                                                " --par, " + std::to_string(o->ranges.size()) + " --range)");
            std::vector<hf::infer::ScanAxis> axes;
            for (std::size_t i = 0; i < o->pars.size(); ++i) axes.push_back(parse_range(o->pars[i], o->ranges[i]));
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            auto options = o->fits.diagnostic_options();
            hf::json::Object what;
            hf::json::Array grid;
            for (std::size_t i = 0; i < o->pars.size(); ++i) grid.emplace_back(o->pars[i] + "=" + o->ranges[i]);
            what.set("grid", hf::json::Value(std::move(grid)));
            what.set("no_batch", hf::json::Value(o->fits.no_batch));
            auto ctx = hf::cli::start_run("profile", hf::cli::inputs_of(lm, o->model, hf::json::Value(std::move(what))),
                                          o->run, o->model.output_file);
            options.held_runner = hf::cli::held_fit_runner(ctx, o->model, lm.spec);
            options.threads = ctx.threads;
            hf::cli::ProgressBar bar("profile", 0, ctx.root());
            options.progress = hf::cli::progress_as(bar, "profile");
            const auto r = hf::infer::profile_scan(*lm.model, lm.data, axes, options);
            bar.finish();
            if (!ctx.root()) return 0;
            if (!r.converged) hf::cli::warn("some fits of the scan did not converge");
            hf::cli::finish_run(ctx, hf::cli::presented(hf::infer::to_json(r), o->model, lm), o->model.output_file);
            return r.converged ? 0 : 1;
        };
    });

}  // namespace
}  // namespace cmd_profile
