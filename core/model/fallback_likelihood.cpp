// Dense formulation, as pyhf's tensorised modifiers: factor entries are laid out in R "rows" of E elements
// (row r holds the r-th factor of each element; empty slots point at a constant-one parameter and evaluate
// to 1), deltas likewise in D rows (empty slots evaluate to 0). Parameter gradients are scattered back with
// dense incidence matrices through matmul, since Tier 1 has no scatter.
#include "fallback_likelihood.hpp"

#include <algorithm>
#include <cmath>

#include "hfcore/tensorlib.hpp"

namespace hf::detail {

namespace {

using namespace hf::tl;

class FallbackLikelihood final : public FusedLikelihood {
public:
    FallbackLikelihood(Backend& b, const PackedLikelihood& pk) : b_(b) {
        P_ = pk.n_pars;
        N_ = pk.n_main;
        A_ = pk.n_aux;
        E_ = pk.n_elements();
        for (std::int64_t e = 0; e < E_; ++e) {
            R_ = std::max<std::int64_t>(R_, pk.factor_offsets[e + 1] - pk.factor_offsets[e]);
            D_ = std::max<std::int64_t>(D_, pk.delta_offsets[e + 1] - pk.delta_offsets[e]);
        }
        nominal_ = b.from_host(pk.elem_nominal);
        std::vector<std::int64_t> elem_bin(pk.elem_bin.begin(), pk.elem_bin.end());
        elem_bin_ = b.from_host_index(elem_bin);
        std::vector<double> M(static_cast<std::size_t>(E_ * N_), 0.0);
        for (std::int64_t e = 0; e < E_; ++e) M[e * N_ + pk.elem_bin[e]] = 1.0;
        incidence_ = b.from_host(M, {E_, N_});

        // Factor rows.
        if (R_ > 0) {
            const std::size_t RE = static_cast<std::size_t>(R_ * E_);
            std::vector<std::int64_t> idx(RE, P_);
            std::vector<double> lin(RE, 1.0), c1(RE, 0.0), loglo(RE, 0.0), loghi(RE, 0.0), coef(6 * RE, 0.0);
            std::vector<double> S(RE * static_cast<std::size_t>(P_ + 1), 0.0);
            for (std::int64_t e = 0; e < E_; ++e)
                for (std::int32_t f = pk.factor_offsets[e], r = 0; f < pk.factor_offsets[e + 1]; ++f, ++r) {
                    std::size_t k = static_cast<std::size_t>(r * E_ + e);
                    idx[k] = pk.factor_par[f];
                    lin[k] = pk.factor_kind[f] == kFactorLinear;
                    c1[k] = pk.factor_kind[f] == kFactorNormsysCode1;
                    if (pk.factor_kind[f] != kFactorLinear) {
                        loglo[k] = std::log(pk.factor_lo[f]);
                        loghi[k] = std::log(pk.factor_hi[f]);
                    }
                    for (int c = 0; c < 6; ++c) coef[c * RE + k] = pk.factor_coef[6 * f + c];
                    S[k * (P_ + 1) + pk.factor_par[f]] = 1.0;
                }
            f_idx_ = b.from_host_index(idx);
            f_lin_ = to_bool(lin, {R_, E_});
            f_code1_ = to_bool(c1, {R_, E_});
            f_loglo_ = b.from_host(loglo, {R_, E_});
            f_loghi_ = b.from_host(loghi, {R_, E_});
            for (int c = 0; c < 6; ++c)
                f_coef_[c] = b.from_host(std::vector<double>(coef.begin() + c * RE, coef.begin() + (c + 1) * RE),
                                         {R_, E_});
            f_scatter_ = b.from_host(S, {R_ * E_, P_ + 1});
        }
        // Delta rows.
        if (D_ > 0) {
            const std::size_t DE = static_cast<std::size_t>(D_ * E_);
            std::vector<std::int64_t> idx(DE, P_);
            std::vector<double> c0(DE, 0.0), c2(DE, 0.0), lo(DE, 0.0), nom(DE, 0.0), hi(DE, 0.0);
            std::vector<double> S(DE * static_cast<std::size_t>(P_ + 1), 0.0);
            for (std::int64_t e = 0; e < E_; ++e)
                for (std::int32_t d = pk.delta_offsets[e], r = 0; d < pk.delta_offsets[e + 1]; ++d, ++r) {
                    std::size_t k = static_cast<std::size_t>(r * E_ + e);
                    idx[k] = pk.delta_par[d];
                    c0[k] = pk.delta_kind[d] == kDeltaCode0;
                    c2[k] = pk.delta_kind[d] == kDeltaCode2;
                    lo[k] = pk.delta_lo[d];
                    nom[k] = pk.delta_nom[d];
                    hi[k] = pk.delta_hi[d];
                    S[k * (P_ + 1) + pk.delta_par[d]] = 1.0;
                }
            d_idx_ = b.from_host_index(idx);
            d_code0_ = to_bool(c0, {D_, E_});
            d_code2_ = to_bool(c2, {D_, E_});
            d_lo_ = b.from_host(lo, {D_, E_});
            d_nom_ = b.from_host(nom, {D_, E_});
            d_hi_ = b.from_host(hi, {D_, E_});
            d_scatter_ = b.from_host(S, {D_ * E_, P_ + 1});
        }
        // Data slices and constraints.
        std::vector<std::int64_t> main_idx(static_cast<std::size_t>(N_));
        for (std::int64_t i = 0; i < N_; ++i) main_idx[i] = i;
        main_idx_ = b.from_host_index(main_idx);
        std::vector<std::int64_t> par_idx(static_cast<std::size_t>(P_));
        for (std::int64_t i = 0; i < P_; ++i) par_idx[i] = i;
        par_idx_ = b.from_host_index(par_idx);
        G_ = static_cast<std::int64_t>(pk.gauss_par.size());
        Q_ = static_cast<std::int64_t>(pk.pois_par.size());
        if (G_ > 0) setup_constraint(pk.gauss_par, pk.gauss_aux, pk.gauss_sigma, g_par_, g_aux_, g_width_, g_scatter_);
        if (Q_ > 0) setup_constraint(pk.pois_par, pk.pois_aux, pk.pois_tau, q_par_, q_aux_, q_tau_, q_scatter_);
        // expected_aux: concat([gauss pars, tau * poisson pars]) reordered into aux order.
        std::vector<std::int64_t> perm(static_cast<std::size_t>(A_), 0);
        for (std::int64_t i = 0; i < G_; ++i) perm[pk.gauss_aux[i]] = i;
        for (std::int64_t i = 0; i < Q_; ++i) perm[pk.pois_aux[i]] = G_ + i;
        aux_perm_ = b.from_host_index(perm);
    }

