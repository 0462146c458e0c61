// Small dense linear algebra on host doubles (Hessians and covariances of at most a few hundred parameters):
// row-major square matrices, Cholesky with a diagonal shift for indefinite matrices. Plain loops in index
// order: the fits' results depend on these roundings, so a faster variant must keep them (or change results
// on purpose).
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace hf::numerics {

// In-place Cholesky A = L L^T (lower triangle of `a` receives L). False when A is not positive definite.
inline bool cholesky(std::vector<double>& a, std::size_t n) {
    for (std::size_t j = 0; j < n; ++j) {
        double d = a[j * n + j];
        for (std::size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
        if (!(d > 0.0) || !std::isfinite(d)) return false;
        d = std::sqrt(d);
        a[j * n + j] = d;
        for (std::size_t i = j + 1; i < n; ++i) {
            double s = a[i * n + j];
            for (std::size_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
            a[i * n + j] = s / d;
        }
    }
    return true;
}

// Solves L L^T x = b with the factor from cholesky().
inline std::vector<double> cholesky_solve(const std::vector<double>& l, std::size_t n, std::vector<double> b) {
    for (std::size_t i = 0; i < n; ++i) {
        double s = b[i];
        for (std::size_t k = 0; k < i; ++k) s -= l[i * n + k] * b[k];
        b[i] = s / l[i * n + i];
    }
    for (std::size_t ii = n; ii-- > 0;) {
        double s = b[ii];
        for (std::size_t k = ii + 1; k < n; ++k) s -= l[k * n + ii] * b[k];
        b[ii] = s / l[ii * n + ii];
    }
    return b;
}

// Factorises H + shift*I with the smallest shift (0, then growing) that makes it positive definite.
// Returns the shift used; `factor` receives the Cholesky factor.
inline double shifted_cholesky(const std::vector<double>& h, std::size_t n, std::vector<double>& factor) {
    double maxdiag = 0.0;
    for (std::size_t i = 0; i < n; ++i) maxdiag = std::fmax(maxdiag, std::fabs(h[i * n + i]));
    double shift = 0.0;
    for (int attempt = 0; attempt < 60; ++attempt) {
        factor = h;
        for (std::size_t i = 0; i < n; ++i) factor[i * n + i] += shift;
        if (cholesky(factor, n)) return shift;
        shift = shift == 0.0 ? std::fmax(1e-10 * maxdiag, 1e-12) : shift * 10.0;
    }
    factor.assign(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) factor[i * n + i] = 1.0;
    return -1.0;
}

// Inverse of a symmetric positive definite matrix from its Cholesky factor: W = L^-1 (forward substitution,
// row by row), then A^-1 = W^T W, both walking rows (a third of the work of n solves, and cache-friendly).
inline std::vector<double> cholesky_inverse(const std::vector<double>& l, std::size_t n) {
    std::vector<double> w(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        const double d = 1.0 / l[i * n + i];
        w[i * n + i] = d;
        // Row i of W: w_ij = -(sum_{k=j}^{i-1} l_ik w_kj) / l_ii for j < i.
        for (std::size_t k = 0; k < i; ++k) {
            const double lik = l[i * n + k];
            if (lik == 0.0) continue;
            for (std::size_t j = 0; j <= k; ++j) w[i * n + j] -= lik * w[k * n + j];
        }
        for (std::size_t j = 0; j < i; ++j) w[i * n + j] *= d;
    }
    std::vector<double> inv(n * n, 0.0);
    for (std::size_t k = 0; k < n; ++k)  // inv += w_k^T w_k over the rows k of W (w_kj nonzero for j <= k)
        for (std::size_t i = 0; i <= k; ++i) {
            const double wki = w[k * n + i];
            if (wki == 0.0) continue;
            for (std::size_t j = 0; j <= i; ++j) inv[i * n + j] += wki * w[k * n + j];
        }
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < i; ++j) inv[j * n + i] = inv[i * n + j];
    return inv;
}

inline double dot(const double* a, const double* b, std::size_t n) {
    double s = 0.0;
    for (std::size_t i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
}

}  // namespace hf::numerics
