// Shape and indexing kernels: transposes, row copies, gathers, masked selection and sorting. Every launcher
// enqueues on the given stream and returns without waiting.
#include "device.cuh"

namespace hf::cuda {
namespace {

template <class T>
__global__ void transpose_kernel(const T* x, T* out, std::int64_t n, const Permute p) {
    HF_GRID_STRIDE(i, n) {
        std::int64_t rem = i, off = 0;
        for (int d = p.ndim - 1; d >= 0; --d) {
            const std::int64_t idx = rem % p.shape[d];
            rem /= p.shape[d];
            off += idx * p.in_stride[d];
        }
        out[i] = x[off];
    }
}

template <class T>
__global__ void copy_rows_kernel(const T* x, std::int64_t outer, std::int64_t inner, T* out,
                                 std::int64_t out_inner, std::int64_t offset) {
    HF_GRID_STRIDE(i, outer * inner) {
        const std::int64_t o = i / inner, j = i % inner;
        out[o * out_inner + offset + j] = x[i];
    }
}

template <class T>
__global__ void gather_kernel(const T* x, const std::int64_t* index, std::int64_t outer, std::int64_t n,
                              std::int64_t m, std::int64_t inner, T* out) {
    HF_GRID_STRIDE(i, outer * m * inner) {
        const std::int64_t in = i % inner, r = i / inner;
        const std::int64_t j = r % m, o = r / m, src = index[j];
        // k_gather checks the indices first; the guard keeps the context alive should that ever be bypassed.
        out[i] = (src >= 0 && src < n) ? x[(o * n + src) * inner + in] : T(0);
    }
}

__global__ void index_check_kernel(const std::int64_t* index, std::int64_t m, std::int64_t n,
                                   unsigned long long* bad) {
    HF_GRID_STRIDE(i, m) {
        if (index[i] < 0 || index[i] >= n) atomicAdd(bad, 1ull);
    }
}

// ---- masked_select: one element per thread, blocks of kThreads ----

__global__ void select_count_kernel(const std::uint8_t* mask, std::int64_t n, std::int64_t* counts) {
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
    const int flag = i < n && mask[i] != 0;
    const int c = __syncthreads_count(flag);
    if (threadIdx.x == 0) counts[blockIdx.x] = c;
}

// Exclusive scan of counts[0, blocks) in place by one block, the total at counts[blocks].
constexpr int kScanThreads = 1024;
__global__ void select_scan_kernel(std::int64_t* counts, std::int64_t blocks) {
    __shared__ std::int64_t sh[kScanThreads];
    const int t = threadIdx.x;
    std::int64_t carry = 0;
    for (std::int64_t base = 0; base < blocks; base += kScanThreads) {
        const std::int64_t idx = base + t;
        const std::int64_t v = idx < blocks ? counts[idx] : 0;
        sh[t] = v;
        __syncthreads();
        for (int s = 1; s < kScanThreads; s <<= 1) {  // Hillis-Steele inclusive scan
            std::int64_t add = t >= s ? sh[t - s] : 0;
            __syncthreads();
            sh[t] += add;
            __syncthreads();
        }
        if (idx < blocks) counts[idx] = carry + sh[t] - v;
        carry += sh[kScanThreads - 1];
        __syncthreads();
    }
    if (t == 0) counts[blocks] = carry;
}

template <class T>
__global__ void select_write_kernel(const T* x, const std::uint8_t* mask, std::int64_t n,
                                    const std::int64_t* offsets, T* out) {
    __shared__ int warp_total[kThreads / 32];
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
    const bool flag = i < n && mask[i] != 0;
    const unsigned ballot = __ballot_sync(0xffffffffu, flag);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int before_in_warp = __popc(ballot & ((1u << lane) - 1u));
    if (lane == 0) warp_total[warp] = __popc(ballot);
    __syncthreads();
    int before = before_in_warp;
    for (int w = 0; w < warp; ++w) before += warp_total[w];
    if (flag) out[offsets[blockIdx.x] + before] = x[i];
}

// ---- sort: bitonic network over segments padded to a power of two (NaN, or the largest integer) ----

template <class T>
__device__ inline bool less_nan_last(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) return a < b || (a == a && b != b);
    else return a < b;
}

template <class T>
__device__ inline T sort_pad() {
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(NAN);
    else return highest_value<T>();
}

// Orders the pair (lo, hi) ascending when asc, descending otherwise.
template <class T>
__device__ inline void compare_swap(T& lo, T& hi, bool asc) {
    const bool swap = asc ? less_nan_last(hi, lo) : less_nan_last(lo, hi);
    if (swap) {
        T tmp = lo;
        lo = hi;
        hi = tmp;
    }
}

// Whole segments of up to kSortSharedMax padded elements: one block per segment, in shared memory.
template <class T>
__global__ void sort_shared_kernel(const T* x, std::int64_t segments, std::int64_t n, std::int64_t inner, int P,
                                   T* out) {
    extern __shared__ __align__(16) unsigned char raw[];
    T* sh = reinterpret_cast<T*>(raw);
    for (std::int64_t seg = blockIdx.x; seg < segments; seg += gridDim.x) {
        const std::int64_t o = seg / inner, in = seg % inner;
        for (int j = threadIdx.x; j < P; j += blockDim.x) sh[j] = j < n ? x[(o * n + j) * inner + in] : sort_pad<T>();
        __syncthreads();
        for (int k = 2; k <= P; k <<= 1) {
            for (int j = k >> 1; j > 0; j >>= 1) {
                for (int q = threadIdx.x; q < P / 2; q += blockDim.x) {
                    const int a = 2 * j * (q / j) + (q % j);
                    compare_swap(sh[a], sh[a + j], (a & k) == 0);
                }
                __syncthreads();
            }
        }
        for (int j = threadIdx.x; j < n; j += blockDim.x) out[(o * n + j) * inner + in] = sh[j];
        __syncthreads();
    }
}

template <class T>
__global__ void sort_pack_kernel(const T* x, std::int64_t segments, std::int64_t n, std::int64_t inner,
                                 std::int64_t P, T* work) {
    HF_GRID_STRIDE(i, segments * P) {
        const std::int64_t seg = i / P, j = i % P;
        const std::int64_t o = seg / inner, in = seg % inner;
        work[i] = j < n ? x[(o * n + j) * inner + in] : sort_pad<T>();
    }
}

template <class T>
__global__ void sort_unpack_kernel(const T* work, std::int64_t segments, std::int64_t n, std::int64_t inner,
                                   std::int64_t P, T* out) {
    HF_GRID_STRIDE(i, segments * n) {
        const std::int64_t seg = i / n, j = i % n;
        const std::int64_t o = seg / inner, in = seg % inner;
        out[(o * n + j) * inner + in] = work[seg * P + j];
    }
}

// One step (k, j) of the network over every segment of the work buffer.
template <class T>
__global__ void sort_step_kernel(T* work, std::int64_t segments, std::int64_t P, std::int64_t k, std::int64_t j) {
    HF_GRID_STRIDE(q, segments * (P / 2)) {
        const std::int64_t seg = q / (P / 2), r = q % (P / 2);
        const std::int64_t a = 2 * j * (r / j) + (r % j);
        T* s = work + seg * P;
        compare_swap(s[a], s[a + j], (a & k) == 0);
    }
}

// Steps of the network that stay inside chunks of C = kSortSharedMax elements, in shared memory: with
// k <= C every step k = 2..C (sorting the chunks), else the steps j = C/2 .. 1 of stage k.
template <class T>
__global__ void sort_chunk_kernel(T* work, std::int64_t chunks, std::int64_t P, std::int64_t k_stage) {
    constexpr int C = static_cast<int>(kSortSharedMax);
    __shared__ T sh[C];
    for (std::int64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
        T* base = work + c * C;  // chunks never straddle segments: P is a multiple of C
        const std::int64_t pos0 = (c * C) % P;  // position of the chunk inside its segment
        for (int j = threadIdx.x; j < C; j += blockDim.x) sh[j] = base[j];
        __syncthreads();
        const std::int64_t k_first = k_stage <= C ? 2 : k_stage;
        for (std::int64_t k = k_first; k <= k_stage; k <<= 1) {
            for (int j = static_cast<int>((k >> 1) < C / 2 ? (k >> 1) : C / 2); j > 0; j >>= 1) {
                for (int q = threadIdx.x; q < C / 2; q += blockDim.x) {
                    const int a = 2 * j * (q / j) + (q % j);
                    compare_swap(sh[a], sh[a + j], ((pos0 + a) & k) == 0);
                }
                __syncthreads();
            }
        }
        for (int j = threadIdx.x; j < C; j += blockDim.x) base[j] = sh[j];
        __syncthreads();
    }
}

template <class T>
void sort_typed(cudaStream_t s, const T* x, std::int64_t outer, std::int64_t n, std::int64_t inner, T* out,
                T* work) {
    const std::int64_t segments = outer * inner;
    const std::int64_t P = sort_padded(n);
    if (P <= kSortSharedMax) {
        const int threads = static_cast<int>(P / 2 < 32 ? 32 : (P / 2 > 1024 ? 1024 : P / 2));
        const unsigned blocks = static_cast<unsigned>(segments < (1 << 20) ? segments : (1 << 20));
        sort_shared_kernel<T><<<blocks, threads, P * sizeof(T), s>>>(x, segments, n, inner, static_cast<int>(P),
                                                                     out);
        return;
    }
    const std::int64_t C = kSortSharedMax, chunks = segments * P / C;
    const unsigned chunk_blocks = static_cast<unsigned>(chunks < (1 << 20) ? chunks : (1 << 20));
    sort_pack_kernel<T><<<grid_for(segments * P), kThreads, 0, s>>>(x, segments, n, inner, P, work);
    sort_chunk_kernel<T><<<chunk_blocks, 1024, 0, s>>>(work, chunks, P, C);
    for (std::int64_t k = 2 * C; k <= P; k <<= 1) {
        for (std::int64_t j = k >> 1; j >= C; j >>= 1)
            sort_step_kernel<T><<<grid_for(segments * P / 2), kThreads, 0, s>>>(work, segments, P, k, j);
        sort_chunk_kernel<T><<<chunk_blocks, 1024, 0, s>>>(work, chunks, P, k);
    }
    sort_unpack_kernel<T><<<grid_for(segments * n), kThreads, 0, s>>>(work, segments, n, inner, P, out);
}

}  // namespace

