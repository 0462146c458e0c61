// MPI for the executor (optional at build time: HFCORE_HAVE_MPI when CMake found MPI). Without it, or
// without mpirun, a Communicator is this process alone and none of the calls below are reached.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "hfcore/errors.hpp"
#include "run/transport.hpp"

#ifndef HFCORE_HAVE_MPI
#define HFCORE_HAVE_MPI 0
#endif
#if HFCORE_HAVE_MPI
// The C API only (OpenMPI's and MPICH's mpi.h would otherwise pull in the deprecated C++ bindings).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace hf::run {

struct Communicator::Impl {
    int rank = 0;
    int size = 1;
#if HFCORE_HAVE_MPI
    MPI_Comm comm = MPI_COMM_NULL;
#endif
};

namespace {
#if HFCORE_HAVE_MPI
std::mutex& mpi_mutex() {
    static std::mutex m;
    return m;
}
bool g_initialized_here = false;

void check(int rc, const char* what) {
    if (rc != MPI_SUCCESS) throw Error(std::string("MPI: ") + what + " failed");
}

void wait_request(MPI_Request& req) {
    detail::Backoff backoff;
    for (;;) {
        int done = 0;
        {
            std::lock_guard<std::mutex> lock(mpi_mutex());
            check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
        }
        if (done) return;
        backoff.wait();
    }
}
#endif
}  // namespace

bool mpi_compiled_in() { return HFCORE_HAVE_MPI != 0; }

std::string mpi_description() {
#if HFCORE_HAVE_MPI
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    std::string v(version, static_cast<std::size_t>(len));
    if (auto comma = v.find(','); comma != std::string::npos) v.resize(comma);
    while (!v.empty() && (v.back() == '\n' || v.back() == ' ' || v.back() == '\0')) v.pop_back();
    return "MPI: " + v + " (compiled in)";
#else
    return "MPI: not compiled in";
#endif
}

bool launched_by_mpi() {
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", "MPI_LOCALNRANKS"})
        if (std::getenv(var)) return true;
    return false;
}

int local_rank() {
    for (const char* var : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMIX_LOCAL_RANK", "SLURM_LOCALID"})
        if (const char* v = std::getenv(var)) return std::atoi(v);
    return 0;
}

Communicator::Communicator() : impl_(std::make_shared<Impl>()) {}

Communicator Communicator::world() {
#if HFCORE_HAVE_MPI
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin) {
        MPI_Comm world = MPI_COMM_WORLD;
        return from_mpi(&world);
    }
#endif
    return Communicator();
}

Communicator Communicator::from_mpi(const void* mpi_comm) {
#if HFCORE_HAVE_MPI
    Communicator c;
    c.impl_->comm = *static_cast<const MPI_Comm*>(mpi_comm);
    check(MPI_Comm_rank(c.impl_->comm, &c.impl_->rank), "MPI_Comm_rank");
    check(MPI_Comm_size(c.impl_->comm, &c.impl_->size), "MPI_Comm_size");
    return c;
#else
    (void)mpi_comm;
    throw Error("MPI is not compiled into this hfcore (see hfcore --version)");
#endif
}

int Communicator::rank() const { return impl_->rank; }
int Communicator::size() const { return impl_->size; }

MpiSession::MpiSession(int* argc, char*** argv) {
#if HFCORE_HAVE_MPI
    if (!launched_by_mpi()) return;
    int init = 0;
    MPI_Initialized(&init);
    if (init) return;
    int provided = 0;
    check(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
    if (provided < MPI_THREAD_SERIALIZED) throw Error("MPI: this MPI library does not provide MPI_THREAD_SERIALIZED");
    g_initialized_here = true;
    active_ = true;
#else
    (void)argc;
    (void)argv;
#endif
}

MpiSession::~MpiSession() {
#if HFCORE_HAVE_MPI
    if (active_ && g_initialized_here) MPI_Finalize();
#endif
}

void abort_all(int exit_code) {
#if HFCORE_HAVE_MPI
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    int size = 1;
    if (init && !fin) MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1) MPI_Abort(MPI_COMM_WORLD, exit_code);
#else
    (void)exit_code;
#endif
}

