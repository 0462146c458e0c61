// Matrix products of the cuda plugin: cuBLAS GEMM (strided batched when there is a batch), row-major operands
// passed as their column-major transposes.
#include <climits>
#include <string>

#include "backend.hpp"
#include "kernels.hpp"

namespace hf::cuda {

void CudaBackend::k_matmul(const Tensor& a, const Tensor& b, std::int64_t batch, std::int64_t m, std::int64_t k,
                           std::int64_t n, bool a_batched, bool b_batched, Tensor& out) {
    activate();
    if (!is_floating(a.dtype()) || a.dtype() != b.dtype())
        throw ShapeError(std::string("cuda: matmul needs floating operands of one dtype, got ") +
                         dtype_name(a.dtype()) + " and " + dtype_name(b.dtype()));
    if (batch == 0 || m == 0 || n == 0) return;
    if (k == 0) {
        launch_fill(stream_, code(out.dtype()), dev_ptr(out), out.size(), 0.0);
        check_launch("matmul");
        return;
    }
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX || batch > INT_MAX)
        throw ShapeError("cuda: matmul dimensions beyond cuBLAS's 32-bit limits");
    // Row-major C = A B is column-major C^T = B^T A^T: pass B first, with the roles of m and n swapped.
    const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k);
    const long long sa = a_batched ? m * k : 0, sb = b_batched ? k * n : 0, sc = m * n;
    cublasStatus_t st;
    if (a.dtype() == DType::f64) {
        const double one = 1.0, zero = 0.0;
        const double *pa = dev_ptr_as<double>(a), *pb = dev_ptr_as<double>(b);
        double* pc = dev_ptr_as<double>(out);
        st = batch == 1 ? cublasDgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one, pb, in, pa, ik, &zero, pc, in)
                        : cublasDgemmStridedBatched(blas_, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one, pb, in, sb, pa,
                                                    ik, sa, &zero, pc, in, sc, static_cast<int>(batch));
    } else {
        const float one = 1.0f, zero = 0.0f;
        const float *pa = dev_ptr_as<float>(a), *pb = dev_ptr_as<float>(b);
        float* pc = dev_ptr_as<float>(out);
        st = batch == 1 ? cublasSgemm(blas_, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one, pb, in, pa, ik, &zero, pc, in)
                        : cublasSgemmStridedBatched(blas_, CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one, pb, in, sb, pa,
                                                    ik, sa, &zero, pc, in, sc, static_cast<int>(batch));
    }
    if (st == CUBLAS_STATUS_ALLOC_FAILED)
        throw OutOfMemory("cuda: out of device memory in a cuBLAS GEMM on " + device_name_);
    if (st != CUBLAS_STATUS_SUCCESS) throw Error("cuda: cuBLAS GEMM failed on " + device_name_ + ": " + cublas_text(st));
}

}  // namespace hf::cuda
