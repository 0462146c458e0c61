// The cuda plugin's backend: device selection and life cycle, the stream, storage from the caching allocator,
// uploads and downloads; the op launchers are in backend_ops.cpp.
#include "backend.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <initializer_list>
#include <utility>
#include <vector>

#include "kernels.hpp"

namespace hf::cuda {

namespace {

std::string gib(std::size_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1ull << 30));
    return buf;
}

}  // namespace

// ---------------------------------------------------------------- storage

CudaStorage::CudaStorage(std::shared_ptr<CachingAllocator> alloc, std::size_t bytes)
    : alloc_(std::move(alloc)), bytes_(bytes) {
    if (bytes_ > 0) data_ = alloc_->allocate(bytes_);
}

CudaStorage::~CudaStorage() { alloc_->release(data_, bytes_); }

// ---------------------------------------------------------------- life cycle

CudaBackend::CudaBackend(Precision precision, int device) : PluginBackend(precision), device_(device) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        (void)cudaGetLastError();
        throw PluginError(probe_devices().reason);
    }
    if (device < 0 || device >= count) {
        std::string list;
        for (int i = 0; i < count; ++i) {
            cudaDeviceProp p{};
            if (cudaGetDeviceProperties(&p, i) == cudaSuccess)
                list += (list.empty() ? "" : ", ") + std::to_string(i) + ": " + p.name;
        }
        throw PluginError("cuda: device " + std::to_string(device) + " does not exist: " + std::to_string(count) +
                          " CUDA device(s) found (" + list + ")");
    }
    cudaDeviceProp prop{};
    err = cudaGetDeviceProperties(&prop, device);
    if (err != cudaSuccess)
        throw PluginError("cuda: cannot query device " + std::to_string(device) + ": " + cudaGetErrorString(err));
    if (prop.major * 10 + prop.minor < 75)
        throw PluginError("cuda: device " + std::to_string(device) + " (" + prop.name + ") has compute capability " +
                          std::to_string(prop.major) + "." + std::to_string(prop.minor) +
                          "; this build of the plugin runs on 7.5 and newer");
    device_name_ = std::string(prop.name) + " (device " + std::to_string(device) + ", compute capability " +
                   std::to_string(prop.major) + "." + std::to_string(prop.minor) + ", " + gib(prop.totalGlobalMem) +
                   ")";

    err = cudaSetDevice(device);
    if (err == cudaSuccess) err = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        throw PluginError("cuda: cannot initialise device " + std::to_string(device) + " (" + prop.name +
                          "): " + cudaGetErrorString(err));
    }
    cublasStatus_t st = cublasCreate(&blas_);
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasSetStream(blas_, stream_);
    // The default mode keeps at least the requested precision (no TF32 for 32b unless asked for).
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasSetMathMode(blas_, CUBLAS_DEFAULT_MATH);
    if (st != CUBLAS_STATUS_SUCCESS) {
        if (blas_) cublasDestroy(blas_);
        cudaStreamDestroy(stream_);
        throw PluginError("cuda: cuBLAS initialisation failed on device " + std::to_string(device) + ": " +
                          cublas_text(st));
    }
    alloc_ = std::make_shared<CachingAllocator>(device, "device " + std::to_string(device) + " (" + prop.name + ")");
    // cuBLAS gets its workspace from our cache, so that a GEMM never calls cudaMalloc itself.
    const std::int64_t ws = prop.major >= 9 ? (32 << 20) : (4 << 20);
    blas_workspace_ = empty(DType::boolean, Shape{ws});
    st = cublasSetWorkspace(blas_, dev_ptr(blas_workspace_), static_cast<std::size_t>(ws));
    if (st != CUBLAS_STATUS_SUCCESS)
        throw PluginError("cuda: cuBLAS workspace setup failed: " + cublas_text(st));
}

CudaBackend::~CudaBackend() {
    // At process exit the runtime may be gone before us: then there is nothing left to release.
    if (cudaSetDevice(device_) == cudaSuccess && cudaStreamSynchronize(stream_) == cudaSuccess) {
        if (blas_) cublasDestroy(blas_);
        cudaStreamDestroy(stream_);
    }
    (void)cudaGetLastError();
}