namespace detail {

void Backoff::wait() {
    std::this_thread::sleep_for(std::chrono::microseconds(us_));
    us_ = std::min(us_ * 2, 2000);
}

#if HFCORE_HAVE_MPI
void send(const Communicator& c, int dest, int tag, const std::string& data) {
    MPI_Request req;
    {
        std::lock_guard<std::mutex> lock(mpi_mutex());
        check(MPI_Isend(data.data(), static_cast<int>(data.size()), MPI_CHAR, dest, tag, c.impl()->comm, &req),
              "MPI_Isend");
    }
    wait_request(req);
}

bool try_recv_any(const Communicator& c, int tag, int& source, std::string& data) {
    std::lock_guard<std::mutex> lock(mpi_mutex());
    int flag = 0;
    MPI_Status st;
    check(MPI_Iprobe(MPI_ANY_SOURCE, tag, c.impl()->comm, &flag, &st), "MPI_Iprobe");
    if (!flag) return false;
    int count = 0;
    MPI_Get_count(&st, MPI_CHAR, &count);
    data.assign(static_cast<std::size_t>(count), '\0');
    source = st.MPI_SOURCE;
    check(MPI_Recv(data.data(), count, MPI_CHAR, source, tag, c.impl()->comm, MPI_STATUS_IGNORE), "MPI_Recv");
    return true;
}

std::string recv(const Communicator& c, int source, int tag) {
    Backoff backoff;
    for (;;) {
        {
            std::lock_guard<std::mutex> lock(mpi_mutex());
            int flag = 0;
            MPI_Status st;
            check(MPI_Iprobe(source, tag, c.impl()->comm, &flag, &st), "MPI_Iprobe");
            if (flag) {
                int count = 0;
                MPI_Get_count(&st, MPI_CHAR, &count);
                std::string data(static_cast<std::size_t>(count), '\0');
                check(MPI_Recv(data.data(), count, MPI_CHAR, source, tag, c.impl()->comm, MPI_STATUS_IGNORE),
                      "MPI_Recv");
                return data;
            }
        }
        backoff.wait();
    }
}

std::string broadcast(const Communicator& c, const std::string& data) {
    long long n = static_cast<long long>(data.size());
    MPI_Request req;
    {
        std::lock_guard<std::mutex> lock(mpi_mutex());
        check(MPI_Ibcast(&n, 1, MPI_LONG_LONG, 0, c.impl()->comm, &req), "MPI_Ibcast");
    }
    wait_request(req);
    std::string out = c.rank() == 0 ? data : std::string(static_cast<std::size_t>(n), '\0');
    if (n > 0) {
        {
            std::lock_guard<std::mutex> lock(mpi_mutex());
            check(MPI_Ibcast(out.data(), static_cast<int>(n), MPI_CHAR, 0, c.impl()->comm, &req), "MPI_Ibcast");
        }
        wait_request(req);
    }
    return out;
}

std::vector<int> gather(const Communicator& c, int value) {
    std::vector<int> all(c.rank() == 0 ? static_cast<std::size_t>(c.size()) : 0);
    MPI_Request req;
    {
        std::lock_guard<std::mutex> lock(mpi_mutex());
        check(MPI_Igather(&value, 1, MPI_INT, all.data(), 1, MPI_INT, 0, c.impl()->comm, &req), "MPI_Igather");
    }
    wait_request(req);
    return all;
}
#else
[[noreturn]] static void no_mpi() { throw Error("MPI is not compiled into this hfcore"); }
void send(const Communicator&, int, int, const std::string&) { no_mpi(); }
bool try_recv_any(const Communicator&, int, int&, std::string&) { no_mpi(); }
std::string recv(const Communicator&, int, int) { no_mpi(); }
std::string broadcast(const Communicator&, const std::string& data) { return data; }
std::vector<int> gather(const Communicator&, int value) { return {value}; }
#endif

}  // namespace detail
}  // namespace hf::run
