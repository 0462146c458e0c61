#include "run_options.hpp"

#include <filesystem>
#include <iostream>

#include "cmd_workspace_io.hpp"
#include "hfcore/workspace.hpp"

namespace hf::cli {

void RunOptions::add_to(CLI::App& sub, bool journaled) {
    sub.add_option("--threads", threads,
                   "Worker threads (default: HFCORE_NUM_THREADS, else the cores this process may use; under "
                   "MPI per rank)")
        ->check(CLI::Range(0, 4096));
    if (!journaled) return;
    sub.add_flag("--resume", resume,
                 "Continue an interrupted run from its journal (<output-file>.journal.jsonl), skipping the "
                 "units it holds");
    sub.add_option("--journal", journal,
                   "Journal of finished units (JSON Lines; default: <output-file>.journal.jsonl, none on stdout)");
}

run::ExecutorOptions RunContext::executor(std::function<void(std::int64_t, std::int64_t)> progress) const {
    run::ExecutorOptions ex;
    ex.threads = threads;
    ex.comm = comm;
    ex.journal = journal.get();
    if (root()) ex.progress = std::move(progress);
    return ex;
}

json::Value inputs_of(const ModelOptions& model) {
    json::Object o;
    o.set("measurement", json::Value(model.measurement));
    json::Array patches;
    for (const auto& p : model.patches) patches.push_back(json::Value(digest(json::parse_file(p))));
    o.set("patches", json::Value(std::move(patches)));
    o.set("backend", json::Value(model.backend));
    o.set("precision", json::Value(model.precision.size() == 2 ? model.precision + "b" : model.precision));
    o.set("interpcodes", json::Value(model.interpcodes));
    // Asimov data change every result; observed data keep the digest that journals written before had.
    if (model.data.kind == "asimov") {
        json::Object d;
        d.set("kind", json::Value(model.data.kind));
        d.set("asimov_mu", model.data.asimov_mu ? json::Value(*model.data.asimov_mu) : json::Value());
        d.set("asimov_np", json::Value(model.data.asimov_np));
        o.set("data", json::Value(std::move(d)));
    }
    return json::Value(std::move(o));
}

json::Value inputs_of(const InferOptions& infer) {
    json::Object o;
    o.set("test_poi", json::Value(infer.test_poi));
    o.set("test_stat", json::Value(infer.test_stat));
    o.set("calctype", json::Value(infer.calctype));
    o.set("ntoys", json::Value(infer.ntoys));
    o.set("seed", json::Value(std::to_string(infer.seed)));
    o.set("toy_batch", json::Value(infer.toy_batch));
    return json::Value(std::move(o));
}

json::Value inputs_of(const LoadedModel& lm, const ModelOptions& model, const InferOptions& infer) {
    json::Object inputs;
    inputs.set("workspace", json::Value(lm.workspace->digest()));
    inputs.set("model", inputs_of(model));
    inputs.set("infer", inputs_of(infer));
    return json::Value(std::move(inputs));
}

RunContext start_run(const std::string& command, const json::Value& inputs, const RunOptions& options,
                     const std::string& output_file) {
    RunContext ctx;
    ctx.command = command;
    ctx.comm = run::Communicator::world();
    ctx.threads = run::resolve_threads(options.threads);
    run::install_interrupt_handlers();
    std::string path = options.journal;
    if (path.empty() && !output_file.empty()) path = output_file + ".journal.jsonl";
    if (path.empty() && options.resume)
        throw InputError("--resume", "", "needs a journal: give --output-file (or --journal)");
    if (!path.empty()) ctx.journal = run::open_journal_on_root(ctx.comm, path, command, digest(inputs), options.resume);
    if (ctx.journal && ctx.journal->resumed() > 0)
        std::cerr << "hfcore: " << command << ": resuming: " << ctx.journal->resumed() << " units from "
                  << ctx.journal->path() << "\n";
    return ctx;
}

void finish_run(RunContext& ctx, const json::Value& out, const std::string& output_file) {
    if (!ctx.root()) return;
    write_json_output(out, output_file);
    if (ctx.journal) ctx.journal->remove();
}

int interrupted_run(const RunContext& ctx, std::size_t done, std::size_t total) {
    if (ctx.root()) {
        std::cerr << "hfcore: " << ctx.command << ": interrupted after " << done << " of " << total << " units";
        if (ctx.journal)
            std::cerr << "; they are kept in " << ctx.journal->path() << ": rerun with --resume to continue";
        std::cerr << "\n";
    }
    return run::interrupted_exit_code();
}

namespace {

// Each worker thread's model: the same spec compiled on its own backend instance.
infer::ModelFactory worker_models(const ModelOptions& model, const ModelSpec& spec) {
    return [model, spec](int) -> std::shared_ptr<const Model> {
        return std::make_shared<Model>(spec, model.make_backend());
    };
}

// The executor's progress (toys done, all toys) as a calculator's.
std::function<void(std::int64_t, std::int64_t)> toys_progress(infer::ProgressFn progress) {
    if (!progress) return {};
    return [progress](std::int64_t done, std::int64_t total) { progress(done, total, "toys"); };
}

}  // namespace

infer::ToyRunner toy_runner(const RunContext& ctx, const ModelOptions& model, const ModelSpec& spec,
                            infer::ProgressFn progress) {
    return infer::make_toy_runner(worker_models(model, spec), ctx.executor(toys_progress(std::move(progress))));
}

infer::ToyStudyRunner toy_study_runner(const RunContext& ctx, const ModelOptions& model, const ModelSpec& spec,
                                       infer::ProgressFn progress) {
    return infer::make_toy_study_runner(worker_models(model, spec), ctx.executor(toys_progress(std::move(progress))));
}

infer::HeldFitRunner held_fit_runner(const RunContext& ctx, const ModelOptions& model, const ModelSpec& spec) {
    // The diagnostic reports its own progress (fits), through the runner's per-call callback.
    return infer::make_held_fit_runner(worker_models(model, spec), ctx.executor());
}

json::Value inputs_of(const LoadedModel& lm, const ModelOptions& model, json::Value options) {
    json::Object inputs;
    inputs.set("workspace", json::Value(lm.workspace->digest()));
    inputs.set("model", inputs_of(model));
    inputs.set("options", std::move(options));
    return json::Value(std::move(inputs));
}

}  // namespace hf::cli
