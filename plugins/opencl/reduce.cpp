// Reductions over the middle axis of [outer, n, inner] and sort along it.
#include <algorithm>

#include "cl_programs.hpp"
#include "hfcore/errors.hpp"
#include "backend.hpp"

namespace hf::ocl {

void OpenCLBackend::k_reduce(ReduceOp op, const Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner,
                             Tensor& out) {
    const DType t = x.dtype();
    if (t == DType::boolean && (op == ReduceOp::sum))
        throw ShapeError("opencl: sum of bool (cast to an integer dtype first)");
    const ProgramId prog = program_for(t);
    const std::string sfx = dtype_suffix(t);
    const std::int64_t outputs = outer * inner;
    if (outputs == 0) return;
    // Many outputs or short rows: one work-item per output keeps the device busy. Few long rows: one
    // work-group per output, so a 0-d sum over a big tensor is not a serial loop.
    if (outputs >= 1024 || n <= 256) {
        run(prog, "reduce_serial_" + sfx, static_cast<std::size_t>(outputs), static_cast<cl_int>(op),
            static_cast<cl_long>(outer), static_cast<cl_long>(n), static_cast<cl_long>(inner), x, out);
        return;
    }
    const std::string name = "reduce_group_" + sfx;
    const std::size_t local = group_size(prog, name, 256);
    const std::size_t esize = dtype_size(t);
    run_groups(prog, name, static_cast<std::size_t>(outputs), local, static_cast<cl_int>(op),
               static_cast<cl_long>(n), static_cast<cl_long>(inner), x, out, LocalMem{local * esize},
               LocalMem{local * esize});
}

void OpenCLBackend::k_sort(const Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner, Tensor& out) {
    const DType t = x.dtype();
    const ProgramId prog = program_for(t);
    copy_buffer(mem_of(x), mem_of(out), static_cast<std::size_t>(x.size()) * dtype_size(t));
    const std::int64_t lines = outer * inner;
    if (n <= 1 || lines == 0) return;
    std::int64_t n2 = 1;
    while (n2 < n) n2 *= 2;
    const cl_long half = n2 / 2;
    const std::string name = std::string("sort_step_") + dtype_suffix(t);
    // Bitonic network, all steps ascending: a merge of blocks of size k starts with a mirrored compare at
    // distance k/2, then plain compares at k/4 ... 1.
    for (std::int64_t k = 2; k <= n2; k *= 2) {
        for (std::int64_t j = k / 2; j >= 1; j /= 2) {
            const cl_int mirror = j == k / 2 ? 1 : 0;
            run(prog, name, static_cast<std::size_t>(lines * half), static_cast<cl_long>(lines),
                static_cast<cl_long>(n), static_cast<cl_long>(inner), half, static_cast<cl_long>(j), mirror, out);
        }
    }
}

}  // namespace hf::ocl
