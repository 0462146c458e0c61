// Long runs: a list of work units (a scan's patches, blocks of toys, ranking parameters, profile points) dealt
// dynamically to threads and, under MPI, to ranks; each finished unit written to a journal (JSON Lines, flushed
// and fsync'ed) that a rerun resumes from; SIGINT/SIGTERM stop cleanly; final outputs written atomically.
//
// The results never depend on the layout: a unit's result is a function of its inputs only (toys are keyed by
// (seed, stream, first toy), so toy i is the same Philox stream on any rank or thread), and rank 0 gathers the
// results in unit order.
//
// Use from a user's MPI program: call run_units() (or infer::hypotest with HypotestOptions::toy_runner made by
// make_toy_runner()) on every rank of a communicator with the same unit keys:
//     MPI_Comm comm = ...;
//     auto c = hf::run::Communicator::from_mpi(&comm);
// Rank 0 deals the units, keeps the journal and receives the results. MPI is optional at build time
// (mpi_compiled_in()); without it, or without mpirun, everything runs in one process.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "hfcore/errors.hpp"
#include "hfcore/threads.hpp"
#include "hfcore/json.hpp"

namespace hf::run {

// ---- MPI ----------------------------------------------------------------------------------------------------

bool mpi_compiled_in();
// "MPI: Open MPI v4.1.4 (compiled in)" / "MPI: not compiled in".
std::string mpi_description();
// True when this process was started by mpirun/mpiexec/srun (their environment variables are set).
bool launched_by_mpi();
// This process's rank among the ranks on its node (OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID),
// 0 when not launched by MPI: the GPU a rank uses by default.
int local_rank();

// A group of processes that share a run. Default: this process alone. Cheap to copy.
class Communicator {
public:
    Communicator();
    // MPI_COMM_WORLD when MPI is compiled in and initialized (see MpiSession), else this process alone.
    static Communicator world();
    // The caller's communicator: `mpi_comm` points to an MPI_Comm (MPI must be initialized with at least
    // MPI_THREAD_SERIALIZED). Throws when MPI is not compiled in.
    static Communicator from_mpi(const void* mpi_comm);
    int rank() const;
    int size() const;
    bool is_root() const { return rank() == 0; }
    bool distributed() const { return size() > 1; }

    struct Impl;
    const std::shared_ptr<Impl>& impl() const { return impl_; }

private:
    std::shared_ptr<Impl> impl_;
};

// Initializes MPI (MPI_THREAD_SERIALIZED) when compiled in and launched by mpirun/srun, and finalizes it at
// the end of the scope; otherwise does nothing, so the same binary runs without mpirun as a single process.
class MpiSession {
public:
    MpiSession(int* argc, char*** argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;
    bool active() const { return active_; }

private:
    bool active_ = false;
};

// Ends every rank of the MPI world (MPI_Abort) after an error on one of them, so none waits for it forever;
// does nothing without MPI.
void abort_all(int exit_code);

// ---- interrupts ---------------------------------------------------------------------------------------------

// Thrown where a computation that needs all its units (a toy-based hypotest) was stopped by a signal.
class Interrupted : public Error {
public:
    using Error::Error;
};

// SIGINT and SIGTERM set a flag that the executor checks before dealing the next unit (the units in flight
// finish and are kept); a second signal ends the process at once (the journal, fsync'ed per unit, stays).
void install_interrupt_handlers();
bool stop_requested();
int stop_signal();                // the signal that asked to stop, 0 if none
void request_stop(int signal);    // as if `signal` arrived (tests, embedding programs)
void clear_stop();
// 128 + signal: 130 for SIGINT, 143 for SIGTERM.
int interrupted_exit_code();

// ---- atomic files -------------------------------------------------------------------------------------------

// Throws InputError naming `path` when it cannot be created or replaced (missing folder, no permission, a
// folder in the way); leaves no file behind. Call it before the work starts.
void check_writable(const std::string& path);
// Writes `text` to a temporary file beside `path`, fsyncs it and renames it over `path`: readers see the old
// file or the whole new one, never half of it.
void write_file_atomic(const std::string& path, const std::string& text);

// ---- journal ------------------------------------------------------------------------------------------------

// The finished units of a run, one JSON line each after a header line naming the command and the digest of
// its inputs and options: {"hfcore_journal": 1, "command": ..., "digest": ...}, then {"key": ..., "result": ...}.
// Thread-safe. A journal that is not open (default) records nothing.
class Journal {
public:
    Journal() = default;
    // Creates `path`, or with `resume` reads the units it holds (checking command and digest; a torn last
    // line from a killed process is dropped) and appends after them. Without `resume` an existing journal is
    // an error (it holds results: resume or remove it).
    static std::unique_ptr<Journal> open(const std::string& path, const std::string& command,
                                         const std::string& digest, bool resume);
    ~Journal();
    const json::Value* find(const std::string& key) const;
    void record(const std::string& key, const json::Value& result);
    std::size_t size() const;
    std::size_t resumed() const { return resumed_; }
    const std::string& path() const { return path_; }
    // Closes and deletes the file (after the final output holds everything).
    void remove();

private:
    std::string path_;
    int fd_ = -1;
    std::size_t resumed_ = 0;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, json::Value> done_;
};

// Journal::open on rank 0 of `comm` (null on the other ranks), its outcome given to every rank: where rank 0
// cannot open it (a journal of other inputs, no permission), every rank throws its message, so that no rank waits
// in run_units for a rank 0 that gave up. Call it on all ranks.
std::unique_ptr<Journal> open_journal_on_root(const Communicator& comm, const std::string& path,
                                              const std::string& command, const std::string& digest, bool resume);

// ---- executor -----------------------------------------------------------------------------------------------

// Computes one unit; exceptions become {"error": message} results.
using UnitFn = std::function<json::Value(std::size_t unit)>;
// Called once in each worker thread (worker = 0, 1, ...): make the thread's state there (a backend and model).
using WorkerFactory = std::function<UnitFn(int worker)>;

struct ExecutorOptions {
    int threads = 0;  // worker threads on this rank; 0 = default_threads()
    Communicator comm;
    Journal* journal = nullptr;  // rank 0's; units found in it are not recomputed
    std::function<void(std::int64_t done, std::int64_t total)> progress;  // rank 0, its main thread
    bool broadcast = false;  // every rank receives all results (callers that continue in lockstep)
};

struct ExecutorResult {
    std::vector<json::Value> results;  // by unit, on rank 0 (all ranks with broadcast); null = not done
    std::size_t computed = 0;          // units computed by this run (all ranks)
    std::size_t resumed = 0;           // units taken from the journal
    bool interrupted = false;          // stopped by a signal before all units were done (same on all ranks)
    int threads = 1;                   // this rank's worker threads
};

// Runs the units named by `keys` (unique; the journal's keys) on every rank of options.comm (call it on all
// ranks with the same keys).
ExecutorResult run_units(const std::vector<std::string>& keys, const WorkerFactory& factory,
                         const ExecutorOptions& options);

// True when `result` is the {"error": ...} of a failed unit.
bool is_error(const json::Value& result);

}  // namespace hf::run
