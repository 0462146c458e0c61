#include "simd.hpp"

#include "math.hpp"

// GCC and Clang on x86-64 build each entry point three times and pick one through an ifunc at load time.
// Not under ThreadSanitizer: the ifunc resolvers run while the plugin is being relocated, before the
// instrumentation they contain can be called (the plugin crashes in dlopen).
#if defined(__SANITIZE_THREAD__)
#define HF_CPU_NO_CLONES_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HF_CPU_NO_CLONES_UNDER_TSAN 1
#endif
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(HF_CPU_NO_CLONES_UNDER_TSAN)
#define HF_CPU_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define HF_CPU_HAVE_CLONES 1
#else
#define HF_CPU_VECTOR_CLONES
#define HF_CPU_HAVE_CLONES 0
#endif

namespace hf::cpu::simd {

namespace {

// 64-byte vectors of GCC's vector extension: one zmm register on AVX-512, two ymm on AVX2, four xmm on the
// baseline; aligned only to the element, as rows of C start anywhere.
template <class R>
struct Vec;
template <>
struct Vec<double> {
    typedef double type __attribute__((vector_size(64), aligned(8)));
};
template <>
struct Vec<float> {
    typedef float type __attribute__((vector_size(64), aligned(4)));
};

// Vectors go by reference: by value they would change the calling convention between the clones (-Wpsabi).
template <class R>
inline __attribute__((always_inline)) R hsum(const typename Vec<R>::type& v) {
    constexpr int L = 64 / sizeof(R);
    R s = 0;
    for (int i = 0; i < L; ++i) s += v[i];
    return s;
}

// Four rows at a time: four independent multiply-add chains that share the loads of w.
template <class R>
inline __attribute__((always_inline)) void rows_dot_impl(const R* __restrict C, std::size_t ld, std::size_t width,
                                                         std::size_t rows,
                                                         const R* __restrict w, R* __restrict out) {
    using V = typename Vec<R>::type;
    constexpr std::size_t L = 64 / sizeof(R);
    static_assert(kPad % L == 0, "rows are padded to whole vectors");
    const auto at = [](const R* p) -> const V& { return *reinterpret_cast<const V*>(p); };
    std::size_t r = 0;
    for (; r + 4 <= rows; r += 4) {
        const R* c0 = C + r * ld;
        V a0 = {}, a1 = {}, a2 = {}, a3 = {};
        for (std::size_t j = 0; j < width; j += L) {
            const V& x = at(w + j);
            a0 += at(c0 + j) * x;
            a1 += at(c0 + ld + j) * x;
            a2 += at(c0 + 2 * ld + j) * x;
            a3 += at(c0 + 3 * ld + j) * x;
        }
        out[r] += hsum<R>(a0);
        out[r + 1] += hsum<R>(a1);
        out[r + 2] += hsum<R>(a2);
        out[r + 3] += hsum<R>(a3);
    }
    for (; r < rows; ++r) {
        const R* c = C + r * ld;
        V acc = {};
        for (std::size_t j = 0; j < width; j += L) acc += at(c + j) * at(w + j);
        out[r] += hsum<R>(acc);
    }
}

template <class R>
inline __attribute__((always_inline)) void weighted_row_sum_impl(const R* __restrict C, std::size_t ld,
                                                                 std::size_t width, std::size_t rows,
                                                                 const double* __restrict coef,
                                                                 double* __restrict g) {
    for (std::size_t r = 0; r < rows; ++r) {
        const double a = coef[r];
        if (a == 0.0) continue;
        const R* c = C + r * ld;
        for (std::size_t j = 0; j < width; ++j) g[j] += a * static_cast<double>(c[j]);
    }
}

// The same sums for double C, NV vectors of columns at a time held in registers over all the rows: the loop
// above loads and stores g at every row, and each column's chain of additions then waits on a store. The order
// of the additions per column is the same, so the result is too.
template <int NV>
inline __attribute__((always_inline)) void weighted_columns(const double* __restrict C, std::size_t ld,
                                                            std::size_t rows, const double* __restrict coef,
                                                            double* __restrict g) {
    using V = Vec<double>::type;
    constexpr std::size_t L = 64 / sizeof(double);
    const auto at = [](const double* p) -> const V& { return *reinterpret_cast<const V*>(p); };
    V acc[NV];
    for (int v = 0; v < NV; ++v) acc[v] = at(g + v * L);
    for (std::size_t r = 0; r < rows; ++r) {
        const double a = coef[r];
        if (a == 0.0) continue;
        const double* c = C + r * ld;
        for (int v = 0; v < NV; ++v) acc[v] += a * at(c + v * L);
    }
    for (int v = 0; v < NV; ++v) *reinterpret_cast<V*>(g + v * L) = acc[v];
}

inline __attribute__((always_inline)) void weighted_row_sum_impl(const double* __restrict C, std::size_t ld,
                                                                 std::size_t width, std::size_t rows,
                                                                 const double* __restrict coef,
                                                                 double* __restrict g) {
    constexpr std::size_t L = 64 / sizeof(double);
    static_assert(kPad % L == 0, "rows are padded to whole vectors");
    std::size_t j = 0;
    for (; j + 4 * L <= width; j += 4 * L) weighted_columns<4>(C + j, ld, rows, coef, g + j);
    switch ((width - j) / L) {
        case 3: weighted_columns<3>(C + j, ld, rows, coef, g + j); break;
        case 2: weighted_columns<2>(C + j, ld, rows, coef, g + j); break;
        case 1: weighted_columns<1>(C + j, ld, rows, coef, g + j); break;
        default: break;
    }
}

template <class R>
inline __attribute__((always_inline)) bool code4_poly_impl(const R* __restrict par,
                                                           const std::int32_t* __restrict par_idx,
                                                           const R* __restrict coef, std::size_t n, R* __restrict f,
                                                           R* __restrict df) {
    int outside = 0;
    for (std::size_t u = 0; u < n; ++u) {
        const R a = par[par_idx[u]];
        const R c[6] = {coef[u], coef[n + u], coef[2 * n + u], coef[3 * n + u], coef[4 * n + u], coef[5 * n + u]};
        R d;
        f[u] = Math<R>::code4_poly(a, c, &d);
        df[u] = d;
        outside |= static_cast<int>(!(a < R(1))) | static_cast<int>(!(a > R(-1)));  // no branch: stays a vector loop
    }
    return outside != 0;
}

}  // namespace

bool worthwhile(std::size_t dense, std::size_t nonzeros) {
#if HF_CPU_HAVE_CLONES
    // A sparse entry costs about two cycles (index and gather loads); a dense one an eighth (AVX-512) or a
    // quarter (AVX2) of a cycle. Baseline SSE2 gains nothing.
    __builtin_cpu_init();
    if (dense > (std::size_t{1} << 22)) return false;
    if (__builtin_cpu_supports("avx512f")) return dense <= 12 * nonzeros;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return dense <= 6 * nonzeros;
    return false;
#else
    (void)dense, (void)nonzeros;
    return false;
#endif
}

HF_CPU_VECTOR_CLONES
void rows_dot(const double* C, std::size_t ld, std::size_t width, std::size_t rows, const double* w, double* out) {
    rows_dot_impl(C, ld, width, rows, w, out);
}
HF_CPU_VECTOR_CLONES
void rows_dot(const float* C, std::size_t ld, std::size_t width, std::size_t rows, const float* w, float* out) {
    rows_dot_impl(C, ld, width, rows, w, out);
}
HF_CPU_VECTOR_CLONES
void weighted_row_sum(const double* C, std::size_t ld, std::size_t width, std::size_t rows, const double* coef,
                      double* g) {
    weighted_row_sum_impl(C, ld, width, rows, coef, g);
}
HF_CPU_VECTOR_CLONES
void weighted_row_sum(const float* C, std::size_t ld, std::size_t width, std::size_t rows, const double* coef,
                      double* g) {
    weighted_row_sum_impl(C, ld, width, rows, coef, g);
}

HF_CPU_VECTOR_CLONES
bool code4_poly(const double* par, const std::int32_t* par_idx, const double* coef, std::size_t n, double* f,
                double* df) {
    return code4_poly_impl(par, par_idx, coef, n, f, df);
}
HF_CPU_VECTOR_CLONES
bool code4_poly(const float* par, const std::int32_t* par_idx, const float* coef, std::size_t n, float* f, float* df) {
    return code4_poly_impl(par, par_idx, coef, n, f, df);
}

}  // namespace hf::cpu::simd
