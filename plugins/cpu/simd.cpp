#include "simd.hpp"

#include <cstdlib>
#include <string>

#include "math.hpp"

// On x86-64 with GCC or Clang, each entry point is compiled for three levels (AVX-512, AVX2 + FMA, baseline)
// and one of them is chosen once, from the CPU, when it is first called. A plain call through a switch, not
// target_clones: each level gets its own vector width in the source (Pack below), and no ifunc resolver runs
// while the plugin is being relocated (under ThreadSanitizer one crashed dlopen).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HF_CPU_LEVELS 1
#define HF_CPU_TARGET_V4 __attribute__((target("arch=x86-64-v4")))
#define HF_CPU_TARGET_V3 __attribute__((target("arch=x86-64-v3")))
#else
#define HF_CPU_LEVELS 0
#define HF_CPU_TARGET_V4
#define HF_CPU_TARGET_V3
#endif

namespace hf::cpu::simd {

namespace {

enum class Level { baseline, avx2, avx512 };

const char* name_of(Level l) {
    switch (l) {
        case Level::avx512: return "avx512";
        case Level::avx2: return "avx2";
        default: return "baseline";
    }
}

Level cpu_level() {
#if HF_CPU_LEVELS
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"))
        return Level::avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Level::avx2;
#endif
    return Level::baseline;
}

// The level the kernels run at: the CPU's, or the lower one named by HFCORE_CPU_SIMD (avx512, avx2, baseline),
// which lets one machine run what machines with less get. A name this CPU cannot run, or no level at all, is
// refused (problem non-empty): a test run at a level it did not get would pass for the wrong reason.
struct Choice {
    Level level = Level::baseline;
    Level cpu = Level::baseline;
    bool capped = false;
    std::string problem;
};

const Choice& choice() {
    static const Choice c = [] {
        Choice r;
        r.cpu = r.level = cpu_level();
        const char* cap = std::getenv("HFCORE_CPU_SIMD");
        if (!cap || !*cap) return r;
        const std::string want = cap;
        Level asked;
        if (want == "avx512") asked = Level::avx512;
        else if (want == "avx2") asked = Level::avx2;
        else if (want == "baseline") asked = Level::baseline;
        else {
            r.problem = "HFCORE_CPU_SIMD=" + want + " is not a vector level (avx512, avx2 or baseline)";
            return r;
        }
#if !HF_CPU_LEVELS
        if (asked != Level::baseline) {
            r.problem = "HFCORE_CPU_SIMD=" + want + ": this build of the cpu plugin has the baseline level only";
            return r;
        }
#endif
        if (asked > r.cpu) {
            r.problem = "HFCORE_CPU_SIMD=" + want + ": this CPU supports up to " + name_of(r.cpu);
            return r;
        }
        r.capped = asked != r.cpu;
        r.level = asked;
        return r;
    }();
    return c;
}

Level level() { return choice().level; }

// 64 bytes of R as 64 / NB vectors of the level's native width NB (64 on AVX-512, 32 on AVX2, 16 below), each
// a vector of GCC's vector extension aligned only to the element, as rows of C start anywhere. Every level
// computes the same lanes in the same order, so the results do not depend on the machine's vector width; only
// their speed does: GCC lowered a single 64-byte vector on AVX2 through the stack, 4-5x slower.
template <class R, int NB>
struct Pack {
    typedef R Native __attribute__((vector_size(NB), aligned(sizeof(R))));
    static constexpr int kParts = 64 / NB;
    static constexpr int kLanes = NB / static_cast<int>(sizeof(R));
    Native h[kParts];
};

template <class R, int NB>
inline __attribute__((always_inline)) const Pack<R, NB>& at(const R* p) {
    return *reinterpret_cast<const Pack<R, NB>*>(p);
}

template <class R, int NB>
inline __attribute__((always_inline)) void zero(Pack<R, NB>& a) {
    for (int q = 0; q < Pack<R, NB>::kParts; ++q) a.h[q] = typename Pack<R, NB>::Native{};
}

// acc += x * y, lane by lane (a fused multiply-add where the level has one)
template <class R, int NB>
inline __attribute__((always_inline)) void mul_add(Pack<R, NB>& acc, const Pack<R, NB>& x, const Pack<R, NB>& y) {
    for (int q = 0; q < Pack<R, NB>::kParts; ++q) acc.h[q] += x.h[q] * y.h[q];
}

// acc += a * x
template <class R, int NB>
inline __attribute__((always_inline)) void scaled_add(Pack<R, NB>& acc, R a, const Pack<R, NB>& x) {
    for (int q = 0; q < Pack<R, NB>::kParts; ++q) acc.h[q] += a * x.h[q];
}

// The lanes' sum in lane order.
template <class R, int NB>
inline __attribute__((always_inline)) R hsum(const Pack<R, NB>& v) {
    R s = 0;
    for (int q = 0; q < Pack<R, NB>::kParts; ++q)
        for (int i = 0; i < Pack<R, NB>::kLanes; ++i) s += v.h[q][i];
    return s;
}

// out[t][r] += C[r] . w[t] for T points, each row of C read once for all of them; per point, the products and
// additions of a single point's in the same order (each row's sum across the lanes, then hsum), so a point's
// result does not depend on the others. Several rows at a time where the registers hold their sums (one point:
// four rows; several on AVX-512: two, 2T + 2 of its 32 vector registers): more independent addition chains.
template <int NB, int T, class R>
inline __attribute__((always_inline)) void rows_dot_points_impl(const R* __restrict C, std::size_t ld,
                                                                std::size_t width, std::size_t rows,
                                                                const R* const* w, R* const* out) {
    using P = Pack<R, NB>;
    constexpr std::size_t L = 64 / sizeof(R);
    static_assert(kPad % L == 0, "rows are padded to whole vectors");
    constexpr int kRows = T == 1 ? 4 : NB == 64 ? 2 : 1;
    const R* wt[T];
    for (int t = 0; t < T; ++t) wt[t] = w[t];
    std::size_t r = 0;
    for (; r + kRows <= rows; r += kRows) {
        P acc[kRows][T];
        for (int i = 0; i < kRows; ++i)
            for (int t = 0; t < T; ++t) zero(acc[i][t]);
        for (std::size_t j = 0; j < width; j += L)
            for (int i = 0; i < kRows; ++i) {
                const P& x = at<R, NB>(C + (r + i) * ld + j);
                for (int t = 0; t < T; ++t) mul_add(acc[i][t], x, at<R, NB>(wt[t] + j));
            }
        for (int i = 0; i < kRows; ++i)
            for (int t = 0; t < T; ++t) out[t][r + i] += hsum(acc[i][t]);
    }
    for (; r < rows; ++r) {
        P acc[T];
        for (int t = 0; t < T; ++t) zero(acc[t]);
        for (std::size_t j = 0; j < width; j += L) {
            const P& x = at<R, NB>(C + r * ld + j);
            for (int t = 0; t < T; ++t) mul_add(acc[t], x, at<R, NB>(wt[t] + j));
        }
        for (int t = 0; t < T; ++t) out[t][r] += hsum(acc[t]);
    }
}

template <int NB, class R>
inline __attribute__((always_inline)) void rows_dot_points_n(const R* C, std::size_t ld, std::size_t width,
                                                             std::size_t rows, const R* const* w, R* const* out,
                                                             int count) {
    switch (count) {
        case 4: rows_dot_points_impl<NB, 4>(C, ld, width, rows, w, out); return;
        case 3: rows_dot_points_impl<NB, 3>(C, ld, width, rows, w, out); return;
        case 2: rows_dot_points_impl<NB, 2>(C, ld, width, rows, w, out); return;
        case 1: rows_dot_points_impl<NB, 1>(C, ld, width, rows, w, out); return;
        default: return;
    }
}

// g[t][j..j+L) += sum_r coef[t][r] * C[r, j..j+L) for T points, each point's sums in registers over all the
// rows (a loop that loaded and stored g at every row made each column's additions wait on a store), each row of
// C read once for the points. Per point and column the additions over the rows in order, zero weights skipped.
template <int NB, int T, int NV>
inline __attribute__((always_inline)) void weighted_columns(const double* __restrict C, std::size_t ld,
                                                            std::size_t rows, const double* const* coef,
                                                            double* const* g, std::size_t j) {
    using P = Pack<double, NB>;
    constexpr std::size_t L = 64 / sizeof(double);
    P acc[T][NV];
    const double* ct[T];
    for (int t = 0; t < T; ++t) {
        ct[t] = coef[t];
        for (int v = 0; v < NV; ++v) acc[t][v] = at<double, NB>(g[t] + j + v * L);
    }
    for (std::size_t r = 0; r < rows; ++r) {
        const double* c = C + r * ld + j;
        for (int t = 0; t < T; ++t) {
            const double a = ct[t][r];
            if (a == 0.0) continue;
            for (int v = 0; v < NV; ++v) scaled_add(acc[t][v], a, at<double, NB>(c + v * L));
        }
    }
    for (int t = 0; t < T; ++t)
        for (int v = 0; v < NV; ++v) *reinterpret_cast<P*>(g[t] + j + v * L) = acc[t][v];
}

// One point: four vectors of columns at a time (four addition chains); several points: one vector of columns,
// its rows read once for them.
template <int NB, int T>
inline __attribute__((always_inline)) void weighted_row_sum_points_impl(const double* C, std::size_t ld,
                                                                        std::size_t width, std::size_t rows,
                                                                        const double* const* coef,
                                                                        double* const* g) {
    constexpr std::size_t L = 64 / sizeof(double);
    static_assert(kPad % L == 0, "rows are padded to whole vectors");
    std::size_t j = 0;
    if constexpr (T == 1) {
        for (; j + 4 * L <= width; j += 4 * L) weighted_columns<NB, 1, 4>(C, ld, rows, coef, g, j);
        switch ((width - j) / L) {
            case 3: weighted_columns<NB, 1, 3>(C, ld, rows, coef, g, j); break;
            case 2: weighted_columns<NB, 1, 2>(C, ld, rows, coef, g, j); break;
            case 1: weighted_columns<NB, 1, 1>(C, ld, rows, coef, g, j); break;
            default: break;
        }
    } else {
        for (; j < width; j += L) weighted_columns<NB, T, 1>(C, ld, rows, coef, g, j);
    }
}

template <int NB>
inline __attribute__((always_inline)) void weighted_row_sum_points_n(const double* C, std::size_t ld,
                                                                     std::size_t width, std::size_t rows,
                                                                     const double* const* coef, double* const* g,
                                                                     int count) {
    switch (count) {
        case 4: weighted_row_sum_points_impl<NB, 4>(C, ld, width, rows, coef, g); return;
        case 3: weighted_row_sum_points_impl<NB, 3>(C, ld, width, rows, coef, g); return;
        case 2: weighted_row_sum_points_impl<NB, 2>(C, ld, width, rows, coef, g); return;
        case 1: weighted_row_sum_points_impl<NB, 1>(C, ld, width, rows, coef, g); return;
        default: return;
    }
}

// Float C: row by row per point, the loop left to the compiler's vectoriser.
template <int NB>
inline __attribute__((always_inline)) void weighted_row_sum_points_n(const float* C, std::size_t ld,
                                                                     std::size_t width, std::size_t rows,
                                                                     const double* const* coef, double* const* g,
                                                                     int count) {
    for (int t = 0; t < count; ++t)
        for (std::size_t r = 0; r < rows; ++r) {
            const double a = coef[t][r];
            if (a == 0.0) continue;
            const float* c = C + r * ld;
            double* gt = g[t];
            for (std::size_t j = 0; j < width; ++j) gt[j] += a * static_cast<double>(c[j]);
        }
}

template <int NB, class R>
inline __attribute__((always_inline)) bool code4_poly_n(const R* __restrict par, const std::int32_t* __restrict par_idx,
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

// An entry point: its body (IMPL<native width>(ARGS)) compiled once per level, and the call to the CPU's.
#define HF_CPU_ENTRY(RET, NAME, PARAMS, ARGS, IMPL)                  \
    namespace {                                                      \
    HF_CPU_TARGET_V4 RET NAME##_avx512 PARAMS { return IMPL<64> ARGS; } \
    HF_CPU_TARGET_V3 RET NAME##_avx2 PARAMS { return IMPL<32> ARGS; }   \
    RET NAME##_baseline PARAMS { return IMPL<16> ARGS; }             \
    }                                                                \
    RET NAME PARAMS {                                                \
        switch (level()) {                                           \
            case Level::avx512: return NAME##_avx512 ARGS;           \
            case Level::avx2: return NAME##_avx2 ARGS;               \
            default: return NAME##_baseline ARGS;                    \
        }                                                            \
    }

HF_CPU_ENTRY(void, rows_dot_points,
             (const double* C, std::size_t ld, std::size_t width, std::size_t rows, const double* const* w,
              double* const* out, int count),
             (C, ld, width, rows, w, out, count), rows_dot_points_n)
HF_CPU_ENTRY(void, rows_dot_points,
             (const float* C, std::size_t ld, std::size_t width, std::size_t rows, const float* const* w,
              float* const* out, int count),
             (C, ld, width, rows, w, out, count), rows_dot_points_n)
HF_CPU_ENTRY(void, weighted_row_sum_points,
             (const double* C, std::size_t ld, std::size_t width, std::size_t rows, const double* const* coef,
              double* const* g, int count),
             (C, ld, width, rows, coef, g, count), weighted_row_sum_points_n)
HF_CPU_ENTRY(void, weighted_row_sum_points,
             (const float* C, std::size_t ld, std::size_t width, std::size_t rows, const double* const* coef,
              double* const* g, int count),
             (C, ld, width, rows, coef, g, count), weighted_row_sum_points_n)
HF_CPU_ENTRY(bool, code4_poly,
             (const double* par, const std::int32_t* par_idx, const double* coef, std::size_t n, double* f,
              double* df),
             (par, par_idx, coef, n, f, df), code4_poly_n)
HF_CPU_ENTRY(bool, code4_poly,
             (const float* par, const std::int32_t* par_idx, const float* coef, std::size_t n, float* f, float* df),
             (par, par_idx, coef, n, f, df), code4_poly_n)

bool worthwhile(std::size_t dense, std::size_t nonzeros) {
    // A sparse entry costs about two cycles (index and gather loads), a dense one a fraction of a cycle on
    // AVX2 and AVX-512. One threshold for both, so that the two levels take the same path and give the same
    // bits (their dense kernels compute the same lanes in the same order, with FMA): machines with and without
    // AVX-512 reproduce each other's toys. Baseline SSE2 has no FMA and gains nothing from the dense path.
    if (dense > (std::size_t{1} << 22)) return false;
    return level() != Level::baseline && dense <= 8 * nonzeros;
}

const char* level_name() { return name_of(level()); }

std::string level_description() {
    const Choice& c = choice();
    if (!c.problem.empty()) return c.problem;
    std::string d = std::string("vector level: ") + name_of(c.level);
    if (c.capped) d += std::string(" (HFCORE_CPU_SIMD; the CPU has ") + name_of(c.cpu) + ")";
    return d;
}

const std::string& level_problem() { return choice().problem; }

}  // namespace hf::cpu::simd
