#include "numerics/lanes.hpp"

#include "hfcore/plugin/vector_level.hpp"

// No fused multiply-adds (-ffp-contract=off for this file, core/CMakeLists.txt) and four lanes at every level:
// the avx512 and avx2 bodies round as the baseline one does (docs/decisions/host-vector-levels.md).
namespace hf::numerics::lanes {

namespace {

// Four doubles of GCC's vector extension, aligned to the element: rows and history vectors start anywhere.
// Vectors go by reference: by value they would change the calling convention between the clones (-Wpsabi).
typedef double V4 __attribute__((vector_size(32), aligned(8)));
typedef long long M4 __attribute__((vector_size(32)));

inline __attribute__((always_inline)) const V4& at(const double* p) { return *reinterpret_cast<const V4*>(p); }

// Lane 0 also takes the n mod 4 last terms, one by one.
inline __attribute__((always_inline)) double finish(const V4& s, const double* tail, std::size_t count) {
    double s0 = s[0];
    for (std::size_t i = 0; i < count; ++i) s0 += tail[i];
    return (s0 + s[1]) + (s[2] + s[3]);
}

// Sixteen partial sums in four vectors (sum i in vector (i / 4) mod 4, lane i mod 4): four independent
// addition chains, where one chain made every addition wait for the previous one. `add(acc, i)` adds the terms
// i..i+3 to the vector acc (no vector is returned by value: -Wpsabi), `tail(i)` gives one term.
template <class Add, class Tail>
inline __attribute__((always_inline)) double sum16(std::size_t n, Add add, Tail tail) {
    V4 s[4] = {};
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        add(s[0], i);
        add(s[1], i + 4);
        add(s[2], i + 8);
        add(s[3], i + 12);
    }
    for (int v = 0; i + 4 <= n; i += 4, ++v) add(s[v], i);
    const V4 t = (s[0] + s[1]) + (s[2] + s[3]);
    double r = (t[0] + t[1]) + (t[2] + t[3]);
    for (; i < n; ++i) r += tail(i);
    return r;
}

// C dot products of one vector a with b[0..C), each in sum16's order, a loaded once for all of them.
template <int C>
inline __attribute__((always_inline)) void dots_impl(const double* a, const double* const* b, std::size_t n,
                                                     double* out) {
    V4 s[C][4] = {};
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int v = 0; v < 4; ++v) {
            const V4& x = at(a + i + 4 * v);
            for (int c = 0; c < C; ++c) s[c][v] += x * at(b[c] + i + 4 * v);
        }
    for (int v = 0; i + 4 <= n; i += 4, ++v) {
        const V4& x = at(a + i);
        for (int c = 0; c < C; ++c) s[c][v] += x * at(b[c] + i);
    }
    for (int c = 0; c < C; ++c) {
        const V4 t = (s[c][0] + s[c][1]) + (s[c][2] + s[c][3]);
        double r = (t[0] + t[1]) + (t[2] + t[3]);
        for (std::size_t j = i; j < n; ++j) r += a[j] * b[c][j];
        out[c] = r;
    }
}

template <int>
inline __attribute__((always_inline))
double dot_at(const double* a, const double* b, std::size_t n) {
    return sum16(
        n, [&](V4& acc, std::size_t i) { acc += at(a + i) * at(b + i); }, [&](std::size_t i) { return a[i] * b[i]; });
}

template <int>
inline __attribute__((always_inline))
void dots_at(const double* a, const double* const* b, int count, std::size_t n, double* out) {
    static_assert(kMaxVectors == 4, "one case per count");
    switch (count) {
        case 1: dots_impl<1>(a, b, n, out); break;
        case 2: dots_impl<2>(a, b, n, out); break;
        case 3: dots_impl<3>(a, b, n, out); break;
        case 4: dots_impl<4>(a, b, n, out); break;
        default: break;
    }
}

template <int>
inline __attribute__((always_inline))
double axpy_dot_at(double c, const double* v, double* q, const double* w, std::size_t n) {
    const V4 cv = {c, c, c, c};
    return sum16(
        n,
        [&](V4& acc, std::size_t i) {
            V4& qi = *reinterpret_cast<V4*>(q + i);
            qi += cv * at(v + i);
            acc += at(w + i) * qi;
        },
        [&](std::size_t i) {
            q[i] += c * v[i];
            return w[i] * q[i];
        });
}

template <int>
inline __attribute__((always_inline))
double masked_dot_at(const double* a, const double* b, const char* free, std::size_t n) {
    const V4 zero = {0.0, 0.0, 0.0, 0.0};
    return sum16(
        n,
        [&](V4& acc, std::size_t i) {
            const M4 m = {free[i], free[i + 1], free[i + 2], free[i + 3]};
            acc += m != 0 ? at(a + i) * at(b + i) : zero;  // a select per lane: no branch
        },
        [&](std::size_t i) { return free[i] ? a[i] * b[i] : 0.0; });
}