void launch_transpose(cudaStream_t s, int elem_size, const void* x, void* out, const Permute& p) {
    std::int64_t n = 1;
    for (int d = 0; d < p.ndim; ++d) n *= p.shape[d];
    dispatch_size(elem_size, [&](auto t) {
        using T = typename decltype(t)::type;
        transpose_kernel<T><<<grid_for(n), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(out), n, p);
    });
}

void launch_copy_rows(cudaStream_t s, int elem_size, const void* x, std::int64_t outer, std::int64_t inner,
                      void* out, std::int64_t out_inner, std::int64_t offset) {
    dispatch_size(elem_size, [&](auto t) {
        using T = typename decltype(t)::type;
        copy_rows_kernel<T><<<grid_for(outer * inner), kThreads, 0, s>>>(static_cast<const T*>(x), outer, inner,
                                                                         static_cast<T*>(out), out_inner, offset);
    });
}

void launch_gather(cudaStream_t s, int elem_size, const void* x, const std::int64_t* index, std::int64_t outer,
                   std::int64_t n, std::int64_t m, std::int64_t inner, void* out) {
    dispatch_size(elem_size, [&](auto t) {
        using T = typename decltype(t)::type;
        gather_kernel<T><<<grid_for(outer * m * inner), kThreads, 0, s>>>(static_cast<const T*>(x), index, outer, n,
                                                                          m, inner, static_cast<T*>(out));
    });
}

