// Reductions over the middle axis of [outer, n, inner]: pairwise, in the working precision. Every launcher
// enqueues on the given stream and returns without waiting.
#include "device.cuh"

namespace hf::cuda {
namespace {

constexpr int kRowTile = 4 * kThreads;  // elements per block in a contiguous-row pass
constexpr int kColTile = 32;            // elements per thread in a strided pass

template <int Op, class T>
__device__ inline T identity() {
    if constexpr (Op == kSum) return T(0);
    else if constexpr (Op == kProd) return T(1);
    else if constexpr (Op == kMax) return lowest_value<T>();
    else return highest_value<T>();
}

// Combines two partial results; max and min propagate NaN as numpy does.
template <int Op, class T>
__device__ inline T combine(T a, T b) {
    if constexpr (Op == kSum) return static_cast<T>(a + b);
    else if constexpr (Op == kProd) return static_cast<T>(a * b);
    else {
        if constexpr (std::is_floating_point_v<T>) {
            if (a != a) return a;
            if (b != b) return b;
        }
        if constexpr (Op == kMax) return a < b ? b : a;
        else return b < a ? b : a;
    }
}

// Contiguous rows (inner == 1): a block reduces one tile of kRowTile elements of one row by a balanced tree
// (4 leaves per thread, then shared memory).
template <int Op, class T>
__global__ void reduce_rows_kernel(const T* x, std::int64_t outer, std::int64_t n, std::int64_t tiles, T* out) {
    __shared__ T sh[kThreads];
    const int t = threadIdx.x;
    for (std::int64_t blk = blockIdx.x; blk < outer * tiles; blk += gridDim.x) {
        const std::int64_t row = blk / tiles, tile = blk % tiles;
        const T* base = x + row * n + tile * kRowTile;
        const std::int64_t rem = n - tile * kRowTile;
        T v[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const std::int64_t idx = t + j * kThreads;
            v[j] = idx < rem ? base[idx] : identity<Op, T>();
        }
        sh[t] = combine<Op>(combine<Op>(v[0], v[1]), combine<Op>(v[2], v[3]));
        __syncthreads();
        for (int s = kThreads / 2; s > 0; s >>= 1) {
            if (t < s) sh[t] = combine<Op>(sh[t], sh[t + s]);
            __syncthreads();
        }
        if (t == 0) out[blk] = sh[0];
        __syncthreads();
    }
}

// Strided (inner > 1) or short rows: a thread reduces kColTile elements along n by an unrolled tree in
// registers; neighbouring threads read neighbouring inner elements (coalesced).
template <int Op, class T>
__global__ void reduce_cols_kernel(const T* x, std::int64_t outer, std::int64_t n, std::int64_t inner,
                                   std::int64_t tiles, T* out) {
    HF_GRID_STRIDE(idx, outer * tiles * inner) {
        const std::int64_t i = idx % inner, rest = idx / inner;
        const std::int64_t tile = rest % tiles, o = rest / tiles;
        const T* base = x + (o * n + tile * kColTile) * inner + i;
        const std::int64_t rem = n - tile * kColTile;
        T v[kColTile];
#pragma unroll
        for (int j = 0; j < kColTile; ++j) v[j] = j < rem ? base[j * inner] : identity<Op, T>();
#pragma unroll
        for (int w = kColTile / 2; w >= 1; w /= 2) {
#pragma unroll
            for (int j = 0; j < w; ++j) v[j] = combine<Op>(v[j], v[j + w]);
        }
        out[idx] = v[0];
    }
}

template <class T, class F>
void dispatch_reduce_op(int op, F&& f) {
    switch (op) {
        case kSum: f(std::integral_constant<int, kSum>{}); break;
        case kProd: f(std::integral_constant<int, kProd>{}); break;
        case kMax: f(std::integral_constant<int, kMax>{}); break;
        default: f(std::integral_constant<int, kMin>{}); break;
    }
}

}  // namespace

std::int64_t reduce_tile(std::int64_t n, std::int64_t inner) {
    return (inner == 1 && n > kColTile) ? kRowTile : kColTile;
}

void launch_reduce_pass(cudaStream_t s, int op, int dt, const void* x, std::int64_t outer, std::int64_t n,
                        std::int64_t inner, void* out) {
    const std::int64_t tile = reduce_tile(n, inner);
    const std::int64_t tiles = (n + tile - 1) / tile;
    dispatch(dt, [&](auto t) {
        using T = typename decltype(t)::type;
        if constexpr (!is_bool_v<T>) {
            dispatch_reduce_op<T>(op, [&](auto o) {
                constexpr int Op = decltype(o)::value;
                const T* px = static_cast<const T*>(x);
                T* po = static_cast<T*>(out);
                if (tile == kRowTile) {
                    const std::int64_t blocks = outer * tiles;
                    reduce_rows_kernel<Op, T><<<static_cast<unsigned>(blocks < (1 << 20) ? blocks : (1 << 20)),
                                                kThreads, 0, s>>>(px, outer, n, tiles, po);
                } else {
                    reduce_cols_kernel<Op, T><<<grid_for(outer * tiles * inner), kThreads, 0, s>>>(
                        px, outer, n, inner, tiles, po);
                }
            });
        }
    });
}

}  // namespace hf::cuda
