// `hfcore significance`: discovery p-value p0 and significance Z (test statistic q0), observed and expected
// under the signal hypothesis mu = 1 (pyhf hypotest(0, test_stat="q0", return_expected_set=True)).
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "progress_bar.hpp"

namespace cmd_significance {
namespace {

struct Options {
    hf::cli::ModelOptions model;
    hf::cli::InferOptions infer;
};

const hf::cli::Register reg(
    "significance", "Discovery p-value p0 and significance Z with the q0 test statistic.", [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        o->model.add_data_options(sub);
        o->infer.test_stat = "q0";
        o->infer.add_to(sub, false, false);
        return [o]() {
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            auto opts = o->infer.hypotest_options();
            opts.test_stat = hf::infer::TestStat::q0;
            hf::cli::ProgressBar bar("toys", 2 * opts.ntoys, opts.calctype == hf::infer::CalcType::toybased);
            if (opts.calctype == hf::infer::CalcType::toybased) opts.progress = bar.callback();
            auto r = hf::infer::hypotest(0.0, *lm.model, lm.data, opts);
            bar.finish();
            hf::cli::report(r);
            std::array<double, 5> z{};
            for (int i = 0; i < 5; ++i) z[i] = hf::infer::normal_isf(r.exp[i]);
            hf::json::Object out;
            out.set("p0_obs", r.obs);
            out.set("p0_exp", hf::cli::to_json(r.exp));
            out.set("significance_obs", hf::infer::normal_isf(r.obs));
            out.set("significance_exp", hf::cli::to_json(z));
            hf::cli::emit(hf::cli::presented(out, o->model, lm), o->model);
            return 0;
        };
    });

}  // namespace
}  // namespace cmd_significance
