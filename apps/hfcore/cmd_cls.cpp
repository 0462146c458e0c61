// `hfcore cls`: pyhf cls - CLs at one POI value, observed and the five expected values.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "option_checks.hpp"
#include "progress_bar.hpp"

namespace {

struct Options {
    hf::cli::ModelOptions model;
    hf::cli::InferOptions infer;
};

const hf::cli::Register reg(
    "cls", "Compute CLsb, CLb and CLs, and the expected CLs band, at one POI value (pyhf cls).", [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        o->infer.add_to(sub);
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            hf::cli::check_poi_value(*lm.model, o->infer.test_poi, "--test-poi");
            auto opts = o->infer.hypotest_options();
            hf::cli::ProgressBar bar("toys", 2 * opts.ntoys, opts.calctype == hf::infer::CalcType::toybased);
            if (opts.calctype == hf::infer::CalcType::toybased) opts.progress = bar.callback();
            auto r = hf::infer::hypotest(o->infer.test_poi, *lm.model, lm.data, opts);
            bar.finish();
            hf::cli::report(r);
            hf::json::Object out;
            out.set("CLs_obs", r.obs);
            out.set("CLs_exp", hf::cli::to_json(r.exp));
            hf::cli::emit(out, o->model);
            return 0;
        };
    });

}  // namespace
