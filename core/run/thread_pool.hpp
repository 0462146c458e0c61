// The process's worker threads: started once, on first need, and kept, so that a loop over items (a batch of held
// fits, the executor's units, a likelihood evaluation's points in the cpu plugin) does not start and join threads
// of its own every time. run::for_each_index (hfcore/executor.hpp) is its interface; nothing else uses this class.
#pragma once

#include <cstddef>
#include <functional>

namespace hf::run::detail {

// fn(i, slot) for every i < n, by the calling thread (slot 0) and by up to `participants - 1` idle pool threads
// (slots 1, 2, ...: a slot is held by one thread for the whole call, so per-slot state needs no lock). The caller
// takes items too and finishes whatever no pool thread took, so a call made from inside another call (a pool
// thread evaluating a likelihood that spreads its points) completes with the threads that are free, never waits
// for a busy one, and cannot deadlock. Returns once every item is done; the first exception thrown stops the
// handing out and is rethrown here.
void pool_for_each(std::size_t n, int participants, const std::function<void(std::size_t, int)>& fn);

}  // namespace hf::run::detail
