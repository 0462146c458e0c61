// `hfcore ranking`: impacts of every nuisance parameter on the POI (cabinetry fit.ranking), largest first. The
// held fits run in blocks dealt to threads and, under mpirun, to ranks; journaled, and resumed with --resume.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "diagnostic_options.hpp"
#include "run_options.hpp"

namespace cmd_ranking {
namespace {

struct Options {
    hf::cli::ModelOptions model;
    hf::cli::HeldFitOptions fits;
    hf::cli::RunOptions run;
    std::string poi;
    bool hessian = false;
};

const hf::cli::Register reg(
    "ranking", "Pre- and post-fit impacts of the nuisance parameters on the POI, sorted by post-fit impact.",
    [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        o->model.add_data_options(sub);
        o->fits.add_to(sub, false);
        o->run.add_to(sub);
        hf::cli::add_convention_flag(sub, o->hessian);
        sub.add_option("--poi", o->poi, "Parameter whose shifts are measured (default: the measurement's POI)");
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            hf::infer::RankingOptions ro;
            static_cast<hf::infer::DiagnosticOptions&>(ro) = o->fits.diagnostic_options();
            ro.poi = o->poi;
            ro.uncertainties = hf::cli::convention(o->hessian);
            hf::json::Object what;
            what.set("poi", hf::json::Value(o->poi));
            what.set("no_batch", hf::json::Value(o->fits.no_batch));
            what.set("hessian", hf::json::Value(o->hessian));
            auto ctx = hf::cli::start_run("ranking", hf::cli::inputs_of(lm, o->model, hf::json::Value(std::move(what))),
                                          o->run, o->model.output_file);
            ro.held_runner = hf::cli::held_fit_runner(ctx, o->model, lm.spec);
            ro.threads = ctx.threads;
            hf::cli::ProgressBar bar("ranking", 0, ctx.root());
            ro.progress = hf::cli::progress_as(bar, "ranking");
            const auto r = hf::infer::ranking(*lm.model, lm.data, ro);
            bar.finish();
            if (!ctx.root()) return 0;
            if (!r.fit.converged) hf::cli::warn("the free fit did not converge: " + r.fit.reason);
            for (const auto& e : r.ranking)
                if (!e.converged) hf::cli::warn(e.name + ": " + e.reason);
            hf::cli::finish_run(ctx, hf::cli::presented(hf::infer::to_json(r), o->model, lm), o->model.output_file);
            return r.converged ? 0 : 1;
        };
    });

}  // namespace
}  // namespace cmd_ranking
