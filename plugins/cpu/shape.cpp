// Shape and indexing kernels of the cpu plugin: transpose, concat, gather, masked_select, sort.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "backend.hpp"

namespace hf::cpu {
namespace {

using i64 = std::int64_t;

template <class T>
struct NanLast {
    bool operator()(T a, T b) const {
        if constexpr (std::is_floating_point_v<T>) {
            if (b != b) return a == a;
            if (a != a) return false;
        }
        return a < b;
    }
};

}  // namespace

void CpuBackend::k_transpose(const Tensor& x, const std::vector<int>& perm, Tensor& out) {
    const int nd = x.ndim();
    const i64 total = out.size();
    if (total == 0) return;
    const std::size_t es = dtype_size(x.dtype());
    if (nd == 0) {
        std::memcpy(data_of<char>(out), data_of<char>(x), es);
        return;
    }
    std::vector<i64> xstride(static_cast<std::size_t>(nd), 1);
    for (int d = nd - 2; d >= 0; --d) xstride[d] = xstride[d + 1] * x.dim(d + 1);
    std::vector<i64> oshape(static_cast<std::size_t>(nd)), ostride(static_cast<std::size_t>(nd));
    for (int d = 0; d < nd; ++d) {
        oshape[d] = x.dim(perm[d]);
        ostride[d] = xstride[perm[d]];  // stride in x of the output's dimension d
    }
    dispatch(x.dtype(), [&](auto tx) {
        using T = typename decltype(tx)::type;
        const T* px = data_of<T>(x);
        T* po = data_of<T>(out);
        const i64 len = oshape[nd - 1], s = ostride[nd - 1];
        const i64 rows = total / len;
        std::vector<i64> idx(static_cast<std::size_t>(nd), 0);
        i64 off = 0;
        for (i64 r = 0; r < rows; ++r) {
            T* orow = po + r * len;
            for (i64 i = 0; i < len; ++i) orow[i] = px[off + i * s];
            for (int d = nd - 2; d >= 0; --d) {
                ++idx[d];
                off += ostride[d];
                if (idx[d] < oshape[d]) break;
                off -= ostride[d] * oshape[d];
                idx[d] = 0;
            }
        }
    });
}

void CpuBackend::k_concat(const std::vector<Tensor>& xs, std::int64_t outer, Tensor& out) {
    const std::size_t es = dtype_size(out.dtype());
    std::vector<i64> inner(xs.size());
    i64 total_inner = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        inner[i] = outer == 0 ? 0 : xs[i].size() / outer;
        total_inner += inner[i];
    }
    char* o = data_of<char>(out);
    i64 col = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        if (inner[i] == 0) continue;
        if (xs[i].dtype() != out.dtype())
            throw ShapeError(std::string("cpu: concat of ") + dtype_name(xs[i].dtype()) + " into " +
                             dtype_name(out.dtype()));
        const char* src = data_of<char>(xs[i]);
        for (i64 r = 0; r < outer; ++r)
            std::memcpy(o + (r * total_inner + col) * es, src + r * inner[i] * es, static_cast<std::size_t>(inner[i]) * es);
        col += inner[i];
    }
}

void CpuBackend::k_gather(const Tensor& x, const Tensor& index, std::int64_t outer, std::int64_t n,
                          std::int64_t inner, Tensor& out) {
    const i64 m = index.size();
    std::vector<i64> ibuf;
    const i64* idx = index.dtype() == DType::i64 ? data_of<i64>(index) : (ibuf = as_vector<i64>(index), ibuf.data());
    for (i64 j = 0; j < m; ++j)
        if (idx[j] < 0 || idx[j] >= n)
            throw ShapeError("cpu: gather index " + std::to_string(idx[j]) + " at position " + std::to_string(j) +
                             " is out of range [0, " + std::to_string(n) + ")");
    const std::size_t es = dtype_size(x.dtype());
    const char* px = data_of<char>(x);
    char* po = data_of<char>(out);
    const std::size_t row = static_cast<std::size_t>(inner) * es;
    if (row == 0) return;
    for (i64 a = 0; a < outer; ++a)
        for (i64 j = 0; j < m; ++j)
            std::memcpy(po + (a * m + j) * row, px + (a * n + idx[j]) * row, row);
}

Tensor CpuBackend::k_masked_select(const Tensor& x, const Tensor& mask) {
    const i64 n = x.size();
    std::vector<std::uint8_t> mbuf;
    const std::uint8_t* m =
        mask.dtype() == DType::boolean ? data_of<std::uint8_t>(mask) : (mbuf = as_vector<std::uint8_t>(mask), mbuf.data());
    i64 count = 0;
    for (i64 i = 0; i < n; ++i) count += m[i] != 0;
    auto storage = k_alloc(x.dtype(), count);
    Tensor out = make_tensor(storage, x.dtype(), Shape{count});
    const std::size_t es = dtype_size(x.dtype());
    const char* px = data_of<char>(x);
    char* po = data_of<char>(out);
    for (i64 i = 0, k = 0; i < n; ++i)
        if (m[i]) std::memcpy(po + (k++) * es, px + i * es, es);
    return out;
}

void CpuBackend::k_sort(const Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner, Tensor& out) {
    dispatch(x.dtype(), [&](auto tx) {
        using T = typename decltype(tx)::type;
        const T* px = data_of<T>(x);
        T* po = data_of<T>(out);
        std::copy(px, px + x.size(), po);
        if (inner == 1) {
            for (i64 a = 0; a < outer; ++a) std::sort(po + a * n, po + (a + 1) * n, NanLast<T>{});
            return;
        }
        std::vector<T> col(static_cast<std::size_t>(n));
        for (i64 a = 0; a < outer; ++a)
            for (i64 i = 0; i < inner; ++i) {
                T* base = po + a * n * inner + i;
                for (i64 j = 0; j < n; ++j) col[j] = base[j * inner];
                std::sort(col.begin(), col.end(), NanLast<T>{});
                for (i64 j = 0; j < n; ++j) base[j * inner] = col[j];
            }
    });
}

}  // namespace hf::cpu
