// Workloads shared by the micro benchmarks and hfcore_timer: a workspace (plus patches) compiled on a
// backend, with pyhf's ws.data(model), and a built-in synthetic workspace for machines without ../shared.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hfcore/loader.hpp"
#include "hfcore/model.hpp"

namespace hf::bench {

struct Workload {
    std::string name;
    std::unique_ptr<Model> model;
    std::vector<double> data;  // main + aux
    ModelSpec spec;            // what `model` was compiled from (more models of it, e.g. one per worker thread)
};

// HFCORE_SHARED_DIR, else the ../shared beside the source tree (compiled in).
std::string shared_dir();
bool file_exists(const std::string& path);

// pyhf: ws.model(patches=[...]) with default modifier settings, data = ws.data(model).
Workload load_workload(const std::string& name, const std::string& workspace_path,
                       const std::vector<std::string>& patch_paths, const BackendPtr& backend);
Workload load_workload_from_string(const std::string& name, const std::string& workspace_json,
                                   const BackendPtr& backend);

// One channel of `bins` bins, a normfactor POI "mu" and `nuisance` nuisance parameters, with the recipe of
// bench/make_synthetic.py (per-bin staterror and shapesys where they fit in the budget, the rest normsys and
// histosys). Deterministic; the random numbers differ from the Python script's.
std::string synthetic_workspace(std::int64_t bins, std::int64_t nuisance, std::uint64_t seed = 1);

// K parameter points [K, P] spread around the suggested init, inside the suggested bounds, fixed ones kept.
std::vector<double> parameter_points(const Model& model, std::int64_t k, std::uint64_t seed = 7);

}  // namespace hf::bench
