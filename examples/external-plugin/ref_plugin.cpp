// Entry points of libhfcore-backend-ref.so: what hfcore asks a plugin before anything else (the ABI checks of
// HFCORE_DEFINE_PLUGIN), whether it can run here (probe), and a backend of the requested precision (create).
#include <memory>
#include <string>

#include "hfcore/plugin/abi.hpp"
#include "ref_backend.hpp"

namespace {

hf::PluginProbe probe() {
    hf::PluginProbe p;
    p.usable = true;  // host memory and the C++ library: always available
    hf::DeviceInfo host;
    host.index = 0;
    host.name = "host";
    host.detail = "plain loops, one thread";
    p.devices.push_back(host);
    return p;
}

std::unique_ptr<hf::Backend> create(const hf::BackendOptions& options) {
    if (options.device != 0)
        throw hf::PluginError("ref: there is one device (index 0); device " + std::to_string(options.device) +
                              " was asked for");
    return std::make_unique<ref::RefBackend>(options.precision);
}

const hf::PluginInterface iface{"ref", "reference backend: Tier 1 kernels as plain loops (examples/external-plugin)",
                                &probe, &create};

}  // namespace

HFCORE_DEFINE_PLUGIN(iface)
