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

#include "hfcore/loader.hpp"
#include "hfcore/plugin/backend.hpp"

// Bump on any change to the binary layout of Backend, PluginBackend, Tensor, FusedLikelihood, PackedLikelihood
// or PluginInterface. Moving the kernels from Backend into PluginBackend kept version 1: the data members and
// the order of the virtual functions (hence the vtable) are what they were. Version 2: FusedLikelihood binds its
// data (bind, BoundData; logpdf takes the bound data), a new vtable. Version 3: virtual functions appended at the
// end of two vtables, FusedLikelihood::input_gradient (with PackedGradient) and expected_data_vjp, and
// PluginBackend::k_batched_calls_pay: a plugin built against version 2 has no such entries, and core would call
// past the end of its vtable, so the loader refuses it instead. (bind_rows and native_jacobian came within
// version 2 before any release of 0.2.)
#define HFCORE_PLUGIN_ABI_VERSION 3u

namespace hf {

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
