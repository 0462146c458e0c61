// run::for_each_index on the process's pool (core/run/thread_pool.cpp): every item once, worker slots distinct
// and below the count, loops inside loops and loops from many threads at once complete, exceptions reach the
// caller. Runs under ThreadSanitizer with the rest of test_threads (scripts/sanitizers.sh).
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "hfcore/threads.hpp"

namespace {

TEST(ThreadPool, EveryItemOnceOnSlotsBelowTheCount) {
    for (int threads : {1, 2, 3, 8}) {
        constexpr std::size_t n = 1000;
        std::vector<std::atomic<int>> seen(n);
        std::mutex m;
        std::set<int> slots;
        hf::run::for_each_index(n, threads, [&](std::size_t i, int w) {
            seen[i].fetch_add(1);
            std::lock_guard<std::mutex> lock(m);
            slots.insert(w);
        });
        for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(seen[i].load(), 1) << "item " << i << ", threads " << threads;
        for (int w : slots) EXPECT_TRUE(w >= 0 && w < threads) << "slot " << w << " of " << threads;
    }
}

TEST(ThreadPool, ASlotIsHeldByOneThreadAtATime) {
    // Per-slot state without a lock is the contract the held fits' worker models rely on.
    constexpr int threads = 4;
    std::vector<std::atomic<int>> busy(threads);
    std::atomic<int> clashes{0};
    hf::run::for_each_index(400, threads, [&](std::size_t, int w) {
        if (busy[static_cast<std::size_t>(w)].fetch_add(1) != 0) ++clashes;
        std::this_thread::yield();
        busy[static_cast<std::size_t>(w)].fetch_sub(1);
    });
    EXPECT_EQ(clashes.load(), 0);
}

TEST(ThreadPool, NestedLoopsAndLoopsFromManyThreadsComplete) {
    std::atomic<long> sum{0};
    auto nested = [&] {
        hf::run::for_each_index(8, 4, [&](std::size_t i, int) {
            hf::run::for_each_index(50, 4, [&](std::size_t j, int) { sum += static_cast<long>(i * 50 + j); });
        });
    };
    std::vector<std::thread> callers;
    for (int c = 0; c < 4; ++c) callers.emplace_back(nested);
    for (auto& t : callers) t.join();
    const long once = 399L * 400L / 2;  // items 0..399 of one nested loop
    EXPECT_EQ(sum.load(), 4 * once);
}

TEST(ThreadPool, TheFirstExceptionReachesTheCaller) {
    std::atomic<int> ran{0};
    EXPECT_THROW(hf::run::for_each_index(100, 4,
                                         [&](std::size_t i, int) {
                                             ++ran;
                                             if (i == 7) throw std::runtime_error("item 7");
                                         }),
                 std::runtime_error);
    EXPECT_GE(ran.load(), 8);
    // The pool is usable afterwards.
    std::atomic<int> after{0};
    hf::run::for_each_index(10, 4, [&](std::size_t, int) { ++after; });
    EXPECT_EQ(after.load(), 10);
}

}  // namespace
