// `hfcore scan`: one background-only workspace and many signal patches (a pyhf PatchSet, or plain RFC 6902
// patch files named by their file stem): CLs at the tested POI for every patch, and optionally the upper
// limits. Each patch is a unit of the executor: dealt to threads (each with its own backend instance) and,
// under mpirun, to ranks; journaled beside the output as it finishes, so an interrupted scan resumes
// (--resume) and ends with the same output as an uninterrupted one.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <iostream>
#include <thread>

#include "command.hpp"
#include "hfcore/infer_advanced.hpp"
#include "common_options.hpp"
#include "option_checks.hpp"
#include "progress_bar.hpp"
#include "run_options.hpp"

namespace cmd_scan {
namespace {

struct Options {
    hf::cli::ModelOptions model;
    hf::cli::InferOptions infer;
    std::vector<std::string> patch_files;
    bool upper_limit = false;
    double rtol = 1e-4;
    double level = 0.05;
    hf::cli::RunOptions run;
};

struct Job {
    std::string name;
    hf::json::Value values;  // PatchSet values, null for plain patches
    const hf::PatchSet* patchset = nullptr;
    const hf::JsonPatch* patch = nullptr;
    std::string error;  // a patch file that could not be read: this point fails, the others run
};

// The point name of a plain patch file: its stem, less a leading "patch." (patch.NAME.json -> NAME).
std::string point_name(const std::string& file) {
    std::string stem = std::filesystem::path(file).stem().string();
    if (stem.rfind("patch.", 0) == 0) stem = stem.substr(6);
    return stem;
}

hf::json::Value run_job(const Job& job, const hf::Workspace& bkg, const Options& o, const hf::BackendPtr& backend) {
    hf::json::Object r;
    r.set("name", hf::json::Value(job.name));
    if (!job.values.is_null()) r.set("values", job.values);
    if (!job.error.empty()) {
        r.set("converged", false);
        r.set("error", hf::json::Value(job.error));
        return r;
    }
    try {
        hf::Workspace ws = job.patchset ? job.patchset->apply(bkg, job.name) : bkg.patched(*job.patch);
        auto lm = hf::cli::build_model(ws, o.model, backend);
        auto opts = o.infer.hypotest_options();
        // The hypotest's fits start the upper-limit search (same data and configuration).
        if (opts.calctype == hf::infer::CalcType::asymptotics) opts.cache = hf::infer::make_asymptotic_cache();
        auto h = hf::infer::hypotest(o.infer.test_poi, *lm.model, lm.data, opts);
        bool converged = h.converged;
        r.set("CLs_obs", h.obs);
        r.set("CLs_exp", hf::cli::to_json(h.exp));
        r.set("twice_nll", h.twice_nll_free);
        int basin_candidates = h.minimizer.basin_candidates;
        bool other_basin = h.minimizer.other_basin;
        if (o.upper_limit) {
            hf::infer::Toms748Options t;
            t.rtol = o.rtol;
            t.level = o.level;
            try {
                auto ul = hf::infer::upper_limit(*lm.model, lm.data, t, opts);
                converged = converged && ul.converged;
                // The limit search shares the hypotest's fits (opts.cache): its totals include them.
                basin_candidates = ul.minimizer.basin_candidates;
                other_basin = other_basin || ul.minimizer.other_basin;
                hf::json::Object u;
                u.set("obs", ul.obs);
                u.set("exp", hf::cli::to_json(ul.exp));
                r.set("upper_limit", hf::json::Value(std::move(u)));
            } catch (const hf::Error& e) {
                r.set("upper_limit_error", hf::json::Value(e.what()));
            }
        }
        r.set("converged", converged);
        r.set("basin_candidates", hf::json::Value(static_cast<std::int64_t>(basin_candidates)));
        r.set("other_basin", other_basin);
    } catch (const std::exception& e) {
        r.set("converged", false);
        r.set("error", hf::json::Value(e.what()));
    }
    return r;
}

const hf::cli::Register reg(
    "scan", "CLs (and upper limits) for every patch of a PatchSet or list of patch files, in parallel.",
    [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        sub.add_option("background", o->model.workspace, "Background-only workspace")->required();
        sub.add_option("patches", o->patch_files, "A pyhf PatchSet file, or RFC 6902 patch files")->required();
        o->model.add_to(sub, false);
        o->model.add_data_options(sub);
        o->infer.add_to(sub);
        sub.add_flag("--upper-limit", o->upper_limit, "Also compute observed and expected upper limits");
        sub.add_option("--rtol", o->rtol, "Relative tolerance of the upper limits")
            ->capture_default_str()
            ->check(hf::cli::kNonNegative);
        sub.add_option("--level", o->level, "CLs level of the upper limits")
            ->capture_default_str()
            ->check(hf::cli::kOpenUnitInterval);
        o->run.add_to(sub);
        return [o]() {
            const auto t0 = std::chrono::steady_clock::now();
            const hf::Workspace bkg = hf::Workspace::load_file(o->model.workspace);
            hf::cli::check_data_options(o->model.data);
            hf::cli::blinded_channels(bkg.channel_names(), o->model.data);  // a pattern matching none: exit 2 now
            std::vector<std::unique_ptr<hf::PatchSet>> patchsets;
            std::vector<std::unique_ptr<hf::JsonPatch>> patches;
            std::vector<Job> jobs;
            std::vector<std::string> labels;  // what each PatchSet value means (metadata.labels), for plots
            hf::json::Array patch_digests;  // what decides the results (below)
            for (const auto& f : o->patch_files) {
                hf::json::Value doc;
                try {
                    doc = hf::json::parse_file(f);
                } catch (const hf::Error& e) {
                    // A patch file that cannot be read or parsed is that point's error; the others still run.
                    jobs.push_back({point_name(f), hf::json::Value(), nullptr, nullptr, e.what()});
                    patch_digests.push_back(hf::json::Value(std::string("unreadable: ") + e.what()));
                    continue;
                }
                patch_digests.push_back(hf::json::Value(hf::digest(doc)));
                if (doc.is_object() && doc.find("patches")) {
                    patchsets.push_back(std::make_unique<hf::PatchSet>(std::move(doc), f));
                    patchsets.back()->verify(bkg);
                    if (labels.empty()) labels = patchsets.back()->labels();
                    for (const auto& p : patchsets.back()->patches()) {
                        hf::json::Array vals(p.values.begin(), p.values.end());
                        jobs.push_back({p.name, hf::json::Value(std::move(vals)), patchsets.back().get(), nullptr, {}});
                    }
                } else {
                    try {
                        patches.push_back(std::make_unique<hf::JsonPatch>(std::move(doc), f));
                    } catch (const hf::Error& e) {  // not an RFC 6902 patch: this point's error
                        jobs.push_back({point_name(f), hf::json::Value(), nullptr, nullptr, e.what()});
                        continue;
                    }
                    jobs.push_back({point_name(f), hf::json::Value(), nullptr, patches.back().get(), {}});
                }
            }
            // What decides the results: the journal of an interrupted run is resumed only with the same.
            hf::json::Object inputs;
            inputs.set("workspace", hf::json::Value(bkg.digest()));
            inputs.set("patch_files", hf::json::Value(std::move(patch_digests)));
            inputs.set("model", hf::cli::inputs_of(o->model));
            inputs.set("infer", hf::cli::inputs_of(o->infer));
            inputs.set("upper_limit", hf::json::Value(o->upper_limit));
            inputs.set("rtol", hf::json::Value(o->rtol));
            inputs.set("level", hf::json::Value(o->level));
            auto ctx = hf::cli::start_run("scan", hf::json::Value(std::move(inputs)), o->run, o->model.output_file);

            std::vector<std::string> keys;
            for (std::size_t j = 0; j < jobs.size(); ++j) keys.push_back(std::to_string(j) + ":" + jobs[j].name);
            hf::cli::ProgressBar bar("scan", static_cast<std::int64_t>(jobs.size()), ctx.root());
            std::string backend_description;
            std::mutex backend_mutex;
            auto factory = [&](int) -> hf::run::UnitFn {
                auto backend = o->model.make_backend();
                {
                    std::lock_guard<std::mutex> lock(backend_mutex);
                    if (backend_description.empty()) backend_description = backend->description();
                }
                return [&, backend](std::size_t j) { return run_job(jobs[j], bkg, *o, backend); };
            };
            auto run = hf::run::run_units(
                keys, factory, ctx.executor([&](std::int64_t done, std::int64_t) { bar.update(done); }));
            bar.finish();
            if (!ctx.root()) return run.interrupted ? hf::run::interrupted_exit_code() : 0;
            std::size_t n_done = 0;
            for (const auto& r : run.results) n_done += r.is_null() ? 0 : 1;
            if (run.interrupted) return hf::cli::interrupted_run(ctx, n_done, jobs.size());
            if (backend_description.empty()) backend_description = o->model.make_backend()->description();
            std::vector<hf::json::Value> results = std::move(run.results);

            std::int64_t n_conv = 0, n_err = 0, n_excl_obs = 0, n_excl_exp = 0;
            hf::json::Array arr;
            for (std::size_t j = 0; j < results.size(); ++j) {
                auto& r = results[j];
                if (!r.as_object().find("name")) r.as_object().set("name", hf::json::Value(jobs[j].name));
                const auto& obj = r.as_object();
                if (obj.find("error")) {
                    ++n_err;
                    hf::cli::warn(obj.at("name").as_string() + ": " + obj.at("error").as_string());
                } else {
                    if (obj.at("converged").as_bool()) ++n_conv;
                    if (obj.at("CLs_obs").as_double() < o->level) ++n_excl_obs;
                    if (obj.at("CLs_exp").as_array()[2].as_double() < o->level) ++n_excl_exp;
                }
                arr.push_back(std::move(r));
            }
            hf::json::Object summary;
            summary.set("n_patches", hf::json::Value(static_cast<std::int64_t>(jobs.size())));
            summary.set("n_converged", hf::json::Value(n_conv));
            summary.set("n_errors", hf::json::Value(n_err));
            summary.set("n_excluded_obs", hf::json::Value(n_excl_obs));
            summary.set("n_excluded_exp", hf::json::Value(n_excl_exp));
            summary.set("test_poi", o->infer.test_poi);
            summary.set("backend", hf::json::Value(backend_description));
            // The layout and the time go to a terminal's stderr (like the bar): the output is the same for any
            // ranks x threads, resumed or not.
            if (::isatty(2)) std::cerr << "hfcore: scan: " << jobs.size() << " patches (" << run.resumed << " from the journal) in "
                      << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s on "
                      << ctx.comm.size() << " rank(s) x " << run.threads << " thread(s)\n";
            hf::json::Object out;
            out.set("results", hf::json::Value(std::move(arr)));
            if (!labels.empty()) out.set("labels", hf::cli::to_json(labels));
            out.set("summary", hf::json::Value(std::move(summary)));
            hf::json::Value result(std::move(out));
            // Blinded: the observed CLs and limits (the patches' models share the background's channels).
            if (!o->model.data.blind.empty())
                hf::cli::blind_json(result, "", hf::cli::blinded_channels(bkg.channel_names(), o->model.data));
            hf::cli::describe_data(result, std::nullopt, o->model.data);
            hf::cli::finish_run(ctx, result, o->model.output_file);
            return n_err == 0 ? 0 : 1;
        };
    });

}  // namespace
}  // namespace cmd_scan
