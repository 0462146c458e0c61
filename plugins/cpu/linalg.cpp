// Matrix products of the cpu plugin: OpenBLAS GEMM for float types, exact loops for integers.
#include <cblas.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "backend.hpp"

namespace hf::cpu {

using i64 = std::int64_t;

namespace {

template <class T>
void gemm(i64 m, i64 n, i64 k, const T* a, const T* b, T* c) {
    if constexpr (std::is_same_v<T, double>) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                    static_cast<int>(k), 1.0, a, static_cast<int>(std::max<i64>(k, 1)), b,
                    static_cast<int>(std::max<i64>(n, 1)), 0.0, c, static_cast<int>(std::max<i64>(n, 1)));
    } else if constexpr (std::is_same_v<T, float>) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                    static_cast<int>(k), 1.0f, a, static_cast<int>(std::max<i64>(k, 1)), b,
                    static_cast<int>(std::max<i64>(n, 1)), 0.0f, c, static_cast<int>(std::max<i64>(n, 1)));
    } else {
        // Integers (and bool as 0/1 with or-and semantics): i-k-j loops, exact.
        using Acc = std::int64_t;
        std::vector<Acc> row(static_cast<std::size_t>(n));
        for (i64 i = 0; i < m; ++i) {
            std::fill(row.begin(), row.end(), Acc{0});
            for (i64 p = 0; p < k; ++p) {
                const Acc av = static_cast<Acc>(a[i * k + p]);
                if (av == 0) continue;
                const T* brow = b + p * n;
                for (i64 j = 0; j < n; ++j) row[j] += av * static_cast<Acc>(brow[j]);
            }
            for (i64 j = 0; j < n; ++j) c[i * n + j] = convert<T>(row[j]);
        }
    }
}

}  // namespace

void CpuBackend::k_matmul(const Tensor& a, const Tensor& b, std::int64_t batch, std::int64_t m, std::int64_t k,
                          std::int64_t n, bool a_batched, bool b_batched, Tensor& out) {
    if (batch == 0 || m == 0 || n == 0) return;
    if (a.dtype() != b.dtype() || a.dtype() != out.dtype())
        throw ShapeError(std::string("cpu: matmul of ") + dtype_name(a.dtype()) + " and " + dtype_name(b.dtype()) +
                         " into " + dtype_name(out.dtype()));
    if (std::max({m, n, k}) > std::numeric_limits<int>::max())
        throw ShapeError("cpu: matmul dimension beyond the BLAS integer range");
    dispatch(a.dtype(), [&](auto ta) {
        using T = typename decltype(ta)::type;
        const T* pa = data_of<T>(a);
        const T* pb = data_of<T>(b);
        T* po = data_of<T>(out);
        if (k == 0) {
            std::fill(po, po + batch * m * n, T(0));
            return;
        }
        if (a_batched && !b_batched && batch * m <= std::numeric_limits<int>::max()) {
            gemm<T>(batch * m, n, k, pa, pb, po);  // one GEMM: the batch stacks the rows of a
            return;
        }
        for (i64 i = 0; i < batch; ++i)
            gemm<T>(m, n, k, pa + (a_batched ? i * m * k : 0), pb + (b_batched ? i * k * n : 0), po + i * m * n);
    });
}

}  // namespace hf::cpu