    const char* implementation() const override { return "tier-1 fallback"; }

    Tensor expected_main(const Tensor& pars) override {
        Parts p = evaluate(as_batch(pars), false);
        return p.rate;
    }

    Tensor expected_aux(const Tensor& pars_in) override {
        Tensor pars = as_batch(pars_in);
        std::vector<Tensor> parts;
        if (G_ > 0) parts.push_back(gather(pars, g_par_, 1));
        if (Q_ > 0) parts.push_back(mul(gather(pars, q_par_, 1), q_tau_));
        if (parts.empty()) return b_.full({pars.dim(0), 0}, 0.0);
        return gather(concatenate(parts, 1), aux_perm_, 1);
    }

    using FusedLikelihood::logpdf;

    // Bound data are the tensor alone (the default bind): the Tier 1 terms take the data as pyhf's do.
    Tensor logpdf(const Tensor& pars_in, const BoundData& bound, Tensor* grad) override {
        const Tensor& data = bound.data();
        Tensor pars = as_batch(pars_in);
        b_.check_owner(data, "logpdf");
        if (data.dim(-1) != N_ + A_)
            throw ShapeError("logpdf: data has " + std::to_string(data.dim(-1)) + " entries, the model needs " +
                             std::to_string(N_ + A_) + " (main + aux)");
        const std::int64_t K = pars.dim(0);
        Parts p = evaluate(pars, grad != nullptr);
        Tensor n = gather(data, main_idx_, -1);
        Tensor total = sum(poisson_logpdf(n, p.rate), 1);
        Tensor g;
        if (grad) {
            // d/d rate of n log(rate) - rate; where n == 0 the log term is absent.
            Tensor w = where(cmp(BinaryOp::eq, n, 0.0), scalar_like(p.rate, -1.0), add(divide(n, p.rate), -1.0));
            Tensor we = gather(w, elem_bin_, 1);  // [K, E]
            g = b_.full({K, P_ + 1}, 0.0);
            if (R_ > 0) {
                Tensor c = mul(mul(mul(we, p.base).reshape({K, 1, E_}), p.others), p.df);
                g = add(g, matmul(c.reshape({K, R_ * E_}), f_scatter_));
            }
            if (D_ > 0) {
                Tensor c = mul(mul(we, p.F).reshape({K, 1, E_}), p.dd);
                g = add(g, matmul(c.reshape({K, D_ * E_}), d_scatter_));
            }
        }
        if (G_ > 0) {
            Tensor x = gather(pars, g_par_, 1);
            Tensor aux = gather(data, g_aux_, -1);
            total = add(total, sum(normal_logpdf(aux, x, g_width_), 1));
            if (grad) {
                Tensor dz = divide(sub(aux, x), mul(g_width_, g_width_));
                g = add(g, matmul(dz, g_scatter_));
            }
        }
        if (Q_ > 0) {
            Tensor x = gather(pars, q_par_, 1);
            Tensor aux = gather(data, q_aux_, -1);
            total = add(total, sum(poisson_constraint_logpdf(aux, x, q_tau_), 1));
            if (grad) {
                Tensor dx = sub(divide(aux, x), q_tau_);
                g = add(g, matmul(dx, q_scatter_));
            }
        }
        if (grad) *grad = gather(g, par_idx_, 1);
        return total;
    }

private:
    struct Parts {
        Tensor rate, base, F, others, df, dd;
    };

