// Matrix products of the cpu plugin. Every element of a product is summed over the inner dimension in one fixed
// order, whatever the number of rows, the batch, the threads or the CPU: a point's likelihood computed through
// the fallback path (rows of a product) must not depend on the other points in the call, and BLAS libraries
// pick kernels (and so summation orders) by matrix shape and CPU.
#include <algorithm>
#include <limits>
#include <vector>

#include "backend.hpp"

namespace hf::cpu {

using i64 = std::int64_t;

namespace {

// Rows handled together: they share each load of a row of b; each still sums in its own fixed order.
constexpr i64 kRowBlock = 4;

// c[i, :] = sum over p = 0, 1, ..., k-1 of a[i, p] * b[p, :], accumulated in Acc in that order. This file is
// compiled without floating-point contraction (CMakeLists.txt), so a * b + c is two roundings on every CPU.
template <class T, class Acc>
void rows_times_matrix(i64 m, i64 n, i64 k, const T* a, const T* b, T* c) {
    std::vector<Acc> acc(static_cast<std::size_t>(kRowBlock * n));
    for (i64 i0 = 0; i0 < m; i0 += kRowBlock) {
        const i64 rows = std::min(kRowBlock, m - i0);
        std::fill(acc.begin(), acc.end(), Acc{0});
        for (i64 p = 0; p < k; ++p) {
            const T* brow = b + p * n;
            for (i64 r = 0; r < rows; ++r) {
                const Acc av = static_cast<Acc>(a[(i0 + r) * k + p]);
                Acc* out = acc.data() + r * n;
                for (i64 j = 0; j < n; ++j) out[j] += av * static_cast<Acc>(brow[j]);
            }
        }
        for (i64 r = 0; r < rows; ++r)
            for (i64 j = 0; j < n; ++j) c[(i0 + r) * n + j] = convert<T>(acc[static_cast<std::size_t>(r * n + j)]);
    }
}

template <class T>
void gemm(i64 m, i64 n, i64 k, const T* a, const T* b, T* c) {
    if constexpr (std::is_floating_point_v<T>) {
        // float products accumulate in double: the NLL's gradient in 32b goes through these sums.
        rows_times_matrix<T, double>(m, n, k, a, b, c);
    } else {
        // Integers (and bool as 0/1 with or-and semantics through convert): exact in 64 bits.
        rows_times_matrix<T, std::int64_t>(m, n, k, a, b, c);
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
