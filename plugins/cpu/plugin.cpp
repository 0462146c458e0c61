// Entry point of the cpu plugin (libhfcore-backend-cpu.so): identity, probe and factory.
#include <cblas.h>

#include <string>

#include "backend.hpp"
#include "simd.hpp"
#include "hfcore/plugin/abi.hpp"

namespace hf::cpu {

namespace {

PluginProbe probe() {
    PluginProbe p;
    p.usable = true;
    DeviceInfo d;
    d.index = 0;
    d.name = cpu_model_name();
    d.fp64 = true;
    d.fp32 = true;
    d.detail = std::to_string(cpu_threads()) + " hardware threads; vector level: " + simd::level_name() +
               "; BLAS: " + openblas_get_config();
    p.devices.push_back(std::move(d));
    return p;
}

std::unique_ptr<Backend> create(const BackendOptions& options) {
    if (options.device != 0)
        throw PluginError("cpu: there is one cpu device (index 0); device " + std::to_string(options.device) +
                          " was asked for");
    return std::make_unique<CpuBackend>(options.precision);
}

const PluginInterface iface{
    "cpu",
    "host CPU: xtensor (xsimd) kernels, OpenBLAS matmul, fused likelihood on std::thread workers",
    &probe,
    &create,
};

}  // namespace
}  // namespace hf::cpu

HFCORE_DEFINE_PLUGIN(hf::cpu::iface)
