// Host memory of the cpu plugin, with a per-thread cache of small blocks.
//
// A fit makes several small tensors per likelihood evaluation (parameters, results); at a few microseconds per
// evaluation, malloc/free of 64-byte-aligned blocks was a third of the time (glibc consolidates its fast bins
// whenever a block next to the heap top is freed). Blocks up to kLargestCached bytes are therefore kept, per
// power-of-two size class, in a small free list of the freeing thread and handed out again.
#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include "backend.hpp"

namespace hf::cpu {

namespace {

constexpr std::size_t kSmallest = 64;            // alignment, and the smallest class
constexpr std::size_t kLargestCached = 1 << 16;  // larger blocks go straight to the allocator
constexpr int kClasses = 11;                     // 64 B .. 64 KiB
constexpr std::size_t kPerClass = 16;            // blocks kept per class and thread

int size_class(std::size_t bytes) {
    int c = 0;
    for (std::size_t s = kSmallest; s < bytes; s <<= 1) ++c;
    return c;
}

// Set while this thread's cache exists: storage released during thread or program exit, after the cache is
// gone (tensors held by static objects), goes straight to the allocator. A trivial type outlives the cache.
thread_local bool t_cache_alive = false;

struct BlockCache {
    std::array<std::vector<void*>, kClasses> free;
    BlockCache() {
        for (auto& f : free) f.reserve(kPerClass);
        t_cache_alive = true;
    }
    ~BlockCache() {
        t_cache_alive = false;
        for (auto& f : free)
            for (void* p : f) std::free(p);
    }
};

// The calling thread's cache, or null once it has been destroyed.
BlockCache* cache() {
    static thread_local BlockCache c;
    return t_cache_alive ? &c : nullptr;
}

}  // namespace

CpuStorage::CpuStorage(std::size_t bytes) : bytes_(bytes) {
    if (bytes <= kLargestCached) {
        const int c = size_class(bytes);
        BlockCache* bc = cache();
        if (bc && !bc->free[static_cast<std::size_t>(c)].empty()) {
            auto& list = bc->free[static_cast<std::size_t>(c)];
            data_ = list.back();
            list.pop_back();
            return;
        }
        data_ = std::aligned_alloc(kSmallest, kSmallest << c);
    } else {
        const std::size_t rounded = ((bytes + kSmallest - 1) / kSmallest) * kSmallest;
        data_ = std::aligned_alloc(kSmallest, rounded);
    }
    if (!data_) throw OutOfMemory("cpu: cannot allocate " + std::to_string(bytes) + " bytes of host memory");
}

CpuStorage::~CpuStorage() {
    if (bytes_ <= kLargestCached) {
        BlockCache* bc = cache();
        if (bc && bc->free[static_cast<std::size_t>(size_class(bytes_))].size() < kPerClass) {
            bc->free[static_cast<std::size_t>(size_class(bytes_))].push_back(data_);
            return;
        }
    }
    std::free(data_);
}

}  // namespace hf::cpu
