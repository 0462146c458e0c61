// Toy-based hypotests (and held fits) on threads and MPI ranks: a HypotestOptions::toy_runner that deals the toy blocks
// through the executor (hfcore/executor.hpp), journals each block, and gives every rank the merged results, so
// CLs is bit for bit the one-process value for any number of ranks and threads.
//     hf::infer::HypotestOptions opts;
//     opts.calctype = hf::infer::CalcType::toybased;
//     hf::run::ExecutorOptions ex;  ex.comm = hf::run::Communicator::from_mpi(&comm);
//     opts.toy_runner = hf::infer::make_toy_runner(models, ex);
//     auto r = hf::infer::hypotest(mu, model, data, opts);   // on every rank
#pragma once

#include <functional>
#include <memory>

#include "hfcore/diagnostics.hpp"
#include "hfcore/executor.hpp"
#include "hfcore/infer.hpp"

namespace hf::infer {

// The model of a worker thread (worker = 0, 1, ...), called in that thread: each needs its own (a model
// compiled from the same spec on its own backend instance).
using ModelFactory = std::function<std::shared_ptr<const Model>(int worker)>;

// Journal keys are "<tag>/s<stream>/<first>+<count>"; `options.progress` counts toys of the hypotest.
ToyRunner make_toy_runner(ModelFactory models, run::ExecutorOptions options);

// Ranking and profile scans on threads and MPI ranks: a DiagnosticOptions::held_runner that deals the blocks
// of held fits through the executor (journal keys "<tag>/b<block>", tags "held<n>" for the n-th set of fits of
// the diagnostic), so their results are the one-process results for any number of ranks and threads.
HeldFitRunner make_held_fit_runner(ModelFactory models, run::ExecutorOptions options);

}  // namespace hf::infer
