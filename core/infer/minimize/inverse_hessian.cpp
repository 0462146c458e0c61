#include "infer/minimize/inverse_hessian.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "hfcore/backend.hpp"
#include "infer/minimize/own_fisher.hpp"
#include "numerics/dense.hpp"
#include "numerics/lanes.hpp"

namespace hf::infer::detail {

namespace lanes = numerics::lanes;

namespace {

// Bound-active components beyond which the Schur complement (a Cholesky of their block per step) costs more
// than it saves; the caller then falls back to the scaled identity.
constexpr std::size_t kMaxActive = 24;

}  // namespace

InverseHessian InverseHessian::at_asimov(const Model& model, const Problem& p, const std::vector<double>& y0) {
    if (p.nfree() == 0) return InverseHessian();
    if (model.native_jacobian()) {
        InverseHessian ih = from_fisher(model, p, y0);
        if (!ih.empty()) return ih;
    }
    return from_differences(model, p, y0);
}

InverseHessian InverseHessian::from_fisher(const Model& model, const Problem& p, const std::vector<double>& y0) {
    InverseHessian ih;
    const std::size_t nf = p.nfree();
    auto fisher = OwnFisher::at(model, p, {&y0});
    if (fisher[0].empty() || !fisher[0].woodbury_parts(ih.dinv_, ih.y_, ih.rows_)) return InverseHessian();
    // The dense inverse too, for the Schur complements of apply(): the same matrix, D^-1 - Y^T Y.
    ih.inv_.assign(nf * nf, 0.0);
    for (std::size_t i = 0; i < nf; ++i) ih.inv_[i * nf + i] = ih.dinv_[i];
    for (std::size_t b = 0; b < ih.rows_; ++b) {
        const double* yb = ih.y_.data() + b * nf;
        for (std::size_t i = 0; i < nf; ++i) lanes::axpy(-yb[i], yb, ih.inv_.data() + i * nf, nf);
    }
    ih.n_ = nf;
    if (2 * ih.rows_ >= nf) {  // more bins than half the parameters: the dense product is the cheaper one
        ih.rows_ = 0;
        ih.y_.clear();
        ih.dinv_.clear();
    }
    return ih;
}

InverseHessian InverseHessian::from_differences(const Model& model, const Problem& p,
                                                const std::vector<double>& y0) {
    InverseHessian ih;
    const std::size_t nf = p.nfree();
    Problem asimov = p;
    asimov.lik = model.bind(model.expected_data(p.to_x(y0), true));
    std::vector<double> g;
    if (!std::isfinite(asimov.nll(y0, &g))) return ih;
    std::vector<double> h = asimov.hessian_forward(y0, g);
    for (double v : h)
        if (!std::isfinite(v)) return ih;
    std::vector<double> l;
    if (numerics::shifted_cholesky(h, nf, l) < 0.0) return ih;
    ih.inv_ = numerics::cholesky_inverse(l, nf);
    ih.n_ = nf;
    return ih;
}

bool InverseHessian::apply(const char* free, double* q, const double* v, double* form) {
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
    const bool with_form = v != nullptr && form != nullptr;
    if (with_form) {
        v_masked_.resize(n);
        for (std::size_t i = 0; i < n; ++i) v_masked_[i] = free[i] ? v[i] : 0.0;
    }
    // r = M q and r2 = M v, q_A = v_A = 0
    r_.resize(n);
    if (with_form) r2_.resize(n);
    if (rows_ > 0) {
        const double* in[2] = {q, v_masked_.data()};
        double* out[2] = {r_.data(), r2_.data()};
        full_product(in, out, with_form ? 2 : 1);  // the Woodbury form's two thin passes
    } else {
        for (std::size_t i = 0; i < n; ++i) r_[i] = lanes::dot(inv_.data() + i * n, q, n);
        if (with_form)
            for (std::size_t i = 0; i < n; ++i) r2_[i] = lanes::dot(inv_.data() + i * n, v_masked_.data(), n);
    }
    if (a > 0) {
        // (H_FF)^-1 = M_FF - M_FA (M_AA)^-1 M_AF for M = H^-1; r = M q with q_A = 0 gives r_A = M_AF q_F.
        maa_.resize(a * a);
        for (std::size_t u = 0; u < a; ++u)
            for (std::size_t w = 0; w < a; ++w) maa_[u * a + w] = inv_[active_[u] * n + active_[w]];
        if (!numerics::cholesky(maa_, a)) return false;
        schur_correct(free, r_);
        if (with_form) schur_correct(free, r2_);
    }
    for (std::size_t i = 0; i < n; ++i) q[i] = free[i] ? r_[i] : 0.0;
    if (with_form) *form = lanes::masked_dot(v, r2_.data(), free, n);
    return true;
}

void InverseHessian::schur_correct(const char* free, std::vector<double>& r) {
    const std::size_t n = n_, a = active_.size();
    w_.resize(a);
    for (std::size_t u = 0; u < a; ++u) w_[u] = r[active_[u]];
    w_ = numerics::cholesky_solve(maa_, a, std::move(w_));
    for (std::size_t i = 0; i < n; ++i) {
        if (!free[i]) continue;
        const double* row = inv_.data() + i * n;
        double c = 0.0;
        for (std::size_t u = 0; u < a; ++u) c += row[active_[u]] * w_[u];
        r[i] -= c;
    }
}

void InverseHessian::apply_many(const std::vector<const char*>& free, const std::vector<double*>& q,
                                std::vector<char>& applied, const std::vector<const double*>& v,
                                std::vector<double>* forms) {
    const std::size_t count = q.size(), n = n_;
    applied.assign(count, 0);
    const bool with_forms = forms != nullptr && !v.empty();
    if (forms) forms->assign(count, std::numeric_limits<double>::quiet_NaN());
    if (n == 0) return;
    // The problems with every component free, in groups of lanes::kMaxVectors; the others one by one.
    std::size_t group[lanes::kMaxVectors];
    int grouped = 0;
    many_.resize(lanes::kMaxVectors * n);
    const auto flush = [&] {
        const double* in[lanes::kMaxVectors];
        double* out[lanes::kMaxVectors];
        for (int t = 0; t < grouped; ++t) {
            in[t] = q[group[t]];
            out[t] = many_.data() + static_cast<std::size_t>(t) * n;
        }
        full_product(in, out, grouped);
        for (int t = 0; t < grouped; ++t) {
            std::copy(out[t], out[t] + n, q[group[t]]);
            applied[group[t]] = 1;
        }
        if (with_forms) {
            const double* fv[lanes::kMaxVectors];
            double f[lanes::kMaxVectors];
            int with = 0;
            std::size_t which[lanes::kMaxVectors];
            for (int t = 0; t < grouped; ++t)
                if (v[group[t]]) {
                    which[with] = group[t];
                    fv[with++] = v[group[t]];
                }
            if (with > 0) full_forms(fv, with, f);
            for (int t = 0; t < with; ++t) (*forms)[which[t]] = f[t];
        }
        grouped = 0;
    };
    for (std::size_t t = 0; t < count; ++t) {
        const char* fr = free[t];
        if (std::all_of(fr, fr + n, [](char c) { return c != 0; })) {
            group[grouped++] = t;
            if (grouped == lanes::kMaxVectors) flush();
        } else if (with_forms && v[t]) {
            double form = 0.0;
            applied[t] = apply(fr, q[t], v[t], &form);
            if (applied[t]) (*forms)[t] = form;
        } else {
            applied[t] = apply(fr, q[t]);
        }
    }
    if (grouped > 0) flush();
}

// out[t] = v[t]^T H^-1 v[t] over every component, for up to lanes::kMaxVectors vectors.
void InverseHessian::full_forms(const double* const* v, int count, double* out) {
    const std::size_t n = n_;
    if (rows_ == 0) {  // v.(M v), M read once for all the vectors
        many_.resize(lanes::kMaxVectors * n);
        double* mv[lanes::kMaxVectors];
        for (int t = 0; t < count; ++t) mv[t] = many_.data() + static_cast<std::size_t>(t) * n;
        lanes::matvec(inv_.data(), n, n, v, mv, count);
        for (int t = 0; t < count; ++t) out[t] = lanes::dot(v[t], mv[t], n);
        return;
    }
    // D^-1 - Y^T Y: the diagonal's form less |Y v|^2, each row of Y read once for all the vectors
    double rows[lanes::kMaxVectors] = {}, yv[lanes::kMaxVectors];
    for (std::size_t b = 0; b < rows_; ++b) {
        lanes::dots(y_.data() + b * n, v, count, n, yv);
        for (int t = 0; t < count; ++t) rows[t] += yv[t] * yv[t];
    }
    for (int t = 0; t < count; ++t) {
        double diagonal = 0.0;
        for (std::size_t i = 0; i < n; ++i) diagonal += dinv_[i] * v[t][i] * v[t][i];
        out[t] = diagonal - rows[t];
    }
}

// out[t] = H^-1 in[t] over every component, for up to lanes::kMaxVectors vectors, each row of the matrix read
// once for all of them (the problems with every component free, and apply()'s product before its Schur step).
void InverseHessian::full_product(const double* const* in, double* const* out, int count) {
    const std::size_t n = n_;
    if (rows_ == 0) {
        lanes::matvec(inv_.data(), n, n, in, out, count);
        return;
    }
    double* t[lanes::kMaxVectors];
    rows_scratch_.resize(lanes::kMaxVectors * rows_);
    for (int v = 0; v < count; ++v) t[v] = rows_scratch_.data() + static_cast<std::size_t>(v) * rows_;
    lanes::matvec(y_.data(), rows_, n, in, t, count);
    for (int v = 0; v < count; ++v) {
        for (std::size_t i = 0; i < n; ++i) out[v][i] = dinv_[i] * in[v][i];
        for (std::size_t b = 0; b < rows_; ++b) t[v][b] = -t[v][b];
        lanes::axpy_rows(t[v], y_.data(), rows_, n, out[v]);
    }
}

}  // namespace hf::infer::detail
