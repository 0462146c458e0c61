// SIGINT/SIGTERM: the first asks the executor to stop dealing units (those in flight finish and are kept in
// the journal); the second ends the process at once.
#include <unistd.h>

#include <atomic>
#include <csignal>

#include "hfcore/executor.hpp"

namespace hf::run {

namespace {

std::atomic<int> g_signal{0};

extern "C" void on_stop_signal(int sig) {
    int expected = 0;
    if (!g_signal.compare_exchange_strong(expected, sig)) _exit(128 + sig);  // second signal: now
    static const char msg[] = "\nhfcore: interrupted: finishing the units in flight (again to quit now)\n";
    [[maybe_unused]] ssize_t n = ::write(2, msg, sizeof msg - 1);
}

}  // namespace

void install_interrupt_handlers() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

bool stop_requested() { return g_signal.load(std::memory_order_relaxed) != 0; }
int stop_signal() { return g_signal.load(); }
void request_stop(int signal) { g_signal.store(signal); }
void clear_stop() { g_signal.store(0); }
int interrupted_exit_code() { return 128 + (stop_signal() != 0 ? stop_signal() : SIGINT); }

}  // namespace hf::run
