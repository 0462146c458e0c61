// The cpu fused likelihood's per-point working memory (one per point of a group, per thread) and the products of
// a CSR row's factors with their derivatives, shared by the forward pass, the gradient and the Jacobian.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "simd.hpp"

namespace hf::cpu::fused {

// The product of tv[src[f]] over f in [f0, f1), in two interleaved products: half the multiply latency chain.
template <class R>
inline R product_of(const R* tv, const std::int32_t* src, std::int32_t f0, std::int32_t f1) {
    R p0 = R(1), p1 = R(1);
    std::int32_t f = f0;
    for (; f + 1 < f1; f += 2) {
        p0 *= tv[src[f]];
        p1 *= tv[src[f + 1]];
    }
    if (f < f1) p0 *= tv[src[f]];
    return p0 * p1;
}

// The derivatives of w * (that product) by each factor, w times the product of the others, passed to
// add(src[f], value). Prefix and suffix products (pre: scratch of f1 - f0 + 1), so that a factor at 0 (a
// normfactor at 0) still gets its derivative.
template <class R, class Add>
inline void distribute(const R* tv, const std::int32_t* src, std::int32_t f0, std::int32_t f1, double w, R* pre,
                       Add&& add) {
    const std::int32_t nf = f1 - f0;
    // One to three factors (most elements: a sample's shared normsys product, a gamma, a normfactor), written
    // out: the same products as the loops below give (a product with the prefix's or suffix's 1 is exact), without
    // their scratch traffic.
    const std::int32_t* s = src + f0;
    switch (nf) {
        case 0: return;
        case 1: add(s[0], w); return;  // w times the empty prefix and suffix products
        case 2:
            add(s[1], w * static_cast<double>(tv[s[0]]));
            add(s[0], w * static_cast<double>(tv[s[1]]));
            return;
        case 3: {
            const R t0 = tv[s[0]], t1 = tv[s[1]], t2 = tv[s[2]];
            add(s[2], w * static_cast<double>(t0 * t1));
            add(s[1], w * static_cast<double>(t0 * t2));
            add(s[0], w * static_cast<double>(t2 * t1));
            return;
        }
        default: break;
    }
    pre[0] = R(1);
    for (std::int32_t i = 0; i < nf; ++i) pre[i + 1] = pre[i] * tv[src[f0 + i]];
    R suf = R(1);
    for (std::int32_t i = nf - 1; i >= 0; --i) {
        add(src[f0 + i], w * static_cast<double>(pre[i] * suf));
        suf *= tv[src[f0 + i]];
    }
}


// Per-thread working memory: grows to the largest model seen, never shrinks, so calls do not allocate.
// tv holds every factor value a CSR entry can point at: the P parameters, then the normsys terms.
template <class R>
struct Scratch {
    std::vector<R> tv, dtv, w, dw, base, prodf, rate, pre;
    std::vector<double> wbin, wpf, gterm, gslot, gacc;
    // W: the histosys weight count, padded for the dense path (see simd.hpp).
    void fit(std::size_t P, std::size_t T, std::size_t W, std::size_t E, std::size_t N, std::size_t maxf) {
        auto grow = [](auto& v, std::size_t n) {
            if (v.size() < n) v.resize(n);
        };
        grow(tv, P + T), grow(dtv, T), grow(gterm, T);
        grow(w, W), grow(dw, W), grow(gslot, W);
        grow(base, E), grow(prodf, E), grow(wpf, E);
        grow(rate, N), grow(wbin, N);
        grow(pre, maxf + 1), grow(gacc, P);
    }
};

// One per point of a group evaluated together (CpuFused::eval_points).
template <class R>
Scratch<R>& scratch(int point) {
    static thread_local std::array<Scratch<R>, simd::kMaxPoints> s;
    return s[static_cast<std::size_t>(point)];
}

[[noreturn]] void bad(const std::string& what) { throw ShapeError("cpu fused likelihood: " + what); }


}  // namespace hf::cpu::fused