template <int>
inline __attribute__((always_inline))
void axpy_at(double c, const double* v, double* q, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) q[i] += c * v[i];
}

// Columns [i, i + 4 C) of axpy_rows, in C vectors that stay in registers over the rows.
template <int C>
inline __attribute__((always_inline)) void axpy_rows_block(const double* c, const double* M, std::size_t rows,
                                                           std::size_t n, double* q) {
    V4 acc[C];
    for (int v = 0; v < C; ++v) acc[v] = at(q + 4 * v);
    for (std::size_t r = 0; r < rows; ++r) {
        const V4 cv = {c[r], c[r], c[r], c[r]};
        const double* row = M + r * n;
        for (int v = 0; v < C; ++v) acc[v] += cv * at(row + 4 * v);
    }
    for (int v = 0; v < C; ++v) *reinterpret_cast<V4*>(q + 4 * v) = acc[v];
}

template <int>
inline __attribute__((always_inline))
void axpy_rows_at(const double* c, const double* M, std::size_t rows, std::size_t n, double* q) {
    std::size_t i = 0;
    for (; i + 32 <= n; i += 32) axpy_rows_block<8>(c, M + i, rows, n, q + i);
    for (; i + 4 <= n; i += 4) axpy_rows_block<1>(c, M + i, rows, n, q + i);
    for (; i < n; ++i)
        for (std::size_t r = 0; r < rows; ++r) q[i] += c[r] * M[r * n + i];
}

template <int>
inline __attribute__((always_inline))
void masked_axpy_at(double c, const double* v, const char* free, double* q, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) q[i] += free[i] ? c * v[i] : 0.0;
}

// The count is a template argument so that the count sums live in registers (with a run-time count they went
// through memory at every step).
template <int C>
inline __attribute__((always_inline)) void matvec_impl(const double* M, std::size_t rows, std::size_t n,
                                                       const double* const* q, double* const* out) {
    const std::size_t n4 = n / 4 * 4;
    for (std::size_t r = 0; r < rows; ++r) {
        const double* row = M + r * n;
        V4 s[C] = {};
        for (std::size_t i = 0; i < n4; i += 4) {
            const V4& m = at(row + i);
            for (int t = 0; t < C; ++t) s[t] += m * at(q[t] + i);
        }
        for (int t = 0; t < C; ++t) {
            double tail[3];
            for (std::size_t i = n4; i < n; ++i) tail[i - n4] = row[i] * q[t][i];
            out[t][r] = finish(s[t], tail, n - n4);
        }
    }
}

template <int>
inline __attribute__((always_inline))
void matvec_at(const double* M, std::size_t rows, std::size_t cols, const double* const* q, double* const* out,
               int count) {
    static_assert(kMaxVectors == 4, "one case per count");
    switch (count) {
        case 1: matvec_impl<1>(M, rows, cols, q, out); break;
        case 2: matvec_impl<2>(M, rows, cols, q, out); break;
        case 3: matvec_impl<3>(M, rows, cols, q, out); break;
        case 4: matvec_impl<4>(M, rows, cols, q, out); break;
        default: break;
    }
}

}  // namespace

// Each entry point compiled for every vector level, and the level of this process called.
HFCORE_VECTOR_ENTRY(double, dot, (const double* a, const double* b, std::size_t n), (a, b, n), dot_at)
HFCORE_VECTOR_ENTRY(void, dots, (const double* a, const double* const* b, int count, std::size_t n, double* out),
                    (a, b, count, n, out), dots_at)
HFCORE_VECTOR_ENTRY(double, axpy_dot, (double c, const double* v, double* q, const double* w, std::size_t n),
                    (c, v, q, w, n), axpy_dot_at)
HFCORE_VECTOR_ENTRY(double, masked_dot, (const double* a, const double* b, const char* free, std::size_t n),
                    (a, b, free, n), masked_dot_at)
HFCORE_VECTOR_ENTRY(void, axpy, (double c, const double* v, double* q, std::size_t n), (c, v, q, n), axpy_at)
HFCORE_VECTOR_ENTRY(void, axpy_rows, (const double* c, const double* M, std::size_t rows, std::size_t n, double* q),
                    (c, M, rows, n, q), axpy_rows_at)
HFCORE_VECTOR_ENTRY(void, masked_axpy, (double c, const double* v, const char* free, double* q, std::size_t n),
                    (c, v, free, q, n), masked_axpy_at)
HFCORE_VECTOR_ENTRY(void, matvec,
                    (const double* M, std::size_t rows, std::size_t cols, const double* const* q, double* const* out,
                     int count),
                    (M, rows, cols, q, out, count), matvec_at)

const char* level_name() { return vector_level::name_of(vector_level::level()); }

}  // namespace hf::numerics::lanes
