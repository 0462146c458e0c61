// The executor: units dealt one at a time to whichever worker asks next (threads of this process, and under
// MPI the threads of every rank through rank 0's dealer), results kept by unit and journaled as they arrive.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <thread>

#include "hfcore/errors.hpp"
#include "run/transport.hpp"

namespace hf::run {

namespace {

constexpr int kTagRequest = 1;
constexpr int kTagReplyBase = 1000;  // + the asking thread's index

json::Value error_result(const std::string& message) {
    json::Object o;
    o.set("error", json::Value(message));
    return json::Value(std::move(o));
}

json::Value call_unit(UnitFn& fn, const WorkerFactory& factory, int worker, std::size_t unit) {
    try {
        if (!fn) fn = factory(worker);
        return fn(unit);
    } catch (const std::exception& e) {
        return error_result(e.what());
    }
}

// JSON has no NaN or infinity; results carry them (a CLs of 0/0) through the journal and between ranks as
// {"$nonfinite": "nan" | "inf" | "-inf"}.
json::Value encode(const json::Value& v) {
    if (v.is_number() && !std::isfinite(v.as_double())) {
        const double d = v.as_double();
        json::Object o;
        o.set("$nonfinite", json::Value(std::isnan(d) ? "nan" : d > 0 ? "inf" : "-inf"));
        return json::Value(std::move(o));
    }
    if (v.is_array()) {
        json::Array a;
        for (const auto& x : v.as_array()) a.push_back(encode(x));
        return json::Value(std::move(a));
    }
    if (v.is_object()) {
        json::Object o;
        for (const auto& [k, x] : v.as_object()) o.set(k, encode(x));
        return json::Value(std::move(o));
    }
    return v;
}

json::Value decode(const json::Value& v) {
    if (v.is_object()) {
        const auto& obj = v.as_object();
        if (const json::Value* nf = obj.find("$nonfinite"); nf && nf->is_string() && obj.size() == 1) {
            const std::string& s = nf->as_string();
            return json::Value(s == "nan" ? std::nan("") : s == "inf" ? HUGE_VAL : -HUGE_VAL);
        }
        json::Object o;
        for (const auto& [k, x] : obj) o.set(k, decode(x));
        return json::Value(std::move(o));
    }
    if (v.is_array()) {
        json::Array a;
        for (const auto& x : v.as_array()) a.push_back(decode(x));
        return json::Value(std::move(a));
    }
    return v;
}

// Rank 0's state: which units are done, which to deal next.
struct Ledger {
    const std::vector<std::string>& keys;
    const ExecutorOptions& options;
    std::vector<json::Value> results;
    std::vector<char> done;
    std::size_t next = 0, n_done = 0, computed = 0;
    std::mutex mutex;

    Ledger(const std::vector<std::string>& k, const ExecutorOptions& o)
        : keys(k), options(o), results(k.size()), done(k.size(), 0) {}

    // The next unit to compute, or -1 when none is left or a stop was asked for.
    long long take() {
        hold_for_a_test();
        std::lock_guard<std::mutex> lock(mutex);
        if (stop_requested()) return -1;
        while (next < keys.size() && done[next]) ++next;
        return next < keys.size() ? static_cast<long long>(next++) : -1;
    }

