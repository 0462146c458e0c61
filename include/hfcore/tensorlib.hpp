// pyhf's tensorlib vocabulary over the Backend interface: every operation pyhf's models use, composed from
// Tier 1 primitives. Each function takes tensors (their backend is the one used) or, to create tensors, an
// explicit Backend.
#pragma once

#include <cmath>
#include <vector>

#include "hfcore/backend.hpp"

namespace hf::tl {

inline Backend& B(const Tensor& t) { return t.backend(); }

// ---- creation ----
inline Tensor astensor(Backend& b, const std::vector<double>& v, const Shape& shape) { return b.from_host(v, shape); }
inline Tensor astensor(Backend& b, const std::vector<double>& v) { return b.from_host(v); }
inline Tensor ones(Backend& b, const Shape& s) { return b.full(s, 1.0); }
inline Tensor zeros(Backend& b, const Shape& s) { return b.full(s, 0.0); }
inline Tensor scalar_like(const Tensor& t, double v) { return B(t).full({}, v, t.dtype()); }

// ---- elementwise ----
inline Tensor add(const Tensor& a, const Tensor& b) { return B(a).binary(BinaryOp::add, a, b); }
inline Tensor sub(const Tensor& a, const Tensor& b) { return B(a).binary(BinaryOp::sub, a, b); }
inline Tensor mul(const Tensor& a, const Tensor& b) { return B(a).binary(BinaryOp::mul, a, b); }
inline Tensor divide(const Tensor& a, const Tensor& b) { return B(a).binary(BinaryOp::div, a, b); }
inline Tensor power(const Tensor& a, const Tensor& b) { return B(a).binary(BinaryOp::pow, a, b); }
inline Tensor minimum(const Tensor& a, const Tensor& b) { return B(a).binary(BinaryOp::minimum, a, b); }
inline Tensor maximum(const Tensor& a, const Tensor& b) { return B(a).binary(BinaryOp::maximum, a, b); }
inline Tensor xlogy(const Tensor& a, const Tensor& b) { return B(a).binary(BinaryOp::xlogy, a, b); }
inline Tensor add(const Tensor& a, double b) { return add(a, scalar_like(a, b)); }
inline Tensor mul(const Tensor& a, double b) { return mul(a, scalar_like(a, b)); }
inline Tensor cmp(BinaryOp op, const Tensor& a, double b) { return B(a).binary(op, a, scalar_like(a, b)); }
inline Tensor abs(const Tensor& x) { return B(x).unary(UnaryOp::abs, x); }
inline Tensor neg(const Tensor& x) { return B(x).unary(UnaryOp::neg, x); }
inline Tensor exp(const Tensor& x) { return B(x).unary(UnaryOp::exp, x); }
inline Tensor log(const Tensor& x) { return B(x).unary(UnaryOp::log, x); }
inline Tensor sqrt(const Tensor& x) { return B(x).unary(UnaryOp::sqrt, x); }
inline Tensor lgamma(const Tensor& x) { return B(x).unary(UnaryOp::lgamma, x); }
inline Tensor erf(const Tensor& x) { return B(x).unary(UnaryOp::erf, x); }
inline Tensor erfinv(const Tensor& x) { return B(x).unary(UnaryOp::erfinv, x); }
inline Tensor normal_cdf(const Tensor& x) { return B(x).unary(UnaryOp::normal_cdf, x); }
inline Tensor isfinite(const Tensor& x) { return B(x).unary(UnaryOp::isfinite, x); }
inline Tensor where(const Tensor& c, const Tensor& a, const Tensor& b) { return B(a).where(c, a, b); }
inline Tensor clip(const Tensor& x, double lo, double hi) {
    return minimum(maximum(x, scalar_like(x, lo)), scalar_like(x, hi));
}

// ---- reductions ----
inline Tensor sum(const Tensor& x, int axis) { return B(x).reduce(ReduceOp::sum, x, axis); }
inline Tensor sum(const Tensor& x) { return B(x).reduce_all(ReduceOp::sum, x); }
inline Tensor product(const Tensor& x, int axis) { return B(x).reduce(ReduceOp::prod, x, axis); }

// ---- shape ----
inline Tensor reshape(const Tensor& x, const Shape& s) { return x.reshape(s); }
inline Tensor ravel(const Tensor& x) { return x.reshape({x.size()}); }
inline Tensor transpose(const Tensor& x) {
    std::vector<int> perm(x.ndim());
    for (int i = 0; i < x.ndim(); ++i) perm[i] = x.ndim() - 1 - i;
    return B(x).transpose(x, perm);
}
inline Tensor concatenate(const std::vector<Tensor>& xs, int axis = 0) { return B(xs.at(0)).concat(xs, axis); }
inline Tensor stack(const std::vector<Tensor>& xs, int axis = 0) { return B(xs.at(0)).stack(xs, axis); }
inline Tensor gather(const Tensor& x, const Tensor& idx, int axis = 0) { return B(x).gather(x, idx, axis); }
inline Tensor boolean_mask(const Tensor& x, const Tensor& m) { return B(x).masked_select(x, m); }
inline Tensor matmul(const Tensor& a, const Tensor& b) { return B(a).matmul(a, b); }
// outer(a, b)[i, j] = a[i] b[j]
inline Tensor outer(const Tensor& a, const Tensor& b) {
    return mul(a.reshape({a.size(), 1}), b.reshape({1, b.size()}));
}
// tile(x, reps) along the leading axis: [n, ...] -> [reps * n, ...]
inline Tensor tile(const Tensor& x, std::int64_t reps) {
    std::vector<Tensor> copies(static_cast<std::size_t>(reps), x);
    return concatenate(copies, 0);
}

// ---- distributions (pyhf's poisson_logpdf / normal_logpdf) ----
// log Poisson(n | lam) for continuous n, in the cancellation-free arrangement of plugins/shared/hf_likelihood_math.h
// (hf_poisson_logpdf): n log(lam/n) + (n - lam) + poisson_const(n).
Tensor poisson_const(const Tensor& n);
inline Tensor poisson_logpdf(const Tensor& n, const Tensor& lam) {
    Tensor zero = cmp(BinaryOp::eq, n, 0.0);
    Tensor safe_n = where(zero, scalar_like(n, 1.0), n);
    Tensor main = add(mul(n, log(divide(lam, safe_n))), sub(n, lam));
    return where(zero, neg(lam), add(main, poisson_const(n)));
}
// log Poisson(aux | par * tau) arranged as hf_poisson_constraint_logpdf in plugins/shared/hf_likelihood_math.h.
inline Tensor poisson_constraint_logpdf(const Tensor& aux, const Tensor& par, const Tensor& tau) {
    Tensor zero = cmp(BinaryOp::eq, aux, 0.0);
    Tensor safe = where(zero, scalar_like(aux, 1.0), aux);
    Tensor t = add(mul(aux, log(par)), mul(aux, log(divide(tau, safe))));
    t = add(t, sub(sub(aux, tau), mul(add(par, -1.0), tau)));
    return where(zero, neg(mul(par, tau)), add(t, poisson_const(aux)));
}
inline Tensor normal_logpdf(const Tensor& x, const Tensor& mu, const Tensor& sigma) {
    Tensor z = divide(sub(x, mu), sigma);
    Tensor half_z2 = mul(mul(z, z), 0.5);
    return sub(neg(half_z2), add(log(sigma), 0.91893853320467274178));
}

// percentile along the last axis with linear interpolation (numpy's default), q in [0, 100].
Tensor percentile(const Tensor& x, double q);

}  // namespace hf::tl
