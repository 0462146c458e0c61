// A job queue served by threads that live as long as the process. The pool object is never destroyed and its
// threads are detached: at exit they sleep on the queue's condition variable, and no static destructor has to
// join a thread that may be inside another library's code (a plugin unloaded first, an interpreter shutting down).
#include "run/thread_pool.hpp"

#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace hf::run::detail {

namespace {

struct Job {
    const std::function<void(std::size_t, int)>* fn = nullptr;
    std::size_t n = 0;
    int max_slots = 1;
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    // Guarded by the pool's mutex: slots handed out, threads still inside, the first exception.
    int slots = 1;  // the caller holds slot 0
    int inside = 0;  // pool threads working on this job
    std::exception_ptr error;
    std::condition_variable left;  // a pool thread left the job

    // Items until none is left; an exception is kept (the first) and stops the others from taking more.
    void work(int slot, std::mutex& m) {
        for (std::size_t i = next++; i < n && !failed; i = next++) {
            try {
                (*fn)(i, slot);
            } catch (...) {
                std::lock_guard<std::mutex> lock(m);
                if (!error) error = std::current_exception();
                failed = true;
            }
        }
    }
    bool open() const { return slots < max_slots && next.load() < n && !failed.load(); }
};

class Pool {
public:
    void for_each(std::size_t n, int participants, const std::function<void(std::size_t, int)>& fn) {
        auto job = std::make_shared<Job>();
        job->fn = &fn;
        job->n = n;
        job->max_slots = participants;
        {
            std::unique_lock<std::mutex> lock(m_);
            if (owner_ != getpid()) {  // a forked child has none of its parent's threads
                owner_ = getpid();
                threads_ = 0;
                queue_.clear();
            }
            // Enough threads for this call if every one of them were idle; they are kept for the next calls.
            while (threads_ < participants - 1 && threads_ < kMaxThreads) {
                std::thread([this] { serve(); }).detach();
                ++threads_;
            }
            queue_.push_back(job);
        }
        wake_.notify_all();
        job->work(0, m_);
        std::unique_lock<std::mutex> lock(m_);
        job->slots = job->max_slots;  // no thread joins once the caller is done handing out
        remove(job);
        job->left.wait(lock, [&] { return job->inside == 0; });
        if (job->error) std::rethrow_exception(job->error);
    }

private:
    static constexpr int kMaxThreads = 1024;

    void serve() {
        std::unique_lock<std::mutex> lock(m_);
        for (;;) {
            wake_.wait(lock, [&] { return first_open() != nullptr; });
            const std::shared_ptr<Job> job = first_open();
            const int slot = job->slots++;
            ++job->inside;
            lock.unlock();
            job->work(slot, m_);
            lock.lock();
            if (--job->inside == 0) job->left.notify_all();
        }
    }

    std::shared_ptr<Job> first_open() {
        for (auto it = queue_.begin(); it != queue_.end();) {
            if ((*it)->open()) return *it;
            // Nothing left to hand out (or no slot left): later callers need not look at it again.
            if ((*it)->next.load() >= (*it)->n || (*it)->failed.load()) {
                it = queue_.erase(it);
            } else {
                ++it;
            }
        }
        return nullptr;
    }

    void remove(const std::shared_ptr<Job>& job) {
        for (auto it = queue_.begin(); it != queue_.end(); ++it)
            if (*it == job) {
                queue_.erase(it);
                return;
            }
    }

    std::mutex m_;
    std::condition_variable wake_;
    std::deque<std::shared_ptr<Job>> queue_;
    int threads_ = 0;  // started, busy or not
    pid_t owner_ = getpid();
};

Pool& pool() {
    static Pool* const p = new Pool;  // never destroyed (see the top of the file)
    return *p;
}

}  // namespace

void pool_for_each(std::size_t n, int participants, const std::function<void(std::size_t, int)>& fn) {
    pool().for_each(n, participants, fn);
}

}  // namespace hf::run::detail