    // HFCORE_TEST_HOLD_AFTER_UNITS=N (tests only): once N units are done, deal no more until a signal asks to stop,
    // so a test that interrupts or kills a run knows the run cannot have finished first (tests/run).
    void hold_for_a_test() {
        static const long long hold_after = [] {
            const char* v = std::getenv("HFCORE_TEST_HOLD_AFTER_UNITS");
            return v && *v ? std::atoll(v) : -1LL;
        }();
        if (hold_after < 0) return;
        for (;;) {
            {
                std::lock_guard<std::mutex> lock(mutex);
                if (stop_requested() || static_cast<long long>(n_done) < hold_after || n_done == keys.size()) return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }

    void store(std::size_t unit, json::Value result) {
        if (options.journal) options.journal->record(keys[unit], encode(result));
        std::lock_guard<std::mutex> lock(mutex);
        results[unit] = std::move(result);
        done[unit] = 1;
        ++n_done;
        ++computed;
        if (options.progress)
            options.progress(static_cast<std::int64_t>(n_done), static_cast<std::int64_t>(keys.size()));
    }
};

void local_worker(Ledger& ledger, const WorkerFactory& factory, int worker) {
    UnitFn fn;
    for (long long u = ledger.take(); u >= 0; u = ledger.take())
        ledger.store(static_cast<std::size_t>(u), call_unit(fn, factory, worker, static_cast<std::size_t>(u)));
}

// A thread of a rank > 0: asks rank 0 for a unit, sending the result of the previous one with the request.
void remote_worker(const Communicator& comm, const WorkerFactory& factory, int worker) {
    UnitFn fn;
    long long finished = -1;
    json::Value result;
    for (;;) {
        const bool more = !stop_requested();
        std::string msg = std::to_string(worker) + " " + std::to_string(finished) + " " + (more ? "1" : "0") + "\n";
        if (finished >= 0) msg += json::dump(encode(result));
        detail::send(comm, 0, kTagRequest, msg);
        if (!more) return;
        const long long next = std::stoll(detail::recv(comm, 0, kTagReplyBase + worker));
        if (next < 0) return;
        result = call_unit(fn, factory, worker, static_cast<std::size_t>(next));
        finished = next;
    }
}

// Rank 0's main thread under MPI: answers the other ranks' requests until each of their threads has stopped.
void deal(const Communicator& comm, Ledger& ledger, int remote_threads) {
    detail::Backoff backoff;
    while (remote_threads > 0) {
        int source = -1;
        std::string msg;
        if (!detail::try_recv_any(comm, kTagRequest, source, msg)) {
            backoff.wait();
            continue;
        }
        backoff.reset();
        const std::size_t eol = msg.find('\n');
        int worker = 0, more = 0;
        long long finished = -1;
        if (std::sscanf(msg.substr(0, eol).c_str(), "%d %lld %d", &worker, &finished, &more) != 3)
            throw Error("executor: malformed request from rank " + std::to_string(source));
        if (finished >= 0) {
            json::Value r;
            try {
                r = decode(json::parse(std::string_view(msg).substr(eol + 1), "rank " + std::to_string(source)));
            } catch (const Error& e) {
                r = error_result(std::string("unreadable result from rank ") + std::to_string(source) + ": " +
                                 e.what());
            }
            ledger.store(static_cast<std::size_t>(finished), std::move(r));
        }
        if (!more) {
            --remote_threads;
            continue;
        }
        const long long next = ledger.take();
        detail::send(comm, source, kTagReplyBase + worker, std::to_string(next));
        if (next < 0) --remote_threads;
    }
}

}  // namespace

std::unique_ptr<Journal> open_journal_on_root(const Communicator& comm, const std::string& path,
                                              const std::string& command, const std::string& digest, bool resume) {
    std::unique_ptr<Journal> journal;
    std::exception_ptr failure;
    std::string message;  // empty: opened
    if (comm.is_root()) {
        try {
            journal = Journal::open(path, command, digest, resume);
        } catch (const std::exception& e) {
            failure = std::current_exception();
            message = e.what();
            if (message.empty()) message = "the journal " + path + " could not be opened";
        }
    }
    if (comm.distributed()) message = detail::broadcast(comm, message);
    if (failure) std::rethrow_exception(failure);
    if (!message.empty()) throw Error(message);
    return journal;
}

bool is_error(const json::Value& result) { return result.is_object() && result.find("error") != nullptr; }

ExecutorResult run_units(const std::vector<std::string>& keys, const WorkerFactory& factory,
                         const ExecutorOptions& options) {
    const Communicator& comm = options.comm;
    ExecutorResult out;
    out.threads = resolve_threads(options.threads);
    Ledger ledger(keys, options);
    if (comm.is_root() && options.journal) {
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (const json::Value* r = options.journal->find(keys[i])) {
                ledger.results[i] = decode(*r);
                ledger.done[i] = 1;
                ++ledger.n_done;
                ++out.resumed;
            }
        if (options.progress && out.resumed > 0)
            options.progress(static_cast<std::int64_t>(out.resumed), static_cast<std::int64_t>(keys.size()));
    }

    if (!comm.distributed()) {
        const int n = std::max(1, std::min<int>(out.threads, static_cast<int>(keys.size() - out.resumed)));
        for_each_index(static_cast<std::size_t>(n), n, [&](std::size_t t, int) {
            local_worker(ledger, factory, static_cast<int>(t));
        });
    } else {
        const std::vector<int> threads = detail::gather(comm, out.threads);
        if (comm.is_root()) {
            int remote = 0;
            for (std::size_t r = 1; r < threads.size(); ++r) remote += threads[r];
            // Item 0 answers the other ranks while the others compute; whichever thread takes it may make the
            // MPI calls (MPI_THREAD_SERIALIZED: one at a time, from any thread).
            const auto items = static_cast<std::size_t>(out.threads) + 1;
            for_each_index(items, static_cast<int>(items), [&](std::size_t i, int) {
                if (i == 0) {
                    deal(comm, ledger, remote);
                } else {
                    local_worker(ledger, factory, static_cast<int>(i - 1));
                }
            });
        } else {
            for_each_index(static_cast<std::size_t>(out.threads), out.threads, [&](std::size_t t, int) {
                remote_worker(comm, factory, static_cast<int>(t));
            });
        }
    }

    out.computed = ledger.computed;
    out.interrupted = ledger.n_done < keys.size();
    if (comm.distributed()) {
        // Rank 0 knows what was done: every rank learns it (and the results, when asked).
        json::Object status;
        status.set("interrupted", json::Value(out.interrupted));
        status.set("computed", json::Value(static_cast<std::int64_t>(out.computed)));
        status.set("resumed", json::Value(static_cast<std::int64_t>(out.resumed)));
        if (options.broadcast && comm.is_root()) {
            json::Array all;
            for (const auto& r : ledger.results) all.push_back(encode(r));
            status.set("results", json::Value(std::move(all)));
        }
        const json::Value s = json::parse(detail::broadcast(comm, comm.is_root() ? json::dump(json::Value(std::move(status))) : ""),
                                          "rank 0");
        out.interrupted = s.find("interrupted")->as_bool();
        out.computed = static_cast<std::size_t>(s.find("computed")->as_double());
        out.resumed = static_cast<std::size_t>(s.find("resumed")->as_double());
        if (options.broadcast && !comm.is_root()) {
            std::vector<json::Value> all;
            for (const auto& r : s.find("results")->as_array()) all.push_back(decode(r));
            ledger.results = std::move(all);
        }
    }
    if (comm.is_root() || options.broadcast) out.results = std::move(ledger.results);
    return out;
}

}  // namespace hf::run
