#include "backend.hpp"

#include <cstring>

#include "cl_programs.hpp"
#include "likelihood.hpp"
#include "hfcore/errors.hpp"

namespace hf::ocl {

namespace {

// Work-items per group for plain elementwise launches. A fixed size (not the driver's choice) matters on PoCL,
// which compiles a kernel once per distinct local size.
constexpr std::size_t kLaunchGroup = 64;

std::size_t pow2_floor(std::size_t v) {
    std::size_t p = 1;
    while (p * 2 <= v) p *= 2;
    return p;
}

}  // namespace

ClPlan to_cl_plan(const BroadcastPlan& plan) {
    if (plan.ndim > BroadcastPlan::kMaxDims) throw ShapeError("opencl: broadcast over more than 8 dimensions");
    ClPlan p;
    if (plan.trivial) return p;
    p.ndim = plan.ndim;
    for (int d = 0; d < BroadcastPlan::kMaxDims; ++d) {
        const bool in = d < plan.ndim;
        p.shape.s[d] = in ? plan.out_shape[d] : 1;
        p.s0.s[d] = in ? plan.strides[0][d] : 0;
        p.s1.s[d] = in ? plan.strides[1][d] : 0;
        p.s2.s[d] = in ? plan.strides[2][d] : 0;
    }
    return p;
}

OpenCLBackend::OpenCLBackend(const BackendOptions& options) : PluginBackend(options.precision) {
    dev_ = &DeviceContext::get(resolve_selection(options));
    if (options.precision == Precision::f64 && !dev_->fp64())
        throw PluginError("opencl: device \"" + dev_->name() + "\" (platform " +
                          std::to_string(dev_->platform_index()) + ", device " +
                          std::to_string(dev_->device_index()) + ") lacks cl_khr_fp64" + dev_->fp64_note() +
                          ", so 64b is unavailable on it; use precision 32b");
    cl_int err = CL_SUCCESS;
    queue_ = clCreateCommandQueue(dev_->context(), dev_->device(), 0, &err);
    check(err, "clCreateCommandQueue on \"" + dev_->name() + "\"");
}

OpenCLBackend::~OpenCLBackend() {
    if (queue_) clFinish(queue_);
    for (auto& [key, entry] : kernels_) clReleaseKernel(entry.kernel);
    if (queue_) clReleaseCommandQueue(queue_);
}

std::string OpenCLBackend::device_name() const {
    return dev_->name() + " (" + dev_->platform_name() + ", platform " + std::to_string(dev_->platform_index()) +
           " device " + std::to_string(dev_->device_index()) + ")";
}

void OpenCLBackend::synchronize() { check(clFinish(queue_), "clFinish"); }

std::unique_ptr<FusedLikelihood> OpenCLBackend::k_compile_likelihood(const PackedLikelihood& packed) {
    return std::make_unique<OpenCLFusedLikelihood>(*this, packed);
}

ProgramId OpenCLBackend::program_for(DType t) const {
    switch (t) {
        case DType::f32: return ProgramId::f32;
        case DType::f64:
            if (!dev_->fp64())
                throw PluginError("opencl: device \"" + dev_->name() + "\" lacks cl_khr_fp64" + dev_->fp64_note() +
                                  ": no f64 tensors");
            return ProgramId::f64;
        case DType::i32: return ProgramId::i32;
        case DType::i64: return ProgramId::i64;
        case DType::boolean: return ProgramId::b8;
    }
    return ProgramId::f32;
}

ProgramId OpenCLBackend::real_program(DType t) const {
    if (t == DType::f32) return ProgramId::real32;
    if (t == DType::f64) {
        program_for(t);
        return ProgramId::real64;
    }
    throw ShapeError(std::string("opencl: expected a floating dtype, got ") + dtype_name(t));
}

OpenCLBackend::KernelEntry& OpenCLBackend::kernel(ProgramId prog, const std::string& name) {
    auto key = std::make_pair(static_cast<int>(prog), name);
    auto it = kernels_.find(key);
    if (it != kernels_.end()) return it->second;
    cl_program program = dev_->program(prog);
    cl_int err = CL_SUCCESS;
    KernelEntry e;
    e.kernel = clCreateKernel(program, name.c_str(), &err);
    check(err, "clCreateKernel(" + name + ") in program " + program_name(prog));
    std::size_t wg = 1;
    clGetKernelWorkGroupInfo(e.kernel, dev_->device(), CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg, nullptr);
    e.max_group = wg ? wg : 1;
    e.launch_group = pow2_floor(std::min(kLaunchGroup, e.max_group));
    return kernels_.emplace(key, e).first->second;
}

void OpenCLBackend::set_one(cl_kernel k, const std::string& name, cl_uint i, std::size_t size, const void* p) {
    cl_int err = clSetKernelArg(k, i, size, p);
    if (err != CL_SUCCESS) throw_cl(err, "clSetKernelArg(" + name + ", argument " + std::to_string(i) + ")");
}

void OpenCLBackend::enqueue(cl_kernel k, const std::string& name, std::size_t global, std::size_t local) {
    cl_int err = clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &global, &local, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) throw_cl(err, "launching kernel " + name);
}

