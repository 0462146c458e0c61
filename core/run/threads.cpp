// How many worker threads a run uses by default (HFCORE_NUM_THREADS, else the cores this process may use), and
// the loop that spreads independent items over them (on the process's pool, thread_pool.hpp).
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

#include "hfcore/executor.hpp"
#include "run/thread_pool.hpp"

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
    detail::pool_for_each(n, workers, fn);
}

}  // namespace hf::run
