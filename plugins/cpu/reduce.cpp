// Reductions of the cpu plugin over the middle axis of [outer, n, inner]: sums pairwise (error growing as
// log n), products, max and min.
#include <algorithm>
#include <cmath>
#include <limits>

#include "backend.hpp"

namespace hf::cpu {
namespace {

using i64 = std::int64_t;

// Pairwise sum of n values at stride s: error grows as log(n) instead of n.
template <class T>
double pairwise_sum(const T* x, i64 n, i64 s) {
    if (n <= 64) {
        double acc[4] = {0, 0, 0, 0};
        i64 i = 0;
        for (; i + 4 <= n; i += 4) {
            acc[0] += static_cast<double>(x[i * s]);
            acc[1] += static_cast<double>(x[(i + 1) * s]);
            acc[2] += static_cast<double>(x[(i + 2) * s]);
            acc[3] += static_cast<double>(x[(i + 3) * s]);
        }
        for (; i < n; ++i) acc[0] += static_cast<double>(x[i * s]);
        return (acc[0] + acc[1]) + (acc[2] + acc[3]);
    }
    i64 h = (n / 2 + 7) & ~i64{7};
    return pairwise_sum(x, h, s) + pairwise_sum(x + h * s, n - h, s);
}

template <class T, class U>
void reduce_typed(ReduceOp op, const T* x, i64 outer, i64 n, i64 inner, U* o) {
    constexpr bool flt = std::is_floating_point_v<T>;
    using Acc = std::conditional_t<flt, double, std::int64_t>;
    for (i64 a = 0; a < outer; ++a) {
        const T* base = x + a * n * inner;
        U* ob = o + a * inner;
        if (op == ReduceOp::sum) {
            if constexpr (flt) {
                if (inner == 1) {
                    ob[0] = static_cast<U>(pairwise_sum(base, n, 1));
                } else {
                    // Neumaier summation row by row: cache friendly and accurate for any n.
                    std::vector<double> s(static_cast<std::size_t>(inner), 0.0), c(static_cast<std::size_t>(inner), 0.0);
                    for (i64 j = 0; j < n; ++j) {
                        const T* row = base + j * inner;
                        for (i64 i = 0; i < inner; ++i) {
                            double v = static_cast<double>(row[i]);
                            double t = s[i] + v;
                            c[i] += std::fabs(s[i]) >= std::fabs(v) ? (s[i] - t) + v : (v - t) + s[i];
                            s[i] = t;
                        }
                    }
                    for (i64 i = 0; i < inner; ++i) ob[i] = convert<U>(s[i] + c[i]);
                }
            } else {
                for (i64 i = 0; i < inner; ++i) {
                    Acc s = 0;
                    for (i64 j = 0; j < n; ++j) s += static_cast<Acc>(base[j * inner + i]);
                    ob[i] = convert<U>(s);
                }
            }
            continue;
        }
        for (i64 i = 0; i < inner; ++i) {
            if (op == ReduceOp::prod) {
                Acc r = 1;
                for (i64 j = 0; j < n; ++j) r *= static_cast<Acc>(base[j * inner + i]);
                ob[i] = convert<U>(r);
            } else {
                const bool mx = op == ReduceOp::max;
                T r;
                if constexpr (flt) r = mx ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
                else r = mx ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
                for (i64 j = 0; j < n; ++j) {
                    T v = base[j * inner + i];
                    r = mx ? nan_max(r, v) : nan_min(r, v);
                }
                ob[i] = convert<U>(r);
            }
        }
    }
}

}  // namespace

void CpuBackend::k_reduce(ReduceOp op, const Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner,
                          Tensor& out) {
    dispatch(x.dtype(), [&](auto tx) {
        using T = typename decltype(tx)::type;
        dispatch(out.dtype(), [&](auto to) {
            using U = typename decltype(to)::type;
            reduce_typed<T, U>(op, data_of<T>(x), outer, n, inner, data_of<U>(out));
        });
    });
}

}  // namespace hf::cpu
