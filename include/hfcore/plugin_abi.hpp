// The binary contract between libhfcore and a backend plugin (a shared library found by name at run time).
//
// A plugin named NAME is the file libhfcore-backend-NAME.so and exports, with C linkage:
//   std::uint32_t hfcore_plugin_abi_version();        must equal HFCORE_PLUGIN_ABI_VERSION
//   std::uint32_t hfcore_plugin_interface_size();     must equal sizeof(hf::PluginInterface)
//   const hf::PluginInterface* hfcore_plugin_interface();
// The core checks the first two before it calls anything else, and refuses a mismatch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hfcore/backend.hpp"

// Bump on any change to Backend, FusedLikelihood, PackedLikelihood or PluginInterface.
#define HFCORE_PLUGIN_ABI_VERSION 1u

namespace hf {

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

struct PluginInterface {
    const char* name;         // "cpu", "opencl", "cuda"
    const char* description;  // one line
    PluginProbe (*probe)();
    // Throws hf::PluginError (or any std::exception) when the device or precision is not available.
    std::unique_ptr<Backend> (*create)(const BackendOptions& options);
};

}  // namespace hf

#define HFCORE_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

// Defines the three entry points for a plugin whose interface object is `iface`.
#define HFCORE_DEFINE_PLUGIN(iface)                                                                    \
    HFCORE_PLUGIN_EXPORT std::uint32_t hfcore_plugin_abi_version() { return HFCORE_PLUGIN_ABI_VERSION; } \
    HFCORE_PLUGIN_EXPORT std::uint32_t hfcore_plugin_interface_size() {                                 \
        return static_cast<std::uint32_t>(sizeof(hf::PluginInterface));                                 \
    }                                                                                                   \
    HFCORE_PLUGIN_EXPORT const hf::PluginInterface* hfcore_plugin_interface() { return &(iface); }