void CudaBackend::activate() const {
    cudaError_t err = cudaSetDevice(device_);
    if (err != cudaSuccess) check(err, "cudaSetDevice");
}

void CudaBackend::check(cudaError_t err, const char* what) const {
    if (err == cudaSuccess) return;
    (void)cudaGetLastError();
    std::string msg = std::string("cuda: ") + what + " failed on " + device_name_ + ": " + cudaGetErrorString(err);
    if (err == cudaErrorIllegalAddress || err == cudaErrorLaunchFailure || err == cudaErrorAssert ||
        err == cudaErrorHardwareStackError || err == cudaErrorIllegalInstruction)
        msg += " (the CUDA context is now unusable; restart the process)";
    if (err == cudaErrorMemoryAllocation) throw OutOfMemory(msg);
    throw Error(msg);
}

void CudaBackend::check_launch(const char* what) const { check(cudaGetLastError(), what); }

void CudaBackend::synchronize() {
    activate();
    check(cudaStreamSynchronize(stream_), "synchronize");
}

// ---------------------------------------------------------------- memory and transfers

std::shared_ptr<Storage> CudaBackend::k_alloc(DType dtype, std::int64_t n) {
    const std::size_t es = dtype_size(dtype);
    if (n < 0 || static_cast<std::uint64_t>(n) > (std::uint64_t{1} << 60) / es)
        throw OutOfMemory("cuda: out of device memory: cannot allocate " + std::to_string(n) + " elements of " +
                          dtype_name(dtype) + " on " + device_name_);
    activate();
    return std::make_shared<CudaStorage>(alloc_, static_cast<std::size_t>(n) * es);
}

void CudaBackend::k_upload(Tensor& out, const void* host) {
    activate();
    const std::size_t bytes = static_cast<std::size_t>(out.size()) * dtype_size(out.dtype());
    // From pageable memory the call returns once the source has been staged: `host` may go right after.
    check(cudaMemcpyAsync(dev_ptr(out), host, bytes, cudaMemcpyHostToDevice, stream_), "upload");
    if (out.dtype() == DType::i64 && out.size() > 0) {
        const auto* v = static_cast<const std::int64_t*>(host);
        const auto [lo, hi] = std::minmax_element(v, v + out.size());
        PluginBackend::storage_as<CudaStorage>(out).set_range(*lo, *hi);
    }
}

void CudaBackend::k_download(const Tensor& x, void* host) {
    activate();
    const std::size_t bytes = static_cast<std::size_t>(x.size()) * dtype_size(x.dtype());
    check(cudaMemcpyAsync(host, dev_ptr(x), bytes, cudaMemcpyDeviceToHost, stream_), "download");
    check(cudaStreamSynchronize(stream_), "download (waiting for the device)");
}

Tensor CudaBackend::upload_table(DType dtype, const void* host, std::int64_t n) {
    return from_host(dtype, Shape{n}, host);
}

void CudaBackend::k_fill(Tensor& out, double value) {
    activate();
    launch_fill(stream_, code(out.dtype()), dev_ptr(out), out.size(), value);
    check_launch("fill");
    if (out.dtype() == DType::i64 && value == value && value > -9.2e18 && value < 9.2e18)
        PluginBackend::storage_as<CudaStorage>(out).set_range(static_cast<std::int64_t>(value), static_cast<std::int64_t>(value));
}

void CudaBackend::k_arange(Tensor& out) {
    activate();
    launch_arange(stream_, code(out.dtype()), dev_ptr(out), out.size());
    check_launch("arange");
    if (out.dtype() == DType::i64) PluginBackend::storage_as<CudaStorage>(out).set_range(0, out.size() - 1);
}

void CudaBackend::k_cast(const Tensor& x, Tensor& out) {
    activate();
    launch_cast(stream_, code(x.dtype()), dev_ptr(x), code(out.dtype()), dev_ptr(out), out.size());
    check_launch("cast");
}

}  // namespace hf::cuda