void launch_index_check(cudaStream_t s, const std::int64_t* index, std::int64_t m, std::int64_t n,
                        std::int64_t* bad) {
    index_check_kernel<<<grid_for(m), kThreads, 0, s>>>(index, m, n, reinterpret_cast<unsigned long long*>(bad));
}

std::int64_t select_blocks(std::int64_t n) { return (n + kThreads - 1) / kThreads; }

void launch_select_count(cudaStream_t s, const std::uint8_t* mask, std::int64_t n, std::int64_t* counts) {
    const std::int64_t blocks = select_blocks(n);
    if (blocks > 0) select_count_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(mask, n, counts);
}

void launch_select_scan(cudaStream_t s, std::int64_t* counts, std::int64_t blocks) {
    select_scan_kernel<<<1, kScanThreads, 0, s>>>(counts, blocks);
}

void launch_select_write(cudaStream_t s, int elem_size, const void* x, const std::uint8_t* mask, std::int64_t n,
                         const std::int64_t* offsets, void* out) {
    const std::int64_t blocks = select_blocks(n);
    if (blocks == 0) return;
    dispatch_size(elem_size, [&](auto t) {
        using T = typename decltype(t)::type;
        select_write_kernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(
            static_cast<const T*>(x), mask, n, offsets, static_cast<T*>(out));
    });
}

std::int64_t sort_padded(std::int64_t n) {
    std::int64_t P = 1;
    while (P < n) P <<= 1;
    return P;
}

void launch_sort(cudaStream_t s, int dt, const void* x, std::int64_t outer, std::int64_t n, std::int64_t inner,
                 void* out, void* work) {
    dispatch(dt, [&](auto t) {
        using T = typename decltype(t)::type;
        if constexpr (!is_bool_v<T>)
            sort_typed<T>(s, static_cast<const T*>(x), outer, n, inner, static_cast<T*>(out), static_cast<T*>(work));
    });
}

}  // namespace hf::cuda
