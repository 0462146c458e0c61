// `hfcore toys`: a toy study of the fit's bias and coverage (hfcore/toy_study.hpp). The summary as JSON, every
// toy's fit as columns of a numpy .npz (--per-toy). The toy blocks are dealt to threads and MPI ranks,
// journaled, and resumed with --resume.
#include <memory>

#include "command.hpp"
#include "common_options.hpp"
#include "hfcore/toy_study.hpp"
#include "npz_file.hpp"
#include "option_checks.hpp"
#include "progress_bar.hpp"
#include "run_options.hpp"

namespace cmd_toys {
namespace {

struct Options {
    hf::cli::ModelOptions model;
    hf::cli::RunOptions run;
    std::vector<double> mu_true{1.0};
    std::int64_t ntoys = 1000;
    std::uint64_t seed = 0;
    std::int64_t toy_batch = 1000;
    std::string nuisance = "nominal";
    std::string aux = "sampled";
    std::string per_toy;
};

hf::json::Value inputs_json(const hf::infer::ToyStudyOptions& o) {
    hf::json::Object j;
    j.set("mu_true", hf::cli::to_json(o.poi_values));
    j.set("ntoys", hf::json::Value(o.ntoys));
    j.set("seed", hf::json::Value(std::to_string(o.seed)));
    j.set("toy_batch", hf::json::Value(o.toy_batch));
    j.set("nuisance", hf::json::Value(hf::infer::toy_nuisance_name(o.nuisance)));
    j.set("aux", hf::json::Value(hf::infer::toy_aux_name(o.aux)));
    return hf::json::Value(std::move(j));
}

// The per-toy columns (hf::infer::toy_columns) as numpy arrays, one row per toy.
std::string per_toy_npz(const hf::infer::ToyStudyResult& r) {
    const auto c = hf::infer::toy_columns(r);
    hf::cli::NpzWriter w;
    w.add("parameter_names", r.par_names);
    w.add("poi_true", {c.rows}, c.poi_true);
    w.add("toy", {c.rows}, c.toy);
    w.add("truth", {c.rows, c.cols}, c.truth);
    w.add("bestfit", {c.rows, c.cols}, c.bestfit);
    w.add("uncertainties", {c.rows, c.cols}, c.uncertainties);
    w.add("pull", {c.rows, c.cols}, c.pull);
    w.add("twice_nll", {c.rows}, c.twice_nll);
    w.add_bool("converged", {c.rows}, c.converged);
    w.add_bool("hessian_ok", {c.rows}, c.hessian_ok);
    return w.bytes();
}

const hf::cli::Register reg(
    "toys",
    "Toy study of the fit: toys drawn with the POI injected at --mu-true values, each fitted with the POI free; "
    "bias and pulls of every parameter, coverage of the POI's 68% and 95% intervals, linearity of the fitted POI.",
    [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        o->model.add_to(sub);
        o->model.add_data_options(sub);
        sub.add_option("--mu-true", o->mu_true, "Injected POI values, comma-separated (each within the POI's bounds)")
            ->delimiter(',')
            ->capture_default_str()
            ->check(hf::cli::kFiniteNumber);
        sub.add_option("--ntoys", o->ntoys, "Toys per injected value")
            ->capture_default_str()
            ->check(CLI::Range(std::int64_t{2}, std::int64_t{100000000}));
        sub.add_option("--seed", o->seed, "Seed of the toys' random numbers (Philox)")
            ->capture_default_str()
            ->check(hf::cli::kNonNegative);
        sub.add_option("--toy-batch", o->toy_batch, "Toys fitted together in one batch (one unit of work)")
            ->capture_default_str()
            ->check(CLI::Range(std::int64_t{1}, std::int64_t{10000000}));
        sub.add_option("--nuisance", o->nuisance,
                       "Nuisance parameters of the truth: nominal (suggested init), or fitted to the data with the "
                       "POI held at the injected value")
            ->capture_default_str()
            ->check(CLI::IsMember({"nominal", "fitted"}));
        sub.add_option("--aux", o->aux,
                       "Auxiliary data of the toys: sampled around the truth (pyhf's make_pdf().sample), or fixed "
                       "at the observed auxiliary data")
            ->capture_default_str()
            ->check(CLI::IsMember({"sampled", "fixed"}));
        sub.add_option("--per-toy", o->per_toy,
                       "Write every toy's fit (best fit, uncertainties, pulls, twice_nll, status) as numpy .npz");
        o->run.add_to(sub);
        return [o]() {
            // Nothing is computed or written before every option has been checked.
            if (!o->per_toy.empty()) hf::run::check_writable(o->per_toy);
            auto backend = o->model.make_backend();
            auto lm = hf::cli::load_model(o->model, backend);
            for (double mu : o->mu_true) hf::cli::check_poi_value(*lm.model, mu, "--mu-true");
            hf::infer::ToyStudyOptions opts;
            opts.poi_values = o->mu_true;
            opts.ntoys = o->ntoys;
            opts.seed = o->seed;
            opts.toy_batch = o->toy_batch;
            opts.nuisance = hf::infer::parse_toy_nuisance(o->nuisance);
            opts.aux = hf::infer::parse_toy_aux(o->aux);
            const std::int64_t total = o->ntoys * static_cast<std::int64_t>(o->mu_true.size());
            hf::cli::ProgressBar bar("toys", total);
            auto ctx = hf::cli::start_run("toys", hf::cli::inputs_of(lm, o->model, inputs_json(opts)), o->run,
                                          o->model.output_file);
            opts.runner = hf::cli::toy_study_runner(ctx, o->model, lm.spec, bar.callback());
            const auto r = hf::infer::toy_study(*lm.model, lm.data, opts);
            bar.finish();
            if (!ctx.root()) return 0;
            for (const auto& w : r.warnings) hf::cli::warn(w);
            std::int64_t failed = 0;
            for (const auto& p : r.points) failed += p.ntoys - p.n_converged;
            if (failed > 0) hf::cli::warn(std::to_string(failed) + " toy fits did not converge (left out of the summary)");
            if (!o->per_toy.empty()) hf::run::write_file_atomic(o->per_toy, per_toy_npz(r));
            hf::cli::finish_run(ctx, hf::cli::presented(hf::infer::to_json(r, opts), o->model, lm),
                                o->model.output_file);
            return 0;
        };
    });

}  // namespace
}  // namespace cmd_toys
