// The vectorisable loops of the cpu fused likelihood, compiled for several x86-64 levels (AVX-512, AVX2+FMA,
// baseline) and chosen at the first call, so that a portable build still uses the machine's vector width.
//
// The histosys part of a model whose bins carry most of its histosys parameters (the ATLAS sbottom models:
// 28 of 52 per bin) is a dense matrix C [rows x ld] times the per-point weight vector; on wide vectors that
// beats walking the sparse entries, which is bound by their index and gather loads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace hf::cpu::simd {

// Row stride multiple: matrices and weight vectors are zero-padded to it.
constexpr std::size_t kPad = 16;

inline std::size_t padded(std::size_t n) { return (n + kPad - 1) / kPad * kPad; }

// The vector level the kernels run at ("avx512", "avx2", "baseline"), and a line saying it and whether
// HFCORE_CPU_SIMD capped it. level_problem() is non-empty when HFCORE_CPU_SIMD names a level this CPU or build
// cannot run, or no level: the plugin then refuses to create a backend, saying so.
const char* level_name();
std::string level_description();
std::string level_problem();

// Results are bit-identical at the avx512 and avx2 levels (the same paths, lanes and fused multiply-adds);
// the baseline level (no FMA) differs from them in the last bits.

// True when `dense` multiply-adds over stored zeros and non-zeros are expected to beat `nonzeros` sparse ones
// on this CPU.
bool worthwhile(std::size_t dense, std::size_t nonzeros);

// The products below take a block of a row-major matrix: `rows` rows of stride `ld`, columns [0, width) of
// the block (width a multiple of kPad; C and w point at the block's first column), for count <= kMaxPoints
// points at once, each row of C read once for all of them. A point's result is the same whatever the other
// points, their count, and the machine's vector width.
constexpr int kMaxPoints = 4;

// out[t][r] += C[r, 0:width] . w[t][0:width]   (t < count)
void rows_dot_points(const double* C, std::size_t ld, std::size_t width, std::size_t rows, const double* const* w,
                     double* const* out, int count);
void rows_dot_points(const float* C, std::size_t ld, std::size_t width, std::size_t rows, const float* const* w,
                     float* const* out, int count);

// g[t][j] += sum_r coef[t][r] * C[r, j]   (j < width, t < count)
void weighted_row_sum_points(const double* C, std::size_t ld, std::size_t width, std::size_t rows,
                             const double* const* coef, double* const* g, int count);
void weighted_row_sum_points(const float* C, std::size_t ld, std::size_t width, std::size_t rows,
                             const double* const* coef, double* const* g, int count);

// normsys code4 polynomials (hf_factor_code4_poly) of n terms: alpha = par[par_idx[u]], coefficients
// coef[i * n + u] (i < 6); f[u] and df[u] receive the value and derivative. Terms outside |alpha| < 1 get the
// polynomial too; the caller replaces them with the exponential. Returns whether there are such terms.
bool code4_poly(const double* par, const std::int32_t* par_idx, const double* coef, std::size_t n, double* f,
                double* df);
bool code4_poly(const float* par, const std::int32_t* par_idx, const float* coef, std::size_t n, float* f, float* df);

}  // namespace hf::cpu::simd
