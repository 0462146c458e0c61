// Entry points of libhfcore-backend-cuda.so. Loading the file needs no driver (the CUDA runtime is linked
// statically and opens libcuda.so.1 on first use); probe() and create() say why the machine cannot run it.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "backend.hpp"

namespace hf::cuda {

namespace {

constexpr int kMinCapability = 75;  // the oldest architecture this build carries code for

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

std::string no_driver_reason() {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    (void)cudaGetLastError();
    if (driver > 0)  // a driver exists but is older than the runtime this plugin was built with
        return "no CUDA driver (the installed driver supports CUDA " + version_text(driver) +
               ", this plugin needs " + version_text(runtime) + ")";
    return "no CUDA driver";
}

// HFCORE_CUDA_DEVICE, when set, overrides the device index of the options.
int device_index(const BackendOptions& options) {
    const char* env = std::getenv("HFCORE_CUDA_DEVICE");
    if (!env || !*env) return options.device;
    char* end = nullptr;
    long v = std::strtol(env, &end, 10);
    if (*end != '\0' || v < 0 || v > 1 << 20)
        throw PluginError(std::string("cuda: HFCORE_CUDA_DEVICE='") + env + "' is not a device index");
    return static_cast<int>(v);
}

PluginProbe probe_entry() { return probe_devices(); }

std::unique_ptr<Backend> create_entry(const BackendOptions& options) {
    PluginProbe probe = probe_devices();
    if (probe.devices.empty()) throw PluginError(probe.reason);
    return std::make_unique<CudaBackend>(options.precision, device_index(options));
}

const PluginInterface kInterface{
    "cuda",
    "NVIDIA GPUs through the CUDA runtime and cuBLAS (compute capability 7.5 and newer)",
    &probe_entry,
    &create_entry,
};

}  // namespace

PluginProbe probe_devices() {
    PluginProbe probe;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    (void)cudaGetLastError();
    if (err == cudaErrorInsufficientDriver) {
        probe.reason = no_driver_reason();
        return probe;
    }
    if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
        probe.reason = "no CUDA device";
        return probe;
    }
    if (err != cudaSuccess) {
        probe.reason = std::string("no usable CUDA device: ") + cudaGetErrorString(err);
        return probe;
    }
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp p{};
        if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
            (void)cudaGetLastError();
            continue;
        }
        DeviceInfo d;
        d.index = i;
        d.name = p.name;
        d.fp64 = true;  // every architecture from 7.5 on has double precision (slow on consumer parts)
        d.fp32 = true;
        char mem[32];
        std::snprintf(mem, sizeof mem, "%.1f GiB", double(p.totalGlobalMem) / double(1ull << 30));
        d.detail = "compute capability " + std::to_string(p.major) + "." + std::to_string(p.minor) + ", " + mem +
                   ", " + std::to_string(p.multiProcessorCount) + " multiprocessors";
        if (p.major * 10 + p.minor < kMinCapability) d.detail += " (unsupported: needs 7.5 or newer)";
        else probe.usable = true;
        probe.devices.push_back(std::move(d));
    }
    if (!probe.usable)
        probe.reason = probe.devices.empty() ? "no usable CUDA device: device properties unavailable"
                                             : "no CUDA device of compute capability 7.5 or newer";
    return probe;
}

}  // namespace hf::cuda

HFCORE_DEFINE_PLUGIN(hf::cuda::kInterface)

// For tests: the number of cudaMalloc calls so far (all backends of this plugin). A steady evaluation loop
// must not raise it.
HFCORE_PLUGIN_EXPORT std::uint64_t hfcore_cuda_malloc_count() { return hf::cuda::device_malloc_count(); }
