// The cpu plugin's Backend: identity of the host CPU, and its storage (allocation and transfers are copies).
#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

#include "backend.hpp"
#include "hfcore/threads.hpp"

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
    // The count every part of hfcore uses (HFCORE_NUM_THREADS, else the affinity mask), cached: it reads the
    // environment and asks the kernel, which the fused likelihood would pay per call.
    static const unsigned n = static_cast<unsigned>(std::max(1, hf::run::default_threads()));
    return n;
}

CpuBackend::CpuBackend(Precision precision) : PluginBackend(precision) {}

std::string CpuBackend::device_name() const {
    static const std::string name = cpu_model_name() + " (" + std::to_string(cpu_threads()) + " threads)";
    return name;
}

namespace {

std::size_t checked_bytes(DType dtype, std::int64_t n) {
    if (n < 0) throw ShapeError("cpu: negative allocation size " + std::to_string(n));
    const auto es = static_cast<std::size_t>(dtype_size(dtype));
    if (static_cast<std::uint64_t>(n) > std::numeric_limits<std::size_t>::max() / es)
        throw OutOfMemory("cpu: cannot allocate " + std::to_string(n) + " elements of " + dtype_name(dtype));
    return static_cast<std::size_t>(n) * es;
}

}  // namespace

std::shared_ptr<Storage> CpuBackend::k_alloc(DType dtype, std::int64_t n) {
    return std::make_shared<CpuStorage>(checked_bytes(dtype, n));
}

void CpuBackend::k_upload(Tensor& out, const void* host) {
    const std::size_t bytes = static_cast<std::size_t>(out.size()) * dtype_size(out.dtype());
    if (bytes == 0) return;
    if (out.dtype() == DType::boolean) {
        auto* o = data_of<std::uint8_t>(out);
        const auto* h = static_cast<const std::uint8_t*>(host);
        for (std::size_t i = 0; i < bytes; ++i) o[i] = h[i] != 0;
        return;
    }
    std::memcpy(PluginBackend::storage_as<CpuStorage>(out).data(), host, bytes);
}

void CpuBackend::k_download(const Tensor& x, void* host) {
    const std::size_t bytes = static_cast<std::size_t>(x.size()) * dtype_size(x.dtype());
    if (bytes) std::memcpy(host, PluginBackend::storage_as<CpuStorage>(x).data(), bytes);
}

}  // namespace hf::cpu
