// The OpenCL Backend: one in-order command queue on a process-wide device context (cl_device.hpp). Kernels
// are looked up by name in the programs the context builds once; every k_* only enqueues work, and only
// k_download (and masked_select's count) waits for the device.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>

#include "cl_device.hpp"
#include "cl_error.hpp"
#include "hfcore/plugin/backend.hpp"
#include "hfcore/plugin/likelihood.hpp"

namespace hf::ocl {

struct ClStorage final : Storage {
    cl_mem mem = nullptr;
    std::size_t bytes = 0;
    // For i64 data whose values the host saw (uploads, arange): the smallest and largest value and where they
    // are, so that gather can refuse out-of-range indices without reading anything back. Tensors never change
    // after creation, so the range stays true.
    bool known_range = false;
    std::int64_t lo = 0, hi = 0, lo_pos = 0, hi_pos = 0;
    ~ClStorage() override {
        if (mem) clReleaseMemObject(mem);
    }
};

inline cl_mem mem_of(const Tensor& t) { return PluginBackend::storage_as<ClStorage>(t).mem; }

// A __local kernel argument of the given size.
struct LocalMem {
    std::size_t bytes;
};

// The broadcast description every elementwise kernel takes: ndim (-1: all operands share the output's shape),
// the output shape and up to three operands' strides.
struct ClPlan {
    cl_int ndim = -1;
    cl_long8 shape{}, s0{}, s1{}, s2{};
};
ClPlan to_cl_plan(const BroadcastPlan& plan);

class OpenCLBackend final : public PluginBackend {
public:
    explicit OpenCLBackend(const BackendOptions& options);
    ~OpenCLBackend() override;

    std::string name() const override { return "opencl"; }
    std::string device_name() const override;
    void synchronize() override;

    DeviceContext& device() const { return *dev_; }
    cl_command_queue queue() const { return queue_; }

    // The program holding the kernels of a dtype (PluginError for f64 on a device without fp64).
    ProgramId program_for(DType t) const;
    ProgramId real_program(DType t) const;

    // Runs kernel `name` over `items` work-items (rounded up to whole groups; kernels test their bound).
    template <class... Args>
    void run(ProgramId prog, const std::string& name, std::size_t items, const Args&... args) {
        if (items == 0) return;
        std::lock_guard<std::mutex> lock(mutex_);
        KernelEntry& k = kernel(prog, name);
        set_args(k.kernel, name, args...);
        const std::size_t local = k.launch_group;
        enqueue(k.kernel, name, (items + local - 1) / local * local, local);
    }

    // Runs `groups` work-groups of `local` work-items (a size from group_size()).
    template <class... Args>
    void run_groups(ProgramId prog, const std::string& name, std::size_t groups, std::size_t local,
                    const Args&... args) {
        if (groups == 0) return;
        std::lock_guard<std::mutex> lock(mutex_);
        KernelEntry& k = kernel(prog, name);
        set_args(k.kernel, name, args...);
        enqueue(k.kernel, name, groups * local, local);
    }

    // Largest power of two <= cap that kernel `name` accepts as a work-group size.
    std::size_t group_size(ProgramId prog, const std::string& name, std::size_t cap);

    // Device-side copy of bytes between buffers.
    void copy_buffer(cl_mem from, cl_mem to, std::size_t bytes);

protected:
    HFCORE_TIER1_KERNEL_OVERRIDES
    std::unique_ptr<FusedLikelihood> k_compile_likelihood(const PackedLikelihood& packed) override;
    // Batched calls pay: an OpenCL call is enqueued, run and read back, and that latency (microseconds on
    // PoCL, tens on a GPU) is more than a small model's work per point.
    bool k_batched_calls_pay() const override { return true; }

private:
    struct KernelEntry {
        cl_kernel kernel = nullptr;
        std::size_t max_group = 1;     // CL_KERNEL_WORK_GROUP_SIZE
        std::size_t launch_group = 1;  // group size for run()
    };

    KernelEntry& kernel(ProgramId prog, const std::string& name);  // mutex_ held
    void enqueue(cl_kernel k, const std::string& name, std::size_t global, std::size_t local);

    static void set_one(cl_kernel k, const std::string& name, cl_uint i, std::size_t size, const void* p);
    static void set_arg(cl_kernel k, const std::string& name, cl_uint i, const Tensor& t) {
        cl_mem m = mem_of(t);
        set_one(k, name, i, sizeof(cl_mem), &m);
    }
    static void set_arg(cl_kernel k, const std::string& name, cl_uint i, cl_mem m) {
        set_one(k, name, i, sizeof(cl_mem), &m);
    }
    static void set_arg(cl_kernel k, const std::string& name, cl_uint i, const LocalMem& l) {
        set_one(k, name, i, l.bytes, nullptr);
    }
    static void set_arg(cl_kernel k, const std::string& name, cl_uint i, const ClPlan& p) = delete;
    template <class T>
        requires(std::is_arithmetic_v<T> || std::is_same_v<T, cl_long8>)
    static void set_arg(cl_kernel k, const std::string& name, cl_uint i, const T& v) {
        static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 64, "pass cl_int, cl_long, cl_float...");
        set_one(k, name, i, sizeof(T), &v);
    }
    template <class... Args>
    static void set_args(cl_kernel k, const std::string& name, const Args&... args) {
        cl_uint i = 0;
        (set_arg(k, name, i++, args), ...);
    }

    DeviceContext* dev_ = nullptr;
    cl_command_queue queue_ = nullptr;
    std::mutex mutex_;
    std::map<std::pair<int, std::string>, KernelEntry> kernels_;
};

}  // namespace hf::ocl
