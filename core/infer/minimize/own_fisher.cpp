#include "infer/minimize/own_fisher.hpp"

#include <algorithm>
#include <cmath>

#include "hfcore/backend.hpp"
#include "hfcore/plugin/likelihood.hpp"
#include "numerics/dense.hpp"
#include "numerics/lanes.hpp"

namespace hf::infer::detail {

namespace lanes = numerics::lanes;

std::vector<OwnFisher> OwnFisher::at(const Model& model, const Problem& p,
                                         const std::vector<const std::vector<double>*>& ys) {
    const std::size_t nf = p.nfree(), m = ys.size();
    const std::size_t np = static_cast<std::size_t>(model.n_pars());
    const std::size_t nb = static_cast<std::size_t>(model.n_main());
    std::vector<OwnFisher> out(m);
    if (nf == 0 || m == 0) return out;

    std::vector<double> pts(m * np);
    for (std::size_t j = 0; j < m; ++j) p.to_x(*ys[j], pts.data() + j * np);
    auto& be = *model.backend();
    const Tensor pt = be.from_host(pts, {static_cast<std::int64_t>(m), static_cast<std::int64_t>(np)});
    const std::vector<double> jac = be.to_host_double(model.expected_main_jacobian(pt));
    const std::vector<double> lam = be.to_host_double(model.expected_data(pt, false));

    // The constraints' Fisher information per parameter (unscaled): 1 / sigma^2 for a normal constraint, tau /
    // gamma for a Poisson one (aux ~ Poisson(tau gamma)); the scaled one multiplies by scale^2.
    const PackedLikelihood& pk = packed_likelihood(model);
    std::vector<double> normal(np, 0.0), poisson_tau(np, 0.0);
    for (std::size_t g = 0; g < pk.gauss_par.size(); ++g)
        normal[static_cast<std::size_t>(pk.gauss_par[g])] += 1.0 / (pk.gauss_sigma[g] * pk.gauss_sigma[g]);
    for (std::size_t q = 0; q < pk.pois_par.size(); ++q)
        poisson_tau[static_cast<std::size_t>(pk.pois_par[q])] += pk.pois_tau[q];

    for (std::size_t j = 0; j < m; ++j) {
        const double* lj = lam.data() + j * nb;
        const double* jj = jac.data() + j * nb * np;
        const double* x = pts.data() + j * np;
        OwnFisher f;
        f.nf_ = nf;
        f.nb_ = nb;
        f.u_.assign(nb * nf, 0.0);
        f.dinv_.assign(nf, 0.0);
        bool finite = true;
        for (std::size_t b = 0; b < nb; ++b) {
            if (!(lj[b] > 0.0)) {  // a bin expecting no events: no information there, and 1 / lambda fails
                finite = false;
                break;
            }
            const double w = 1.0 / std::sqrt(lj[b]);
            for (std::size_t i = 0; i < nf; ++i)
                f.u_[b * nf + i] = jj[b * np + static_cast<std::size_t>(p.free[i])] * p.scale[i] * w;
        }
        for (std::size_t i = 0; i < nf; ++i) {
            const std::size_t par = static_cast<std::size_t>(p.free[i]);
            double d = normal[par];
            if (poisson_tau[par] > 0.0) d += x[par] > 0.0 ? poisson_tau[par] / x[par] : 0.0;
            d *= p.scale[i] * p.scale[i];
            f.dinv_[i] = 1.0 / std::max(d, kMinCurvature);
            finite = finite && std::isfinite(d);
        }
        for (double v : f.u_) finite = finite && std::isfinite(v);
        if (finite) out[j] = std::move(f);
    }
    return out;
}

// H = D + U^T U on the free components; with V = U D^-1/2 and I + V V^T = L L^T, Woodbury's identity gives
// H^-1 = D^-1 - Y^T Y, Y = L^-1 V D^-1/2: an application is two passes over Y (2 x bins x parameters), without
// the triangular solves, whose chains of dependent steps cost more than the passes.
bool OwnFisher::factorise(const char* free) {
    const std::size_t nb = nb_, nf = nf_;
    mask_.assign(free, free + nf);
    std::vector<double> root(nf);
    for (std::size_t i = 0; i < nf; ++i) root[i] = free[i] ? std::sqrt(dinv_[i]) : 0.0;
    y_.resize(nb * nf);
    for (std::size_t b = 0; b < nb; ++b)
        for (std::size_t i = 0; i < nf; ++i) y_[b * nf + i] = u_[b * nf + i] * root[i];
    // I + V V^T, row b against four rows c <= b at a time (row b read once for them)
    std::vector<double> l(nb * nb, 0.0);
    for (std::size_t b = 0; b < nb; ++b)
        for (std::size_t c0 = 0; c0 <= b; c0 += lanes::kMaxVectors) {
            const int count = static_cast<int>(std::min<std::size_t>(lanes::kMaxVectors, b + 1 - c0));
            const double* rows[lanes::kMaxVectors];
            double dots[lanes::kMaxVectors];
            for (int t = 0; t < count; ++t) rows[t] = y_.data() + (c0 + t) * nf;
            lanes::dots(y_.data() + b * nf, rows, count, nf, dots);
            for (int t = 0; t < count; ++t) {
                const std::size_t c = c0 + static_cast<std::size_t>(t);
                l[b * nb + c] = l[c * nb + b] = dots[t] + (b == c ? 1.0 : 0.0);
            }
        }
    if (!numerics::cholesky(l, nb)) {
        y_.clear();
        return false;
    }
    // Rows of V become rows of L^-1 V in place (forward substitution, a row at a time), then scaled by D^-1/2.
    std::vector<double> minus_l(nb);
    for (std::size_t b = 0; b < nb; ++b) {
        double* row = y_.data() + b * nf;
        for (std::size_t c = 0; c < b; ++c) minus_l[c] = -l[b * nb + c];
        lanes::axpy_rows(minus_l.data(), y_.data(), b, nf, row);
        const double inv = 1.0 / l[b * nb + b];
        for (std::size_t i = 0; i < nf; ++i) row[i] *= inv;
    }
    for (std::size_t b = 0; b < nb; ++b)
        for (std::size_t i = 0; i < nf; ++i) y_[b * nf + i] *= root[i];
    return true;
}

bool OwnFisher::woodbury_parts(std::vector<double>& dinv, std::vector<double>& y, std::size_t& rows) {
    if (nf_ == 0) return false;
    const std::vector<char> all(nf_, 1);
    if (!factorise(all.data())) {
        nf_ = 0;
        return false;
    }
    dinv = dinv_;
    y = y_;
    rows = nb_;
    return true;
}

bool OwnFisher::factorised_for(const char* free) {
    if (nf_ == 0) return false;
    if (!y_.empty() && std::equal(mask_.begin(), mask_.end(), free)) return true;
    if (factorise(free)) return true;
    nf_ = 0;  // empty from now on: the problem goes back to the fixed curvature
    return false;
}

bool OwnFisher::apply(const char* free, double* q) {
    double unused;
    return apply_with_form(free, q, nullptr, unused);
}

bool OwnFisher::apply_with_form(const char* free, double* q, const double* v, double& form) {
    const std::size_t nb = nb_, nf = nf_;
    if (!factorised_for(free)) return false;
    t_.resize(nb);
    for (std::size_t i = 0; i < nf; ++i) q[i] = free[i] ? q[i] : 0.0;
    // Y q and Y v in one pass over Y; the columns of Y off the mask are zero (factorise), so v needs no masking.
    double rows = 0.0;
    const double* qv[2] = {q, v};
    double yqv[2];
    for (std::size_t b = 0; b < nb; ++b) {
        lanes::dots(y_.data() + b * nf, qv, v ? 2 : 1, nf, yqv);
        t_[b] = -yqv[0];
        if (v) rows += yqv[1] * yqv[1];
    }
    if (v) {
        double diagonal = 0.0;
        for (std::size_t i = 0; i < nf; ++i) diagonal += free[i] ? dinv_[i] * v[i] * v[i] : 0.0;
        form = diagonal - rows;
    }
    for (std::size_t i = 0; i < nf; ++i) q[i] *= dinv_[i];
    lanes::axpy_rows(t_.data(), y_.data(), nb, nf, q);
    for (std::size_t i = 0; i < nf; ++i) q[i] = free[i] ? q[i] : 0.0;
    return true;
}

}  // namespace hf::infer::detail