    Tensor to_bool(const std::vector<double>& v, const Shape& s) {
        return cmp(BinaryOp::ne, b_.from_host(v, s), 0.0);
    }

    void setup_constraint(const std::vector<std::int32_t>& par, const std::vector<std::int32_t>& aux,
                          const std::vector<double>& width, Tensor& par_t, Tensor& aux_t, Tensor& width_t,
                          Tensor& scatter) {
        const std::int64_t n = static_cast<std::int64_t>(par.size());
        std::vector<std::int64_t> pi(par.begin(), par.end()), ai(aux.size());
        for (std::size_t i = 0; i < aux.size(); ++i) ai[i] = N_ + aux[i];
        std::vector<double> S(static_cast<std::size_t>(n * (P_ + 1)), 0.0);
        for (std::int64_t i = 0; i < n; ++i) S[i * (P_ + 1) + par[i]] = 1.0;
        par_t = b_.from_host_index(pi);
        aux_t = b_.from_host_index(ai);
        width_t = b_.from_host(width);
        scatter = b_.from_host(S, {n, P_ + 1});
    }

    Tensor as_batch(const Tensor& pars) {
        b_.check_owner(pars, "likelihood");
        Tensor p = pars.ndim() == 1 ? pars.reshape({1, pars.dim(0)}) : pars;
        if (p.ndim() != 2 || p.dim(1) != P_)
            throw ShapeError("likelihood: pars must be [K, " + std::to_string(P_) + "], got " + shape_str(pars.shape()));
        return p;
    }

