// Choosing a backend: plugins are found by name, loaded once (never unloaded), and asked for a Backend.
//
// Search order for libhfcore-backend-NAME.so: an explicit path (LoadOptions::plugin_path or a NAME that is a
// path), each folder of HFCORE_PLUGIN_PATH (colon-separated), the folder of libhfcore.so, the install's plugin
// folder relative to it (lib/hfcore/plugins in any prefix), that folder under the configured prefix. HFCORE_TRACE_PLUGINS=1 prints every attempt to stderr. Nothing falls back silently: asking for "cuda"
// without a GPU throws PluginError saying why. Only the name "auto" chooses (cuda, then opencl, then cpu) and
// says what it chose.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hfcore/backend.hpp"

namespace hf {

struct LoadOptions {
    Precision precision = Precision::f64;  // parse_precision("32b") from text
    int device = 0;
    int platform = 0;
    std::string plugin_path;        // explicit file, searched first
};

// A backend the caller holds. Shared: models and tensors keep it alive.
using BackendPtr = std::shared_ptr<Backend>;

BackendPtr load_backend(const std::string& name, const LoadOptions& options = {});

// Sets the process default backend (used where no backend is passed) and returns it.
BackendPtr set_backend(const std::string& name, const LoadOptions& options = {});
// The process default; the cpu plugin at 64b if none was set.
BackendPtr default_backend();

// A device a plugin found on this machine.
struct DeviceInfo {
    int index = 0;
    std::string name;
    bool fp64 = true;
    bool fp32 = true;
    std::string detail;  // e.g. "OpenCL 3.0 PoCL, platform 0", memory size
};

// What a plugin reports about this machine. usable == false comes with a reason.
struct PluginProbe {
    bool usable = false;
    std::string reason;             // why not usable ("no CUDA driver", "no OpenCL platform")
    std::vector<DeviceInfo> devices;
};

// Every plugin file found on the search path, usable or not.
struct PluginListing {
    std::string name;
    std::string path;
    std::uint32_t abi_version = 0;
    bool loaded = false;          // the file loaded and passed the ABI checks
    std::string load_error;       // when !loaded: file + reason
    PluginProbe probe;            // when loaded
    std::string description;
};
std::vector<PluginListing> list_plugins();

// The folders searched, in order (for messages and `hfcore backends`).
std::vector<std::string> plugin_search_path();

}  // namespace hf
