// matmul through CLBlast (floating types) or a plain kernel (integers).
#include <clblast.h>

#include "cl_programs.hpp"
#include "hfcore/errors.hpp"
#include "backend.hpp"

namespace hf::ocl {

namespace {

void check_blast(clblast::StatusCode status, const char* what) {
    if (status == clblast::StatusCode::kSuccess) return;
    const int code = static_cast<int>(status);
    std::string msg = std::string("opencl: CLBlast ") + what + " failed with status " + std::to_string(code);
    if (status == clblast::StatusCode::kTempBufferAllocFailure || status == clblast::StatusCode::kOpenCLOutOfResources ||
        status == clblast::StatusCode::kOpenCLOutOfHostMemory)
        throw OutOfMemory(msg + " (" + cl_error_name(code) + "): the device ran out of memory");
    if (code > -1000) msg += std::string(" (") + cl_error_name(code) + ")";
    throw PluginError(msg);
}

template <class T>
void gemm(cl_command_queue queue, const Tensor& a, const Tensor& b, std::int64_t batch, std::int64_t m,
          std::int64_t k, std::int64_t n, bool a_batched, bool b_batched, Tensor& out) {
    using clblast::Layout;
    using clblast::Transpose;
    const auto M = static_cast<std::size_t>(m), K = static_cast<std::size_t>(k), N = static_cast<std::size_t>(n);
    if (batch == 1 || (a_batched && !b_batched)) {
        // One GEMM: an unbatched b is shared, so the batch folds into a's rows.
        const std::size_t rows = M * static_cast<std::size_t>(batch);
        check_blast(clblast::Gemm<T>(Layout::kRowMajor, Transpose::kNo, Transpose::kNo, rows, N, K, T(1), mem_of(a), 0,
                                     K, mem_of(b), 0, N, T(0), mem_of(out), 0, N, &queue, nullptr),
                    "Gemm");
        return;
    }
    check_blast(clblast::GemmStridedBatched<T>(Layout::kRowMajor, Transpose::kNo, Transpose::kNo, M, N, K, T(1),
                                               mem_of(a), 0, K, a_batched ? M * K : 0, mem_of(b), 0, N,
                                               b_batched ? K * N : 0, T(0), mem_of(out), 0, N, M * N,
                                               static_cast<std::size_t>(batch), &queue, nullptr),
                "GemmStridedBatched");
}

}  // namespace

void OpenCLBackend::k_matmul(const Tensor& a, const Tensor& b, std::int64_t batch, std::int64_t m, std::int64_t k,
                             std::int64_t n, bool a_batched, bool b_batched, Tensor& out) {
    if (a.dtype() != b.dtype()) throw ShapeError("opencl: matmul of different dtypes");
    const DType t = a.dtype();
    if (batch == 0 || m == 0 || n == 0) return;
    if (k == 0) {  // an empty sum: zeros (and CLBlast refuses k == 0)
        k_fill(out, 0.0);
        return;
    }
    if (t == DType::f32 || t == DType::f64) {
        program_for(t);
        // beta = 0 still reads C in some CLBlast kernels (0 * NaN = NaN): start from zeros.
        k_fill(out, 0.0);
        std::lock_guard<std::mutex> lock(mutex_);  // CLBlast enqueues on our queue; keep launches ordered
        if (t == DType::f32)
            gemm<float>(queue_, a, b, batch, m, k, n, a_batched, b_batched, out);
        else
            gemm<double>(queue_, a, b, batch, m, k, n, a_batched, b_batched, out);
        return;
    }
    if (t == DType::boolean) throw ShapeError("opencl: matmul of bool");
    const cl_long as = a_batched ? m * k : 0, bs = b_batched ? k * n : 0;
    run(program_for(t), std::string("matmul_") + dtype_suffix(t), static_cast<std::size_t>(batch * m * n),
        static_cast<cl_long>(batch), static_cast<cl_long>(m), static_cast<cl_long>(k), static_cast<cl_long>(n), as, bs,
        a, b, out);
}

}  // namespace hf::ocl
