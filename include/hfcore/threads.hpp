// How many threads a run uses, and the loop that spreads independent items over the process's worker threads
// (one pool, started on first need and kept: core/run/thread_pool.cpp). The executor, the diagnostics, the gradient
// batches, Python's scan and the plugins (through the SDK: the cpu plugin spreads a likelihood evaluation's points
// with it) all use these, so the count is the same everywhere (HFCORE_NUM_THREADS, else the affinity mask, which
// is what mpirun's binding sets) and no caller starts threads of its own.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace hf::run {

// Cores this process may run on (its CPU affinity mask; under mpirun's binding, the cores of this rank).
int available_cores();
// HFCORE_NUM_THREADS when set to a positive integer, else available_cores().
int default_threads();
// `requested` when positive, else default_threads().
int resolve_threads(int requested);
// fn(i, worker) for every i < n, items handed out one at a time to resolve_threads(threads) workers (worker 0 is
// the calling thread; an item's worker is < that count, so per-worker state can be indexed by it). The first
// exception thrown stops the handing out and is rethrown here once every worker has finished its item. Workers
// past the caller are the pool's idle threads: a call from inside another one (a likelihood evaluated by a held
// fit's worker) gets those that are free, often none, so nested loops do not oversubscribe the cores.
void for_each_index(std::size_t n, int threads, const std::function<void(std::size_t i, int worker)>& fn);

// The vector level libhfcore's own host kernels run at (the batched fitter's, core/numerics/lanes.hpp), chosen
// as the cpu plugin chooses its own (hfcore/plugin/vector_level.hpp): "vector level: avx2", with
// " (HFCORE_CPU_SIMD; the CPU has avx512)" when capped, or " (why HFCORE_CPU_SIMD was not followed)".
std::string host_vector_level();

}  // namespace hf::run
