// hfcore_timer's requests for the input gradients (hf::grad): "hypotest_grad" (one hypotest with d CLs / d
// inputs), "hypotest_grad_batch" (K models whose inputs are the workload's scaled by 1 +- 2%, in one call), and
// "input_grad" / "input_grad_tier1" (d twice_nll / d inputs at the suggested init on the backend: the route the
// model's likelihood offers, and the Tier 1 route of the same spec compiled without the fused likelihood).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "hfcore/infer.hpp"
#include "hfcore/json.hpp"
#include "hfcore/model.hpp"

namespace hf::bench {

struct GradTask {
    double mu = 1.0;
    std::size_t k = 64;  // batch: models per call
    int threads = 0;     // batch: 0 = every core
};

// Sets `fn` (what is timed) and `report` (what it left, into `result`) for `task`.
void set_grad_task(const std::string& task, const GradTask& t, const ModelSpec& spec, const Model& m,
                   const std::vector<double>& data, const infer::HypotestOptions& options, std::function<void()>& fn,
                   std::function<void()>& report, json::Object& result);

}  // namespace hf::bench
