#include "infer/minimize/lbfgs_history.hpp"

#include <algorithm>
#include <cmath>

#include "numerics/lanes.hpp"

namespace hf::infer::detail {

namespace lanes = numerics::lanes;

void LbfgsHistory::push(const double* sv, const double* yv, std::size_t nf) {
    const double sy = lanes::dot(sv, yv, nf);
    if (!(sy > 1e-10 * std::sqrt(lanes::dot(sv, sv, nf) * lanes::dot(yv, yv, nf)))) return;
    if (s_.empty()) {
        nf_ = nf;
        s_.resize(static_cast<std::size_t>(memory_) * nf);
        y_.resize(static_cast<std::size_t>(memory_) * nf);
    }
    std::size_t to;
    if (count_ < memory_) {
        to = slot(count_++);
    } else {  // the oldest pair makes room
        to = static_cast<std::size_t>(oldest_);
        oldest_ = (oldest_ + 1) % memory_;
    }
    std::copy(sv, sv + nf, s_.begin() + static_cast<std::ptrdiff_t>(to * nf));
    std::copy(yv, yv + nf, y_.begin() + static_cast<std::ptrdiff_t>(to * nf));
    sy_[to] = sy;
    rho_[to] = 1.0 / sy;
}

// Four running maxima: one made every comparison wait for the one before. A maximum is exact, so the order
// changes nothing (and a NaN is passed over either way).
double max_abs(const std::vector<double>& v) {
    double m[4] = {0.0, 0.0, 0.0, 0.0};
    const std::size_t n = v.size();
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; ++l) m[l] = std::max(m[l], std::fabs(v[i + l]));
    for (; i < n; ++i) m[0] = std::max(m[0], std::fabs(v[i]));
    return std::max(std::max(m[0], m[1]), std::max(m[2], m[3]));
}

// Where every component is free (most steps of most toys), plain dot products, each fused with the update
// before it in one pass over q.
void lbfgs_first_loop(const LbfgsHistory& h, const std::vector<double>& g, const std::vector<char>& free,
                      bool all_free, std::vector<double>& q, double* alpha) {
    const std::size_t n = g.size();
    const char* fr = free.data();
    q.resize(n);
    for (std::size_t i = 0; i < n; ++i) q[i] = free[i] ? g[i] : 0.0;
    const int m = h.size();
    if (!all_free) {
        for (int k = m - 1; k >= 0; --k) {
            alpha[k] = h.rho(k) * lanes::masked_dot(h.s(k), q.data(), fr, n);
            lanes::masked_axpy(-alpha[k], h.y(k), fr, q.data(), n);
        }
        return;
    }
    double sq = m > 0 ? lanes::dot(h.s(m - 1), q.data(), n) : 0.0;
    for (int k = m - 1; k >= 0; --k) {
        alpha[k] = h.rho(k) * sq;
        if (k > 0) sq = lanes::axpy_dot(-alpha[k], h.y(k), q.data(), h.s(k - 1), n);
        else lanes::axpy(-alpha[k], h.y(k), q.data(), n);
    }
}

void lbfgs_second_loop(const LbfgsHistory& h, const std::vector<char>& free, bool all_free, bool m_applied,
                       std::vector<double>& q, const double* alpha) {
    const std::size_t n = q.size();
    const char* fr = free.data();
    const int m = h.size();
    if (m == 0) {
        if (!m_applied) {
            const double scale = 1.0 / std::max(1.0, max_abs(q));
            for (auto& v : q) v *= scale;
        }
        for (auto& v : q) v = -v;
        return;
    }
    if (!m_applied) {
        const double* s = h.s(m - 1);
        const double* y = h.y(m - 1);
        const double sy = all_free ? lanes::dot(s, y, n) : lanes::masked_dot(s, y, fr, n);
        const double yy = all_free ? lanes::dot(y, y, n) : lanes::masked_dot(y, y, fr, n);
        const double gamma = (sy > 0 && yy > 0) ? sy / yy : 1.0;
        for (auto& v : q) v *= gamma;
    }
    if (!all_free) {
        for (int k = 0; k < m; ++k) {
            const double beta = h.rho(k) * lanes::masked_dot(h.y(k), q.data(), fr, n);
            lanes::masked_axpy(alpha[k] - beta, h.s(k), fr, q.data(), n);
        }
    } else {
        double yq = lanes::dot(h.y(0), q.data(), n);
        for (int k = 0; k < m; ++k) {
            const double beta = h.rho(k) * yq;
            if (k + 1 < m) yq = lanes::axpy_dot(alpha[k] - beta, h.s(k), q.data(), h.y(k + 1), n);
            else lanes::axpy(alpha[k] - beta, h.s(k), q.data(), n);
        }
    }
    for (std::size_t i = 0; i < n; ++i) q[i] = free[i] ? -q[i] : 0.0;
}

}  // namespace hf::infer::detail
