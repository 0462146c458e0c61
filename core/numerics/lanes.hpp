// Level-1 and level-2 vector kernels on host doubles: the dot products, updates and matrix-vector products of
// the batched fitter (core/infer/minimize: batch_fit.cpp, inverse_hessian.cpp, own_fisher.cpp) over the free
// parameters of a toy fit, which cost as much as the likelihood on models with hundreds of parameters.
//
// Sums run in vector lanes of four doubles at every vector level (hfcore/plugin/vector_level.hpp: AVX-512,
// AVX2, baseline SSE2 as two registers). The order of the additions is fixed by the code, not by the
// instruction set, and no multiply-add is fused, so a toy fit takes the same steps on every x86-64 CPU
// (docs/decisions/host-vector-levels.md).
#pragma once

#include <cstddef>

namespace hf::numerics::lanes {

// sum_i a[i] b[i]
double dot(const double* a, const double* b, std::size_t n);
// sum_i a[i] b[i] over the components with free[i] != 0
double masked_dot(const double* a, const double* b, const char* free, std::size_t n);
// q[i] += c v[i]
void axpy(double c, const double* v, double* q, std::size_t n);
// q[i] += c v[i]; returns sum_i w[i] q[i] of the updated q (the next dot product of the L-BFGS recursion, in the
// same pass over q)
double axpy_dot(double c, const double* v, double* q, const double* w, std::size_t n);
// q[i] += c[r] M[r, i] for r = 0 .. rows - 1 in turn (row-major [rows, n] M): axpy row by row, with the same
// additions in the same order, but q held in registers over all rows instead of loaded and stored at each row
void axpy_rows(const double* c, const double* M, std::size_t rows, std::size_t n, double* q);
// q[i] += c v[i] where free[i] != 0
void masked_axpy(double c, const double* v, const char* free, double* q, std::size_t n);

constexpr int kMaxVectors = 4;

// out[t] = dot(a, b[t], n) for t < count <= 4, each summed as dot() sums it (the same value), a loaded once
void dots(const double* a, const double* const* b, int count, std::size_t n, double* out);

// out[t][r] = dot(M + r * cols, q[t], cols) for r < rows, t < count <= 4: the row-major [rows, cols] matrix M
// times up to four vectors, each row loaded once for all of them.
void matvec(const double* M, std::size_t rows, std::size_t cols, const double* const* q, double* const* out,
            int count);

// The vector level these kernels run at in this process ("avx512", "avx2", "baseline"): the CPU's, or the one
// HFCORE_CPU_SIMD names. The results are the same at every level.
const char* level_name();

}  // namespace hf::numerics::lanes
