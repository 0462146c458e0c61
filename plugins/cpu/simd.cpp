#include "simd.hpp"

#include <string>

#include "math.hpp"

#include "hfcore/plugin/vector_level.hpp"

// Each entry point is compiled for the three levels of hfcore/plugin/vector_level.hpp (AVX-512, AVX2 + FMA,
// baseline), each with its own native vector width (Pack below), and the level chosen once is called.
namespace hf::cpu::simd {

namespace {

using vector_level::Level;
using vector_level::level;

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

HFCORE_VECTOR_ENTRY(void, rows_dot_points,
                    (const double* C, std::size_t ld, std::size_t width, std::size_t rows, const double* const* w,
                     double* const* out, int count),
                    (C, ld, width, rows, w, out, count), rows_dot_points_n)
HFCORE_VECTOR_ENTRY(void, rows_dot_points,
                    (const float* C, std::size_t ld, std::size_t width, std::size_t rows, const float* const* w,
                     float* const* out, int count),
                    (C, ld, width, rows, w, out, count), rows_dot_points_n)
HFCORE_VECTOR_ENTRY(void, weighted_row_sum_points,
                    (const double* C, std::size_t ld, std::size_t width, std::size_t rows, const double* const* coef,
                     double* const* g, int count),
                    (C, ld, width, rows, coef, g, count), weighted_row_sum_points_n)
HFCORE_VECTOR_ENTRY(void, weighted_row_sum_points,
                    (const float* C, std::size_t ld, std::size_t width, std::size_t rows, const double* const* coef,
                     double* const* g, int count),
                    (C, ld, width, rows, coef, g, count), weighted_row_sum_points_n)
HFCORE_VECTOR_ENTRY(bool, code4_poly,
                    (const double* par, const std::int32_t* par_idx, const double* coef, std::size_t n, double* f,
                     double* df),
                    (par, par_idx, coef, n, f, df), code4_poly_n)
HFCORE_VECTOR_ENTRY(bool, code4_poly,
                    (const float* par, const std::int32_t* par_idx, const float* coef, std::size_t n, float* f,
                     float* df),
                    (par, par_idx, coef, n, f, df), code4_poly_n)

bool worthwhile(std::size_t dense, std::size_t nonzeros) {
    // A sparse entry costs about two cycles (index and gather loads), a dense one a fraction of a cycle on
    // AVX2 and AVX-512. One threshold for both, so that the two levels take the same path and give the same
    // bits (their dense kernels compute the same lanes in the same order, with FMA): machines with and without
    // AVX-512 reproduce each other's toys. Baseline SSE2 has no FMA and gains nothing from the dense path.
    if (dense > (std::size_t{1} << 22)) return false;
    return level() != Level::baseline && dense <= 8 * nonzeros;
}

const char* level_name() { return vector_level::name_of(level()); }

std::string level_description() { return vector_level::description(); }

std::string level_problem() { return vector_level::choose_from_environment().problem; }

}  // namespace hf::cpu::simd