    Parts evaluate(const Tensor& pars, bool want_grad) {
        const std::int64_t K = pars.dim(0);
        Parts p;
        Tensor pa = concatenate({pars, b_.full({K, 1}, 1.0, pars.dtype())}, 1);
        Tensor base = nominal_.reshape({1, E_});
        if (D_ > 0) {
            Tensor a = gather(pa, d_idx_, 1).reshape({K, D_, E_});
            Tensor one = scalar_like(a, 1.0);
            Tensor up = sub(d_hi_, d_nom_), dn = sub(d_nom_, d_lo_);
            // code0
            Tensor pos = cmp(BinaryOp::ge, a, 0.0);
            Tensor s0 = where(pos, up, dn);
            Tensor d0 = mul(a, s0);
            // code2 (pyhf's vectorised form)
            Tensor qa = sub(mul(add(d_hi_, d_lo_), 0.5), d_nom_), qb = mul(sub(d_hi_, d_lo_), 0.5);
            Tensor bp = add(qb, mul(qa, 2.0)), bm = sub(qb, mul(qa, 2.0));
            Tensor gt1 = cmp(BinaryOp::gt, a, 1.0), ltm1 = cmp(BinaryOp::lt, a, -1.0);
            Tensor d2 = where(gt1, mul(sub(a, one), bp), where(ltm1, mul(a, bm), add(mul(mul(a, a), qa), mul(a, qb))));
            Tensor s2 = where(gt1, bp, where(ltm1, bm, add(mul(mul(a, qa), 2.0), qb)));
            // code4p
            Tensor S = mul(add(up, dn), 0.5), Aq = mul(sub(up, dn), 0.0625);
            Tensor a2 = mul(a, a);
            Tensor poly = mul(a2, add(mul(a2, add(mul(a2, 3.0), -10.0)), 15.0));
            Tensor dpoly = mul(a, add(mul(a2, add(mul(a2, 18.0), -40.0)), 30.0));
            Tensor d4 = where(gt1, mul(a, up), where(ltm1, mul(a, dn), add(mul(S, a), mul(Aq, poly))));
            Tensor s4 = where(gt1, up, where(ltm1, dn, add(S, mul(Aq, dpoly))));
            Tensor delta = where(d_code0_, d0, where(d_code2_, d2, d4));
            if (want_grad) p.dd = where(d_code0_, s0, where(d_code2_, s2, s4));
            base = add(base, sum(delta, 1));
        }
        p.base = base;
        if (R_ > 0) {
            Tensor a = gather(pa, f_idx_, 1).reshape({K, R_, E_});
            Tensor up = exp(mul(a, f_loghi_)), dn = exp(mul(neg(a), f_loglo_));
            Tensor ge0 = cmp(BinaryOp::ge, a, 0.0);
            Tensor f1 = where(ge0, up, dn);
            Tensor df1 = where(ge0, mul(up, f_loghi_), neg(mul(dn, f_loglo_)));
            Tensor poly = f_coef_[5], dpoly = mul(f_coef_[5], 6.0);
            for (int c = 4; c >= 0; --c) {
                poly = add(mul(poly, a), f_coef_[c]);
                dpoly = add(mul(dpoly, a), mul(f_coef_[c], double(c + 1)));
            }
            Tensor ge1 = cmp(BinaryOp::ge, a, 1.0), lem1 = cmp(BinaryOp::le, a, -1.0);
            Tensor f4 = where(ge1, up, where(lem1, dn, add(mul(poly, a), 1.0)));
            Tensor df4 = where(ge1, mul(up, f_loghi_), where(lem1, neg(mul(dn, f_loglo_)), dpoly));
            Tensor f = where(f_lin_, a, where(f_code1_, f1, f4));
            p.F = product(f, 1);
            if (want_grad) {
                p.df = where(f_lin_, scalar_like(a, 1.0), where(f_code1_, df1, df4));
                // product of the other rows, by prefix and suffix products (no division: factors may be 0)
                std::vector<Tensor> rows(static_cast<std::size_t>(R_));
                for (std::int64_t r = 0; r < R_; ++r) rows[r] = row(f, r);
                std::vector<Tensor> prefix(R_ + 1), suffix(R_ + 1);
                prefix[0] = b_.full({K, E_}, 1.0, f.dtype());
                for (std::int64_t r = 0; r < R_; ++r) prefix[r + 1] = mul(prefix[r], rows[r]);
                suffix[R_] = prefix[0];
                for (std::int64_t r = R_; r-- > 0;) suffix[r] = mul(suffix[r + 1], rows[r]);
                std::vector<Tensor> others(static_cast<std::size_t>(R_));
                for (std::int64_t r = 0; r < R_; ++r) others[r] = mul(prefix[r], suffix[r + 1]);
                p.others = stack(others, 1);
            }
        } else {
            p.F = b_.full({K, E_}, 1.0, pars.dtype());
        }
        Tensor value = mul(base, p.F);
        p.rate = matmul(value, incidence_);
        return p;
    }

    Tensor row(const Tensor& f, std::int64_t r) {
        return gather(f, row_index(r), 1).reshape({f.dim(0), E_});
    }
    const Tensor& row_index(std::int64_t r) {
        if (row_idx_.empty())
            for (std::int64_t i = 0; i < R_; ++i) row_idx_.push_back(b_.from_host_index({i}));
        return row_idx_[r];
    }

    Backend& b_;
    std::int64_t P_ = 0, N_ = 0, A_ = 0, E_ = 0, R_ = 0, D_ = 0, G_ = 0, Q_ = 0;
    Tensor nominal_, elem_bin_, incidence_, main_idx_, par_idx_;
    Tensor f_idx_, f_lin_, f_code1_, f_loglo_, f_loghi_, f_coef_[6], f_scatter_;
    Tensor d_idx_, d_code0_, d_code2_, d_lo_, d_nom_, d_hi_, d_scatter_;
    Tensor g_par_, g_aux_, g_width_, g_scatter_, q_par_, q_aux_, q_tau_, q_scatter_, aux_perm_;
    std::vector<Tensor> row_idx_;
};

}  // namespace

std::unique_ptr<FusedLikelihood> make_fallback_likelihood(Backend& backend, const PackedLikelihood& packed) {
    check_packed_likelihood(packed);
    return std::make_unique<FallbackLikelihood>(backend, packed);
}

}  // namespace hf::detail
