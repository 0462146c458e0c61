// Deliberately broken plugins for the loader tests: one source, one defect per HF_BROKEN_<KIND> macro.
#include <stdexcept>

#include "hfcore/plugin/abi.hpp"

#if defined(HF_BROKEN_NOENTRY)
// A shared library that is not an hfcore plugin: none of the three entry points.
extern "C" __attribute__((visibility("default"))) int not_an_hfcore_plugin() { return 42; }
#else

namespace {

hf::PluginProbe probe() {
    hf::PluginProbe p;
#if defined(HF_BROKEN_UNUSABLE)
    p.usable = false;
    p.reason = "simulated: no device on this machine";
#else
    p.usable = true;
    hf::DeviceInfo d;
    d.name = "test device";
    p.devices.push_back(d);
#endif
    return p;
}

std::unique_ptr<hf::Backend> create(const hf::BackendOptions&) {
#if defined(HF_BROKEN_THROWING)
    throw std::runtime_error("simulated initialisation failure");
#else
    return nullptr;
#endif
}

const hf::PluginInterface iface{"broken", "a deliberately broken plugin for tests", &probe, &create};

}  // namespace

HFCORE_PLUGIN_EXPORT std::uint32_t hfcore_plugin_abi_version() {
#if defined(HF_BROKEN_BADABI)
    return HFCORE_PLUGIN_ABI_VERSION + 998u;
#else
    return HFCORE_PLUGIN_ABI_VERSION;
#endif
}

HFCORE_PLUGIN_EXPORT std::uint32_t hfcore_plugin_interface_size() {
#if defined(HF_BROKEN_BADSIZE)
    return static_cast<std::uint32_t>(sizeof(hf::PluginInterface) + 8);
#else
    return static_cast<std::uint32_t>(sizeof(hf::PluginInterface));
#endif
}

HFCORE_PLUGIN_EXPORT const hf::PluginInterface* hfcore_plugin_interface() {
#if defined(HF_BROKEN_NULLIFACE)
    return nullptr;
#else
    return &iface;
#endif
}

#endif
