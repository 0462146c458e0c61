// Messages between the ranks of a Communicator, for the executor. Every wait polls (test, then a short sleep)
// instead of spinning, so a rank waiting for work leaves its core to the ranks and threads computing. Calls
// are serialized by a lock (MPI_THREAD_SERIALIZED): any thread may use them.
#pragma once

#include <string>
#include <vector>

#include "hfcore/executor.hpp"


namespace hf::run {

namespace detail {

void send(const Communicator& c, int dest, int tag, const std::string& data);
// A message with `tag` from any rank, if one has arrived (does not wait).
bool try_recv_any(const Communicator& c, int tag, int& source, std::string& data);
std::string recv(const Communicator& c, int source, int tag);
// Rank 0's `data` on every rank.
std::string broadcast(const Communicator& c, const std::string& data);
// Every rank's `value`, on rank 0 (empty elsewhere).
std::vector<int> gather(const Communicator& c, int value);

// Sleeps a little longer each time nothing happened (50 us up to 2 ms); reset() after progress.
class Backoff {
public:
    void wait();
    void reset() { us_ = 50; }

private:
    int us_ = 50;
};

}  // namespace detail
}  // namespace hf::run
