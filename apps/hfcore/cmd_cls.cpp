// `hfcore cls`: pyhf cls - CLs at one POI value, observed and the five expected values. Toy-based: the toy
// blocks are dealt to threads and MPI ranks, journaled, and resumed with --resume.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "option_checks.hpp"
#include "progress_bar.hpp"
#include "run_options.hpp"

namespace cmd_cls {
namespace {

struct Options {
    hf::cli::ModelOptions model;
    hf::cli::InferOptions infer;
    hf::cli::RunOptions run;
};


const hf::cli::Register reg(
    "cls", "Compute CLsb, CLb and CLs, and the expected CLs band, at one POI value (pyhf cls).", [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        o->model.add_data_options(sub);
        o->infer.add_to(sub);
        o->run.add_to(sub);
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            hf::cli::check_poi_value(*lm.model, o->infer.test_poi, "--test-poi");
            auto opts = o->infer.hypotest_options();
            hf::cli::ProgressBar bar("toys", 2 * opts.ntoys, opts.calctype == hf::infer::CalcType::toybased);
            hf::cli::RunContext ctx;
            if (opts.calctype == hf::infer::CalcType::toybased) {
                ctx = hf::cli::start_run("cls", hf::cli::inputs_of(lm, o->model, o->infer), o->run, o->model.output_file);
                opts.toy_runner = hf::cli::toy_runner(ctx, o->model, lm.spec, bar.callback());
            } else {
                ctx.comm = hf::run::Communicator::world();
            }
            auto r = hf::infer::hypotest(o->infer.test_poi, *lm.model, lm.data, opts);
            bar.finish();
            if (!ctx.root()) return 0;
            hf::cli::report(r);
            hf::json::Object out;
            out.set("CLs_obs", r.obs);
            out.set("CLs_exp", hf::cli::to_json(r.exp));
            hf::cli::finish_run(ctx, hf::cli::presented(hf::json::Value(std::move(out)), o->model, lm), o->model.output_file);
            return 0;
        };
    });

}  // namespace
}  // namespace cmd_cls
