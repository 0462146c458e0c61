// Options and plumbing of the long commands (scan, toy-based cls / upper-limit, ranking, profile): --threads,
// --resume, --journal; the run's communicator (MPI when launched by mpirun), its journal beside the output
// file, and the end of a run (final output written atomically, or the exit code of an interrupted run).
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "common_options.hpp"
#include "hfcore/distributed.hpp"
#include "hfcore/executor.hpp"
#include "hfcore/toy_study.hpp"

namespace hf::cli {

struct RunOptions {
    int threads = 0;
    bool resume = false;
    std::string journal;
    // --threads; with `journaled` also --resume and --journal.
    void add_to(CLI::App& sub, bool journaled = true);
};

struct RunContext {
    std::string command;
    run::Communicator comm;
    std::unique_ptr<run::Journal> journal;  // rank 0's, when the output goes to a file (or --journal)
    int threads = 1;
    bool root() const { return comm.is_root(); }
    run::ExecutorOptions executor(std::function<void(std::int64_t, std::int64_t)> progress = {}) const;
};

// What decides a run's results, for the journal's digest: the model options and the inference options.
json::Value inputs_of(const ModelOptions& model);
json::Value inputs_of(const InferOptions& infer);
// The workspace's digest with both of the above.
json::Value inputs_of(const LoadedModel& lm, const ModelOptions& model, const InferOptions& infer);

// Installs the SIGINT/SIGTERM handlers and opens the journal (<output-file>.journal.jsonl unless --journal)
// on rank 0, checking on --resume that `inputs` (digested) match the journal's.
RunContext start_run(const std::string& command, const json::Value& inputs, const RunOptions& options,
                     const std::string& output_file);
// Rank 0: writes `out` atomically to the output (file or stdout) and removes the journal.
void finish_run(RunContext& ctx, const json::Value& out, const std::string& output_file);
// The message and exit code (130/143) of a run stopped by a signal.
int interrupted_run(const RunContext& ctx, std::size_t done, std::size_t total);

// Held fits (ranking, profile) on `ctx`'s threads and ranks, each worker with its own backend and model.
infer::HeldFitRunner held_fit_runner(const RunContext& ctx, const ModelOptions& model, const ModelSpec& spec);
// The digest inputs of a diagnostic run: the workspace, the model options and the command's own `options`.
json::Value inputs_of(const LoadedModel& lm, const ModelOptions& model, json::Value options);

// A toy runner on `ctx`'s threads and ranks, each worker with its own backend and model compiled from `spec`.
infer::ToyRunner toy_runner(const RunContext& ctx, const ModelOptions& model, const ModelSpec& spec,
                            infer::ProgressFn progress = {});

// The toy study's runner (hfcore toys), likewise.
infer::ToyStudyRunner toy_study_runner(const RunContext& ctx, const ModelOptions& model, const ModelSpec& spec,
                                       infer::ProgressFn progress = {});

}  // namespace hf::cli
