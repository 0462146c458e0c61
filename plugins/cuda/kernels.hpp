// The CUDA kernels' launchers: one enqueue per call on the given stream, no allocation, no synchronisation.
// Plain C++17 with integer codes so that the .cu files need none of hfcore's headers (nvcc compiles them as
// C++17; the rest of the plugin is C++20). The codes equal hf::DType, hf::UnaryOp, hf::BinaryOp,
// hf::ReduceOp and hf::RandomDist (checked by static_asserts in backend.cpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace hf::cuda {

enum Dt : int { kF32 = 0, kF64 = 1, kI32 = 2, kI64 = 3, kBool = 4 };
enum UOp : int {
    kNeg, kAbs, kExp, kLog, kSqrt, kSquare, kSign, kFloor, kLgamma, kErf, kErfinv, kNormalCdf, kNormalPpf,
    kIsfinite, kLogicalNot
};
enum BOp : int {
    kAdd, kSub, kMul, kDiv, kPow, kMinimum, kMaximum, kXlogy, kLt, kLe, kGt, kGe, kEq, kNe, kLogicalAnd,
    kLogicalOr
};
enum ROp : int { kSum, kProd, kMax, kMin };
enum Dist : int { kUniform, kNormal, kPoisson };

constexpr int kMaxDims = 8;

// Broadcast strides of up to three operands over the output (a copy of hf::BroadcastPlan).
struct Bcast {
    int ndim = 0;
    int trivial = 0;
    std::int64_t shape[kMaxDims] = {};
    std::int64_t stride[3][kMaxDims] = {};
};

// Output shape and the input stride of each output dimension, for transposes.
struct Permute {
    int ndim = 0;
    std::int64_t shape[kMaxDims] = {};
    std::int64_t in_stride[kMaxDims] = {};
};

// ---- elementwise (elementwise.cu) ----
void launch_fill(cudaStream_t s, int dt, void* out, std::int64_t n, double value);
void launch_arange(cudaStream_t s, int dt, void* out, std::int64_t n);
void launch_cast(cudaStream_t s, int from, const void* x, int to, void* out, std::int64_t n);
// Returns false when the op is not defined for the dtype.
bool launch_unary(cudaStream_t s, int op, int dt, const void* x, void* out, std::int64_t n);
bool launch_binary(cudaStream_t s, int op, int dt, const void* a, const void* b, void* out, std::int64_t n,
                   const Bcast& plan);
void launch_where(cudaStream_t s, int dt, const void* cond, const void* a, const void* b, void* out,
                  std::int64_t n, const Bcast& plan);

// ---- reductions (reduce.cu) and data movement (shape.cu) ----
// One pass of a pairwise reduction: x [outer, n, inner] -> out [outer, tiles, inner], each output the
// balanced-tree reduction of one tile of reduce_tile(n, inner) consecutive elements along n.
std::int64_t reduce_tile(std::int64_t n, std::int64_t inner);
void launch_reduce_pass(cudaStream_t s, int op, int dt, const void* x, std::int64_t outer, std::int64_t n,
                        std::int64_t inner, void* out);
void launch_transpose(cudaStream_t s, int elem_size, const void* x, void* out, const Permute& p);
// out[o, offset + j] = x[o, j] for rows of `inner` elements; out rows hold `out_inner` elements.
void launch_copy_rows(cudaStream_t s, int elem_size, const void* x, std::int64_t outer, std::int64_t inner,
                      void* out, std::int64_t out_inner, std::int64_t offset);
void launch_gather(cudaStream_t s, int elem_size, const void* x, const std::int64_t* index, std::int64_t outer,
                   std::int64_t n, std::int64_t m, std::int64_t inner, void* out);

// Adds the number of indices outside [0, n) to *bad (zeroed by the caller).
void launch_index_check(cudaStream_t s, const std::int64_t* index, std::int64_t m, std::int64_t n,
                        std::int64_t* bad);

// masked_select in three steps: per-block counts, an exclusive scan of them (total at counts[blocks]),
// then the compaction.
std::int64_t select_blocks(std::int64_t n);
void launch_select_count(cudaStream_t s, const std::uint8_t* mask, std::int64_t n, std::int64_t* counts);
void launch_select_scan(cudaStream_t s, std::int64_t* counts, std::int64_t blocks);
void launch_select_write(cudaStream_t s, int elem_size, const void* x, const std::uint8_t* mask, std::int64_t n,
                         const std::int64_t* offsets, void* out);

// Sort along n of x [outer, n, inner] (ascending, NaN last). Segments of up to kSortSharedMax padded
// elements sort in shared memory in one launch; longer ones in a padded work buffer `work` of
// outer * inner * sort_padded(n) elements.
constexpr std::int64_t kSortSharedMax = 2048;
std::int64_t sort_padded(std::int64_t n);
void launch_sort(cudaStream_t s, int dt, const void* x, std::int64_t outer, std::int64_t n, std::int64_t inner,
                 void* out, void* work);

