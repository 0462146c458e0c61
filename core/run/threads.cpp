// How many worker threads a run uses by default (HFCORE_NUM_THREADS, else the cores this process may use), and
// the loop that spreads independent items over them.
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "hfcore/executor.hpp"

namespace hf::run {

int available_cores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const int n = CPU_COUNT(&set);
        if (n > 0) return n;
    }
    const unsigned h = std::thread::hardware_concurrency();
    return h == 0 ? 1 : static_cast<int>(h);
}

int default_threads() {
    if (const char* env = std::getenv("HFCORE_NUM_THREADS")) {
        char* end = nullptr;
        const long n = std::strtol(env, &end, 10);
        if (end != env && *end == '\0' && n > 0 && n < 100000) return static_cast<int>(n);
    }
    return available_cores();
}

int resolve_threads(int requested) { return requested > 0 ? requested : default_threads(); }

void for_each_index(std::size_t n, int threads, const std::function<void(std::size_t, int)>& fn) {
    const int workers = static_cast<int>(std::min<std::size_t>(n, static_cast<std::size_t>(resolve_threads(threads))));
    if (workers <= 1) {
        for (std::size_t i = 0; i < n; ++i) fn(i, 0);
        return;
    }
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr first;
    std::mutex m;
    auto work = [&](int w) {
        for (std::size_t i = next++; i < n && !failed; i = next++) {
            try {
                fn(i, w);
            } catch (...) {
                std::lock_guard<std::mutex> lock(m);
                if (!first) first = std::current_exception();
                failed = true;
            }
        }
    };
    std::vector<std::thread> pool;
    for (int w = 1; w < workers; ++w) pool.emplace_back(work, w);
    work(0);
    for (auto& t : pool) t.join();
    if (first) std::rethrow_exception(first);
}

}  // namespace hf::run