std::size_t OpenCLBackend::group_size(ProgramId prog, const std::string& name, std::size_t cap) {
    std::lock_guard<std::mutex> lock(mutex_);
    return pow2_floor(std::min(cap, kernel(prog, name).max_group));
}

void OpenCLBackend::copy_buffer(cl_mem from, cl_mem to, std::size_t bytes) {
    if (bytes == 0) return;
    check(clEnqueueCopyBuffer(queue_, from, to, 0, 0, bytes, 0, nullptr, nullptr), "clEnqueueCopyBuffer");
}

// ---- memory ----

std::shared_ptr<Storage> OpenCLBackend::k_alloc(DType dtype, std::int64_t n) {
    if (dtype == DType::f64) program_for(dtype);  // refuses f64 on a device without fp64
    // At least 8 bytes: OpenCL has no empty buffers, and kernels always get a valid one.
    const std::size_t bytes = std::max<std::size_t>(static_cast<std::size_t>(n) * dtype_size(dtype), 8);
    if (bytes > dev_->max_alloc())
        throw OutOfMemory("opencl: cannot allocate " + std::to_string(bytes) + " bytes (" + std::to_string(n) +
                          " x " + dtype_name(dtype) + ") on \"" + dev_->name() +
                          "\": its largest single allocation is " + std::to_string(dev_->max_alloc()) + " bytes");
    cl_int err = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(dev_->context(), CL_MEM_READ_WRITE, bytes, nullptr, &err);
    if (err != CL_SUCCESS) throw_cl(err, "clCreateBuffer(" + std::to_string(bytes) + " bytes)");
    auto s = std::make_shared<ClStorage>();
    s->mem = mem;
    s->bytes = bytes;
    return s;
}

void OpenCLBackend::k_upload(Tensor& out, const void* host) {
    const std::size_t bytes = static_cast<std::size_t>(out.size()) * dtype_size(out.dtype());
    if (bytes == 0) return;
    check(clEnqueueWriteBuffer(queue_, mem_of(out), CL_TRUE, 0, bytes, host, 0, nullptr, nullptr),
          "clEnqueueWriteBuffer (upload)");
    if (out.dtype() == DType::i64) {
        auto& st = PluginBackend::storage_as<ClStorage>(out);
        const auto* v = static_cast<const std::int64_t*>(host);
        st.known_range = true;
        st.lo = st.hi = v[0];
        for (std::int64_t i = 1; i < out.size(); ++i) {
            if (v[i] < st.lo) st.lo = v[i], st.lo_pos = i;
            if (v[i] > st.hi) st.hi = v[i], st.hi_pos = i;
        }
    }
}

void OpenCLBackend::k_download(const Tensor& x, void* host) {
    const std::size_t bytes = static_cast<std::size_t>(x.size()) * dtype_size(x.dtype());
    if (bytes == 0) return;
    check(clEnqueueReadBuffer(queue_, mem_of(x), CL_TRUE, 0, bytes, host, 0, nullptr, nullptr),
          "clEnqueueReadBuffer (download)");
}

void OpenCLBackend::k_fill(Tensor& out, double value) {
    const std::size_t n = static_cast<std::size_t>(out.size());
    if (n == 0) return;
    unsigned char pattern[8];
    std::size_t psize = dtype_size(out.dtype());
    switch (out.dtype()) {
        case DType::f32: { float v = static_cast<float>(value); std::memcpy(pattern, &v, 4); break; }
        case DType::f64: std::memcpy(pattern, &value, 8); break;
        case DType::i32: { cl_int v = static_cast<cl_int>(value); std::memcpy(pattern, &v, 4); break; }
        case DType::i64: { cl_long v = static_cast<cl_long>(value); std::memcpy(pattern, &v, 8); break; }
        case DType::boolean: pattern[0] = value != 0.0 ? 1 : 0; break;
    }
    check(clEnqueueFillBuffer(queue_, mem_of(out), pattern, psize, 0, n * psize, 0, nullptr, nullptr),
          "clEnqueueFillBuffer");
}

void OpenCLBackend::k_arange(Tensor& out) {
    if (out.dtype() == DType::boolean) throw ShapeError("opencl: arange of bool");
    const cl_long n = out.size();
    run(program_for(out.dtype()), std::string("arange_") + dtype_suffix(out.dtype()), n, n, out);
    if (out.dtype() == DType::i64 && n > 0) {
        auto& st = PluginBackend::storage_as<ClStorage>(out);
        st.known_range = true;
        st.lo = 0;
        st.hi = n - 1;
        st.lo_pos = 0;
        st.hi_pos = n - 1;
    }
}

void OpenCLBackend::k_cast(const Tensor& x, Tensor& out) {
    const cl_long n = x.size();
    if (x.dtype() == out.dtype()) {
        copy_buffer(mem_of(x), mem_of(out), static_cast<std::size_t>(n) * dtype_size(x.dtype()));
        return;
    }
    program_for(x.dtype());
    program_for(out.dtype());
    run(ProgramId::cast, std::string("cast_") + dtype_suffix(x.dtype()) + "_" + dtype_suffix(out.dtype()), n, n, x,
        out);
}

}  // namespace hf::ocl
