// Data movement: transpose, concat, gather, masked_select. These only depend on the element size, so one
// kernel per size (1, 4, 8 bytes) serves every dtype.
#include <algorithm>

#include "cl_programs.hpp"
#include "hfcore/errors.hpp"
#include "backend.hpp"

namespace hf::ocl {

namespace {
std::string by_size(const char* base, DType t) { return std::string(base) + "_" + std::to_string(dtype_size(t)); }
}  // namespace

void OpenCLBackend::k_transpose(const Tensor& x, const std::vector<int>& perm, Tensor& out) {
    const int nd = x.ndim();
    if (nd > 8) throw ShapeError("opencl: transpose of more than 8 dimensions");
    program_for(x.dtype());
    std::int64_t in_stride[8] = {};
    std::int64_t s = 1;
    for (int d = nd - 1; d >= 0; --d) {
        in_stride[d] = s;
        s *= x.shape()[d];
    }
    cl_long8 shape{}, stride{};
    for (int d = 0; d < 8; ++d) {
        shape.s[d] = d < nd ? out.shape()[d] : 1;
        stride.s[d] = d < nd ? in_stride[perm[d]] : 0;
    }
    const cl_long n = x.size();
    run(ProgramId::copy, by_size("transpose", x.dtype()), n, n, static_cast<cl_int>(nd), shape, stride, x, out);
}

void OpenCLBackend::k_concat(const std::vector<Tensor>& xs, std::int64_t outer, Tensor& out) {
    if (xs.empty()) return;
    program_for(out.dtype());
    const cl_long out_inner = outer == 0 ? 0 : out.size() / outer;
    cl_long col = 0;
    const std::string name = by_size("copy2d", out.dtype());
    for (const Tensor& x : xs) {
        const cl_long inner = outer == 0 ? 0 : x.size() / outer;
        run(ProgramId::copy, name, static_cast<std::size_t>(x.size()), static_cast<cl_long>(outer), inner, out_inner,
            col, x, out);
        col += inner;
    }
}

void OpenCLBackend::k_gather(const Tensor& x, const Tensor& index, std::int64_t outer, std::int64_t n,
                             std::int64_t inner, Tensor& out) {
    if (index.dtype() != DType::i64) throw ShapeError("opencl: gather index must be i64");
    program_for(x.dtype());
    const cl_long m = index.size();
    // Indices whose values the host knows (uploaded or arange) are checked here, as the cpu plugin does, at no
    // transfer cost. Indices computed on the device are not read back: the kernel clamps them into [0, n).
    const auto& st = PluginBackend::storage_as<ClStorage>(index);
    if (m > 0 && (n == 0 || (st.known_range && (st.lo < 0 || st.hi >= n)))) {
        const bool low = n == 0 || st.lo < 0;
        throw ShapeError("opencl: gather index " + std::to_string(low ? st.lo : st.hi) + " at position " +
                         std::to_string(low ? st.lo_pos : st.hi_pos) + " is out of range [0, " + std::to_string(n) +
                         ")");
    }
    run(ProgramId::copy, by_size("gather", x.dtype()), static_cast<std::size_t>(out.size()),
        static_cast<cl_long>(outer), static_cast<cl_long>(n), static_cast<cl_long>(inner), m, x, index, out);
}

Tensor OpenCLBackend::k_masked_select(const Tensor& x, const Tensor& mask) {
    if (mask.dtype() != DType::boolean) throw ShapeError("opencl: masked_select needs a bool mask");
    program_for(x.dtype());
    const cl_long n = x.size();
    if (n == 0) return make_tensor(k_alloc(x.dtype(), 0), x.dtype(), {0});
    // Count per block, scan the counts, read back the total (the one value the host must know to allocate the
    // result), then scatter each block from its offset. Order is preserved.
    const cl_long block = 256;
    const cl_long nblocks = (n + block - 1) / block;
    auto counts = k_alloc(DType::i64, nblocks);
    auto offsets = k_alloc(DType::i64, nblocks + 1);
    cl_mem cm = static_cast<ClStorage&>(*counts).mem, om = static_cast<ClStorage&>(*offsets).mem;
    run(ProgramId::copy, "ms_count", static_cast<std::size_t>(nblocks), n, block, mask, cm);
    run(ProgramId::copy, "ms_scan", 1, nblocks, cm, om);
    cl_long total = 0;
    check(clEnqueueReadBuffer(queue_, om, CL_TRUE, sizeof(cl_long) * static_cast<std::size_t>(nblocks),
                              sizeof(cl_long), &total, 0, nullptr, nullptr),
          "clEnqueueReadBuffer (masked_select count)");
    Tensor out = make_tensor(k_alloc(x.dtype(), total), x.dtype(), {total});
    if (total > 0)
        run(ProgramId::copy, by_size("ms_scatter", x.dtype()), static_cast<std::size_t>(nblocks), n, block, mask, om,
            x, out);
    return out;
}

}  // namespace hf::ocl
