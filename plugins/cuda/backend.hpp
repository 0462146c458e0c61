// The cuda plugin's Backend: device memory from a caching allocator, one stream and one cuBLAS handle per
// instance, Tier 1 kernels by role (elementwise.cu, reduce.cu, shape.cu, random.cu; linalg.cpp: cuBLAS) and the fused likelihood (likelihood.cpp, likelihood.cu). Host-side C++20; kernels
// are reached through the launchers of kernels.hpp. Nothing here waits for the device except
// k_download, synchronize and masked_select (whose result size lives on the device).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>

#include "allocator.hpp"
#include "hfcore/plugin/backend.hpp"
#include "hfcore/plugin/likelihood.hpp"
#include "hfcore/plugin/abi.hpp"

namespace hf::cuda {

// The launchers' integer code of a dtype (kernels.hpp's Dt).
inline int code(DType t) { return static_cast<int>(t); }
inline std::string cublas_text(cublasStatus_t st) { return cublasGetStatusString(st); }

// A device block; returns to its allocator's cache when the last tensor using it goes.
class CudaStorage final : public Storage {
public:
    CudaStorage(std::shared_ptr<CachingAllocator> alloc, std::size_t bytes);
    ~CudaStorage() override;
    CudaStorage(const CudaStorage&) = delete;
    CudaStorage& operator=(const CudaStorage&) = delete;

    void* data() const { return data_; }
    std::size_t bytes() const { return bytes_; }

    // For integer contents written from the host (uploads, fills, arange): their range, so that gather can
    // check its indices without reading them back. Storage is written once, so this never goes stale.
    void set_range(std::int64_t lo, std::int64_t hi) {
        range_known_ = true;
        lo_ = lo;
        hi_ = hi;
    }
    bool range_known() const { return range_known_; }
    std::int64_t range_lo() const { return lo_; }
    std::int64_t range_hi() const { return hi_; }

private:
    bool range_known_ = false;
    std::int64_t lo_ = 0, hi_ = -1;
    std::shared_ptr<CachingAllocator> alloc_;
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
};

inline void* dev_ptr(const Tensor& t) { return PluginBackend::storage_as<CudaStorage>(t).data(); }
template <class T>
T* dev_ptr_as(const Tensor& t) {
    return static_cast<T*>(dev_ptr(t));
}

// What the machine offers, or why not (probe() and create() share it).
PluginProbe probe_devices();

class CudaBackend final : public PluginBackend {
public:
    // Throws PluginError when the device does not exist or cannot be initialised.
    CudaBackend(Precision precision, int device);
    ~CudaBackend() override;

    std::string name() const override { return "cuda"; }
    std::string device_name() const override { return device_name_; }
    void synchronize() override;

    int device() const { return device_; }
    cudaStream_t stream() const { return stream_; }
    // Makes this backend's device current on the calling thread (cheap; every entry point calls it).
    void activate() const;
    // Throws hf::Error naming `what` if the last launch failed (launch errors only: nothing waits here).
    void check_launch(const char* what) const;
    void check(cudaError_t err, const char* what) const;

    // A tensor of this backend over fresh storage.
    Tensor wrap(std::shared_ptr<Storage> storage, DType dtype, Shape shape) {
        return make_tensor(std::move(storage), dtype, std::move(shape));
    }
    // Enqueues a host-to-device copy of model tables (counted as an upload).
    Tensor upload_table(DType dtype, const void* host, std::int64_t n);

protected:
    HFCORE_TIER1_KERNEL_OVERRIDES
    std::unique_ptr<FusedLikelihood> k_compile_likelihood(const PackedLikelihood& packed) override;
    // Batched calls pay: a call's kernel launches, transfers and synchronisation cost microseconds each,
    // more than a small model's work per point.
    bool k_batched_calls_pay() const override { return true; }

public:
    // Pairwise reduction driver shared with the fused likelihood: x [outer, n, inner] -> out [outer, inner].
    void reduce_into(ReduceOp op, DType dt, const void* x, std::int64_t outer, std::int64_t n, std::int64_t inner,
                     void* out);

private:
    int device_ = 0;
    std::string device_name_;
    cudaStream_t stream_ = nullptr;
    cublasHandle_t blas_ = nullptr;
    std::shared_ptr<CachingAllocator> alloc_;
    Tensor blas_workspace_;
};

}  // namespace hf::cuda