// ---- random numbers (random.cu, built without FMA contraction to match the cpu plugin) ----
void launch_random(cudaStream_t s, int dist, int dt, const void* rate, std::uint64_t seed, std::uint64_t offset,
                   void* out, std::int64_t n);

// ---- fused likelihood (likelihood.cu) ----
// Device copies of a PackedLikelihood in one precision, plus the lookup tables built at compile time.
struct LikelihoodView {
    std::int64_t n_pars = 0, n_main = 0, n_aux = 0, n_gauss = 0, n_pois = 0, n_slots = 0;
    // bins: elements of bin b are bin_elems[bin_offsets[b] .. bin_offsets[b+1])
    const std::int32_t* bin_offsets = nullptr;
    const std::int32_t* bin_elems = nullptr;
    const void* elem_nominal = nullptr;  // real
    const std::int32_t* factor_offsets = nullptr;
    const std::int32_t* delta_offsets = nullptr;
    const std::int32_t* factor_par = nullptr;
    const std::int32_t* factor_kind = nullptr;
    const void* factor_lo = nullptr;    // real
    const void* factor_hi = nullptr;    // real
    const void* factor_coef = nullptr;  // real [F*6]
    const std::int32_t* delta_par = nullptr;
    const std::int32_t* delta_kind = nullptr;
    const void* delta_lo = nullptr;   // real
    const void* delta_nom = nullptr;  // real
    const void* delta_hi = nullptr;   // real
    const std::int32_t* gauss_par = nullptr;
    const std::int32_t* gauss_aux = nullptr;
    const void* gauss_sigma = nullptr;  // real
    const std::int32_t* pois_par = nullptr;
    const std::int32_t* pois_aux = nullptr;
    const void* pois_tau = nullptr;  // real
    // gradient slots, grouped by parameter: slot of each factor, delta, gauss and pois term, and the
    // parameter's range par_offsets[p] .. par_offsets[p+1]
    const std::int32_t* factor_slot = nullptr;
    const std::int32_t* delta_slot = nullptr;
    const std::int32_t* gauss_slot = nullptr;
    const std::int32_t* pois_slot = nullptr;
    const std::int32_t* par_offsets = nullptr;
    // expected aux: per aux index its parameter (-1: none) and scale (1 or tau)
    const std::int32_t* aux_par = nullptr;
    const void* aux_scale = nullptr;  // real
};

// terms [K, N + G + Q]: the Poisson term of each bin, then each constraint term. With contrib non-null also
// fills contrib [K, n_slots] with the gradient contributions of every modifier and constraint.
// data_stride is 0 (one data set for every point) or N + A.
void launch_likelihood_terms(cudaStream_t s, int dt, const LikelihoodView& v, const void* pars, std::int64_t K,
                             const void* data, std::int64_t data_stride, void* terms, void* contrib);
// grad [K, P] = per-parameter sums of contrib [K, n_slots] (compensated per lane, tree across lanes).
void launch_likelihood_grad(cudaStream_t s, int dt, const LikelihoodView& v, std::int64_t K, const void* contrib,
                            void* grad);
// FusedLikelihood::input_gradient's terms by the packed arrays, each [K, its length] (hf::PackedGradient); data
// [K, N + A] must hold zeros where no constraint reads an aux datum.
struct InputGradOutputs {
    std::int64_t n_elem = 0, n_factors = 0, n_deltas = 0;
    void *elem_nominal = nullptr, *factor_lo = nullptr, *factor_hi = nullptr, *factor_coef = nullptr;
    void *delta_lo = nullptr, *delta_nom = nullptr, *delta_hi = nullptr;
    void *gauss_sigma = nullptr, *pois_tau = nullptr, *data = nullptr;
};
// With cot_main [K, N] non-null, expected_data_vjp's terms instead (data unread; cot_aux [K, A]), and contrib
// [K, n_slots] filled for launch_likelihood_grad.
void launch_likelihood_input_grad(cudaStream_t s, int dt, const LikelihoodView& v, const void* pars, std::int64_t K,
                                  const void* data, std::int64_t data_stride, const InputGradOutputs& out,
                                  const void* cot_main = nullptr, const void* cot_aux = nullptr,
                                  void* contrib = nullptr);
void launch_expected_main(cudaStream_t s, int dt, const LikelihoodView& v, const void* pars, std::int64_t K,
                          void* out);
void launch_expected_aux(cudaStream_t s, int dt, const LikelihoodView& v, const void* pars, std::int64_t K,
                         void* out);

}  // namespace hf::cuda
