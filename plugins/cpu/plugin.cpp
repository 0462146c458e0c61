// Entry point of the cpu plugin (libhfcore-backend-cpu.so): identity, probe and factory.
#include <string>

#include "backend.hpp"
#include "simd.hpp"
#include "hfcore/plugin/abi.hpp"

namespace hf::cpu {

namespace {

PluginProbe probe() {
    PluginProbe p;
    if (!simd::level_problem().empty()) {
        p.reason = "cpu: " + simd::level_problem();
        return p;
    }
    p.usable = true;
    DeviceInfo d;
    d.index = 0;
    d.name = cpu_model_name();
    d.fp64 = true;
    d.fp32 = true;
    d.detail = std::to_string(cpu_threads()) + " threads; " + simd::level_description();
    p.devices.push_back(std::move(d));
    return p;
}

std::unique_ptr<Backend> create(const BackendOptions& options) {
    if (options.device != 0)
        throw PluginError("cpu: there is one cpu device (index 0); device " + std::to_string(options.device) +
                          " was asked for");
    if (!simd::level_problem().empty()) throw PluginError("cpu: " + simd::level_problem());
    return std::make_unique<CpuBackend>(options.precision);
}

const PluginInterface iface{
    "cpu",
    "host CPU: xtensor (xsimd) kernels, fixed-order matmul, fused likelihood on hfcore's worker threads",
    &probe,
    &create,
};

}  // namespace
}  // namespace hf::cpu

HFCORE_DEFINE_PLUGIN(hf::cpu::iface)
