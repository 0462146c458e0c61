#include "allocator.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

#include "hfcore/errors.hpp"

namespace hf::cuda {

namespace {

std::atomic<std::uint64_t> g_malloc_count{0};

std::string human_bytes(double b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (b >= 1024.0 && u < 6) {
        b /= 1024.0;
        ++u;
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", b, units[u]);
    return buf;
}

}  // namespace

std::uint64_t device_malloc_count() { return g_malloc_count.load(); }

CachingAllocator::CachingAllocator(int device, std::string device_label)
    : device_(device), label_(std::move(device_label)) {}

CachingAllocator::~CachingAllocator() { empty_cache(); }

std::size_t CachingAllocator::size_class(std::size_t bytes) {
    constexpr std::size_t kMin = 256, kSmall = std::size_t{1} << 20, kLargeStep = std::size_t{2} << 20;
    if (bytes <= kMin) return kMin;
    if (bytes <= kSmall) {
        std::size_t c = kMin;
        while (c < bytes) c <<= 1;
        return c;
    }
    return (bytes + kLargeStep - 1) / kLargeStep * kLargeStep;
}

void* CachingAllocator::device_malloc(std::size_t bytes) {
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, bytes);
    if (err == cudaSuccess) {
        g_malloc_count++;
        return p;
    }
    (void)cudaGetLastError();  // an allocation failure is not sticky: clear it so later calls succeed
    if (err != cudaErrorMemoryAllocation)
        throw Error("cuda: cudaMalloc of " + human_bytes(double(bytes)) + " on " + label_ +
                    " failed: " + cudaGetErrorString(err));
    return nullptr;
}

void* CachingAllocator::allocate(std::size_t bytes) {
    if (bytes > (std::size_t{1} << 60))  // beyond any device, and size_class would overflow
        throw OutOfMemory("cuda: out of device memory: cannot allocate " + human_bytes(double(bytes)) + " on " +
                          label_);
    const std::size_t cls = size_class(bytes);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = free_.find(cls);
        if (it != free_.end() && !it->second.empty()) {
            void* p = it->second.back();
            it->second.pop_back();
            cached_bytes_ -= cls;
            return p;
        }
    }
    cudaSetDevice(device_);
    if (void* p = device_malloc(cls)) return p;
    // The cache may hold enough for this request in other size classes: give it back and retry once.
    empty_cache();
    if (void* p = device_malloc(cls)) return p;
    std::size_t free_b = 0, total_b = 0;
    std::string mem;
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
        mem = " (" + human_bytes(double(free_b)) + " free of " + human_bytes(double(total_b)) + ")";
    else
        (void)cudaGetLastError();
    throw OutOfMemory("cuda: out of device memory: cannot allocate " + human_bytes(double(bytes)) + " on " +
                      label_ + mem);
}

void CachingAllocator::release(void* ptr, std::size_t bytes) noexcept {
    if (!ptr) return;
    const std::size_t cls = size_class(bytes);
    std::lock_guard<std::mutex> lock(mutex_);
    try {
        free_[cls].push_back(ptr);
        cached_bytes_ += cls;
    } catch (...) {
        cudaFree(ptr);  // no memory for the bookkeeping: give the block back instead
    }
}

void CachingAllocator::empty_cache() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) return;
    // At process exit the runtime may already be gone; then there is nothing left to free.
    if (cudaSetDevice(device_) == cudaSuccess) {
        for (auto& [cls, blocks] : free_)
            for (void* p : blocks) cudaFree(p);
    }
    (void)cudaGetLastError();
    free_.clear();
    cached_bytes_ = 0;
}

std::size_t CachingAllocator::cached_bytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return cached_bytes_;
}

}  // namespace hf::cuda
