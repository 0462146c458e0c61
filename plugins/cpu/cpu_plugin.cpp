// Entry point of the cpu plugin (libhfcore-backend-cpu.so): identity, probe and factory.
#include <cblas.h>

#include <fstream>
#include <string>
#include <thread>

#include "cpu_backend.hpp"
#include "hfcore/plugin/abi.hpp"

namespace hf::cpu {

std::string cpu_model_name() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0 || line.rfind("Processor", 0) == 0 || line.rfind("cpu model", 0) == 0) {
            auto colon = line.find(':');
            if (colon == std::string::npos) continue;
            std::string v = line.substr(colon + 1);
            auto b = v.find_first_not_of(" \t");
            auto e = v.find_last_not_of(" \t\r");
            if (b != std::string::npos) return v.substr(b, e - b + 1);
        }
    }
#if defined(__x86_64__)
    return "x86_64";
#elif defined(__aarch64__)
    return "aarch64";
#else
    return "cpu";
#endif
}

unsigned cpu_threads() {
    // Cached: hardware_concurrency() reads /sys on every call, which the fused likelihood would pay per call.
    static const unsigned n = [] {
        unsigned h = std::thread::hardware_concurrency();
        return h == 0 ? 1u : h;
    }();
    return n;
}

CpuBackend::CpuBackend(Precision precision) : PluginBackend(precision) {}

std::string CpuBackend::device_name() const {
    static const std::string name = cpu_model_name() + " (" + std::to_string(cpu_threads()) + " threads)";
    return name;
}

namespace {

PluginProbe probe() {
    PluginProbe p;
    p.usable = true;
    DeviceInfo d;
    d.index = 0;
    d.name = cpu_model_name();
    d.fp64 = true;
    d.fp32 = true;
    d.detail = std::to_string(cpu_threads()) + " hardware threads; BLAS: " + openblas_get_config();
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
