// A caching device allocator: freed blocks go to a free list of their size class and are handed out again,
// so that an evaluation loop in steady state never calls cudaMalloc (which synchronises and costs
// microseconds to milliseconds). Blocks return to the device only when the allocator is destroyed (with its
// backend and the last tensor) or when an allocation fails and the cache is emptied before a retry.
//
// Reuse is safe without events because every user of one allocator enqueues on the backend's single stream:
// work that used a block before it was freed runs before work that uses it after.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace hf::cuda {

class CachingAllocator {
public:
    CachingAllocator(int device, std::string device_label);
    ~CachingAllocator();
    CachingAllocator(const CachingAllocator&) = delete;
    CachingAllocator& operator=(const CachingAllocator&) = delete;

    // Rounded size class of a request: powers of two up to 1 MiB, then multiples of 2 MiB.
    static std::size_t size_class(std::size_t bytes);

    // Returns a block of size_class(bytes) bytes. Throws hf::OutOfMemory when the device has no room even
    // after the cache is emptied; the process and this allocator stay usable.
    void* allocate(std::size_t bytes);
    void release(void* ptr, std::size_t bytes) noexcept;  // bytes: the request passed to allocate()

    // Frees every cached block (synchronises the device).
    void empty_cache() noexcept;

    std::size_t cached_bytes() const;

private:
    void* device_malloc(std::size_t bytes);

    int device_;
    std::string label_;
    mutable std::mutex mutex_;
    std::unordered_map<std::size_t, std::vector<void*>> free_;
    std::size_t cached_bytes_ = 0;
};

// Every cudaMalloc the plugin has made (all allocators), for tests of the steady state.
std::uint64_t device_malloc_count();

}  // namespace hf::cuda
