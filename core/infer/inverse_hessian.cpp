#include "infer/inverse_hessian.hpp"

#include <cmath>

#include "hfcore/backend.hpp"
#include "infer/dense.hpp"

namespace hf::infer::detail {

namespace {

// Bound-active components beyond which the Schur complement (a Cholesky of their block per step) costs more
// than it saves; the caller then falls back to the scaled identity.
constexpr std::size_t kMaxActive = 24;

// Row i of a row-major matrix times v, in four partial sums so that the loop vectorises.
double row_dot(const double* row, const double* v, std::size_t n) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    std::size_t j = 0;
    for (; j + 4 <= n; j += 4) {
        s0 += row[j] * v[j];
        s1 += row[j + 1] * v[j + 1];
        s2 += row[j + 2] * v[j + 2];
        s3 += row[j + 3] * v[j + 3];
    }
    for (; j < n; ++j) s0 += row[j] * v[j];
    return (s0 + s1) + (s2 + s3);
}

}  // namespace

InverseHessian InverseHessian::at_asimov(const Model& model, const Problem& p, const std::vector<double>& y0) {
    InverseHessian ih;
    const std::size_t nf = p.nfree();
    if (nf == 0) return ih;
    Problem asimov = p;
    asimov.lik = model.bind(model.expected_data(p.to_x(y0), true));
    std::vector<double> g;
    if (!std::isfinite(asimov.nll(y0, &g))) return ih;
    std::vector<double> h = asimov.hessian_forward(y0, g);
    for (double v : h)
        if (!std::isfinite(v)) return ih;
    std::vector<double> l;
    if (shifted_cholesky(h, nf, l) < 0.0) return ih;
    ih.inv_ = cholesky_inverse(l, nf);
    ih.n_ = nf;
    return ih;
}

bool InverseHessian::apply(const char* free, double* q) {
    const std::size_t n = n_;
    if (n == 0) return false;
    active_.clear();
    for (std::size_t i = 0; i < n; ++i) {
        if (free[i]) continue;
        active_.push_back(i);
        q[i] = 0.0;
    }
    const std::size_t a = active_.size();
    if (a > kMaxActive || a == n) return false;
    r_.resize(n);
    for (std::size_t i = 0; i < n; ++i) r_[i] = row_dot(inv_.data() + i * n, q, n);
    if (a > 0) {
        // (H_FF)^-1 = M_FF - M_FA (M_AA)^-1 M_AF for M = H^-1; r = M q with q_A = 0 gives r_A = M_AF q_F.
        maa_.resize(a * a);
        w_.resize(a);
        for (std::size_t u = 0; u < a; ++u) {
            w_[u] = r_[active_[u]];
            for (std::size_t v = 0; v < a; ++v) maa_[u * a + v] = inv_[active_[u] * n + active_[v]];
        }
        if (!cholesky(maa_, a)) return false;
        w_ = cholesky_solve(maa_, a, std::move(w_));
        for (std::size_t i = 0; i < n; ++i) {
            if (!free[i]) continue;
            const double* row = inv_.data() + i * n;
            double c = 0.0;
            for (std::size_t u = 0; u < a; ++u) c += row[active_[u]] * w_[u];
            r_[i] -= c;
        }
    }
    for (std::size_t i = 0; i < n; ++i) q[i] = free[i] ? r_[i] : 0.0;
    return true;
}

}  // namespace hf::infer::detail
