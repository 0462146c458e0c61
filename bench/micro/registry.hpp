// The micro benchmarks' shared state: which backends to run on and the workloads compiled on each
// (compiled once per backend and precision, on first use).
#pragma once

#include <string>
#include <vector>

#include "../common/workloads.hpp"

namespace hf::bench {

struct BackendChoice {
    std::string plugin;     // "cpu", "opencl", "cuda"
    std::string precision;  // "64b", "32b"
    std::string label() const { return plugin + "/" + precision; }
};

// Every usable plugin at every precision it accepts; a line on stderr for each one skipped and why.
std::vector<BackendChoice> usable_backends();

struct WorkloadChoice {
    std::string name;        // "erjr", "sbottom", "synthetic"
    bool available = true;
    std::string why_not;     // when !available
};
std::vector<WorkloadChoice> workload_choices();

// The workload compiled on a backend (cached). Throws when it cannot be built.
const Workload& workload(const std::string& name, const BackendChoice& backend);

}  // namespace hf::bench
