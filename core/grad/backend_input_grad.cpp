// The input gradient through Tier 1 ops (backend_input_grad.hpp): the reverse pass, at K points, over the
// constants and slots of backend_input_grad_layout.hpp. Reverse mode by hand: with lp = log L,
// w_b = d lp / d rate_b and g_e = w_(bin of e),
//   rate_b = sum_e base_e F_e,  base_e = nominal_e + sum_r delta_re,  F_e = prod_r f_re
//   d lp / d nominal_e = g_e F_e (1 + sum_r d delta_re / d nominal_e)
//   d lp / d histosys hi/lo of (r, e) = g_e F_e d delta_re / d hi, lo
//   d lp / d normsys hi/lo = sum over the sample's elements of g_e base_e prod_(s != r) f_se d f_re / d hi, lo
// plus the constraints' terms through the staterror widths and the shapesys tau. Every partial lands in its slot
// of the contribution vector C and each input gathers its (few) slots from C and sums them; the normsys ones, whose
// slots are a whole sample's bins, are summed in a first gather of their own. The rates (elements into bins) and
// d/d pars are gathered sums likewise: O(elements) memory, no dense incidence.
#include "grad/backend_input_grad.hpp"

#include "grad/autodiff.hpp"
#include "grad/backend_input_grad_layout.hpp"
#include "hfcore/tensorlib.hpp"

namespace hf::grad_detail {

namespace {

using namespace hf::tl;

constexpr double kHalfLog2Pi = 0.91893853320467274178;

// A histosys delta's value and partials, for one interpolation code.
struct DeltaTerms {
    Tensor value, d_alpha, d_hi, d_lo, d_nom;
};

}  // namespace

// The reverse pass over the layout's constants.
struct BackendInputGradient::Impl : InputGradLayout {
    using InputGradLayout::InputGradLayout;

    DeltaTerms delta_terms(DeltaForm form, const Tensor& a) const {
        const Tensor gt1 = cmp(BinaryOp::gt, a, 1.0), ltm1 = cmp(BinaryOp::lt, a, -1.0);
        const Tensor zero = scalar_like(a, 0.0);
        DeltaTerms t;
        switch (form) {
            case DeltaForm::code0: {
                const Tensor pos = cmp(BinaryOp::ge, a, 0.0);
                t.d_alpha = where(pos, up, dn);
                t.value = mul(a, t.d_alpha);
                t.d_hi = where(pos, a, zero);
                t.d_lo = where(pos, zero, neg(a));
                t.d_nom = where(pos, neg(a), a);
                break;
            }
            case DeltaForm::code2: {
                const Tensor qa = sub(mul(add(hi_d, lo_d), 0.5), nom_d), qb = mul(sub(hi_d, lo_d), 0.5);
                const Tensor bp = add(qb, mul(qa, 2.0)), bm = sub(qb, mul(qa, 2.0));
                const Tensor am1 = add(a, -1.0);
                t.value = where(gt1, mul(am1, bp), where(ltm1, mul(a, bm), add(mul(mul(a, a), qa), mul(a, qb))));
                t.d_alpha = where(gt1, bp, where(ltm1, bm, add(mul(mul(a, qa), 2.0), qb)));
                const Tensor dqa = where(gt1, mul(am1, 2.0), where(ltm1, mul(a, -2.0), mul(a, a)));
                const Tensor dqb = where(gt1, am1, a);
                t.d_hi = mul(add(dqa, dqb), 0.5);
                t.d_lo = mul(sub(dqa, dqb), 0.5);
                t.d_nom = neg(dqa);
                break;
            }
            case DeltaForm::code4p: {
                const Tensor S = mul(add(up, dn), 0.5), Aq = mul(sub(up, dn), 0.0625);
                const Tensor a2 = mul(a, a);
                const Tensor poly = mul(a2, add(mul(a2, add(mul(a2, 3.0), -10.0)), 15.0));
                const Tensor dpoly = mul(a, add(mul(a2, add(mul(a2, 18.0), -40.0)), 30.0));
                t.value = where(gt1, mul(a, up), where(ltm1, mul(a, dn), add(mul(S, a), mul(Aq, poly))));
                t.d_alpha = where(gt1, up, where(ltm1, dn, add(S, mul(Aq, dpoly))));
                // d/d up and d/d down of S a + Aq poly, then up = hi - nominal, down = nominal - lo
                const Tensor dup = where(gt1, a, where(ltm1, zero, add(mul(a, 0.5), mul(poly, 0.0625))));
                const Tensor ddn = where(gt1, zero, where(ltm1, a, sub(mul(a, 0.5), mul(poly, 0.0625))));
                t.d_hi = dup;
                t.d_lo = neg(ddn);
                t.d_nom = sub(ddn, dup);
                break;
            }
        }
        return t;
    }

    BackendGradients evaluate(const std::vector<double>& pars_host, std::int64_t K,
                              const std::vector<double>& main_data) const {
        const Tensor pars = b.from_host(pars_host, {K, P});
        const Tensor n = b.from_host(main_data, {1, N});
        const Tensor pa = concatenate({pars, b.full({K, 1}, 1.0)}, 1);
        std::vector<Tensor> parts;  // the contribution vector C, in slot order

        // deltas and the base rates
        Tensor base = nominal, dn_sum;
        std::vector<Tensor> dpar;  // the d/d pars contributions, in par_slots' order
        DeltaTerms dt;
        if (D > 0) {
            const Tensor a = gather(pa, d_idx, 1).reshape({K, D, E});
            dt = delta_terms(delta_forms.front().first, a);
            for (std::size_t i = 1; i < delta_forms.size(); ++i) {
                const DeltaTerms o = delta_terms(delta_forms[i].first, a);
                const Tensor& m = delta_forms[i].second;
                dt = {where(m, o.value, dt.value), where(m, o.d_alpha, dt.d_alpha), where(m, o.d_hi, dt.d_hi),
                      where(m, o.d_lo, dt.d_lo), where(m, o.d_nom, dt.d_nom)};
            }
            base = add(base, sum(dt.value, 1));
            dn_sum = sum(mul(dt.d_nom, d_valid), 1);
        }

        // factors
        Tensor F, others, df, dfh, dfl;
        if (R > 0) {
            const Tensor a = gather(pa, f_idx, 1).reshape({K, R, E});
            const Tensor zero = scalar_like(a, 0.0);
            const Tensor upf = tl::exp(mul(a, f_loghi)), dnf = tl::exp(mul(neg(a), f_loglo));
            // the exponential branches' derivatives: d/d hi of hi^a, d/d lo of lo^-a
            const Tensor up_hi = divide(mul(a, upf), f_hi), dn_lo = neg(divide(mul(a, dnf), f_lo));
            Tensor f = a;
            df = scalar_like(a, 1.0), dfh = zero, dfl = zero;
            if (has_code4) {
                const Tensor ge1 = cmp(BinaryOp::ge, a, 1.0), lem1 = cmp(BinaryOp::le, a, -1.0);
                Tensor poly = coef[5], dpoly = mul(coef[5], 6.0), ph = dcoef_hi[5], pl = dcoef_lo[5];
                for (int c = 4; c >= 0; --c) {
                    poly = add(mul(poly, a), coef[c]);
                    dpoly = add(mul(dpoly, a), mul(coef[c], double(c + 1)));
                    ph = add(mul(ph, a), dcoef_hi[c]);
                    pl = add(mul(pl, a), dcoef_lo[c]);
                }
                const Tensor inner = where(ge1, upf, where(lem1, dnf, add(mul(poly, a), 1.0)));
                f = where(f_lin, f, inner);
                df = where(f_lin, df, where(ge1, mul(upf, f_loghi), where(lem1, neg(mul(dnf, f_loglo)), dpoly)));
                dfh = where(f_lin, dfh, where(ge1, up_hi, where(lem1, zero, mul(ph, a))));
                dfl = where(f_lin, dfl, where(ge1, zero, where(lem1, dn_lo, mul(pl, a))));
            }
            if (has_code1) {
                const Tensor ge0 = cmp(BinaryOp::ge, a, 0.0);
                f = where(f_code1, where(ge0, upf, dnf), f);
                df = where(f_code1, where(ge0, mul(upf, f_loghi), neg(mul(dnf, f_loglo))), df);
                dfh = where(f_code1, where(ge0, up_hi, zero), dfh);
                dfl = where(f_code1, where(ge0, zero, dn_lo), dfl);
            }
            F = product(f, 1);
            // the product of the other rows, by prefix and suffix products (no division: factors may be 0)
            std::vector<Tensor> rows(static_cast<std::size_t>(R));
            for (std::int64_t r = 0; r < R; ++r)
                rows[r] = gather(f, b.from_host_index({r}), 1).reshape({K, E});
            std::vector<Tensor> prefix(R + 1), suffix(R + 1);
            prefix[0] = b.full({K, E}, 1.0);
            for (std::int64_t r = 0; r < R; ++r) prefix[r + 1] = mul(prefix[r], rows[r]);
            suffix[R] = prefix[0];
            for (std::int64_t r = R; r-- > 0;) suffix[r] = mul(suffix[r + 1], rows[r]);
            std::vector<Tensor> o(static_cast<std::size_t>(R));
            for (std::int64_t r = 0; r < R; ++r) o[r] = mul(prefix[r], suffix[r + 1]);
            others = stack(o, 1);
        } else {
            F = b.full({K, E}, 1.0);
        }

        // main Poisson terms
        const Tensor value_e = mul(base, F);
        const Tensor zero_col = b.full({K, 1}, 0.0);
        const Tensor rate = bin_sum.of(concatenate({value_e, zero_col}, 1));
        const Tensor n_zero = cmp(BinaryOp::eq, n, 0.0);
        Tensor lp = sum(sub(sub(xlogy(n, rate), rate), tl::lgamma(add(n, 1.0))), 1);
        const Tensor w = where(n_zero, scalar_like(rate, -1.0), add(divide(n, rate), -1.0));
        std::vector<double> dg_main(main_data.size());
        for (std::size_t i = 0; i < main_data.size(); ++i) dg_main[i] = digamma(main_data[i] + 1.0);
        // n tl::log(rate) is a constant where both are 0 (xlogy): no tl::log(rate) term there
        const Tensor log_rate = where(mul_bool(n_zero, cmp(BinaryOp::eq, rate, 0.0)), scalar_like(rate, 0.0), tl::log(rate));
        const Tensor d_main = sub(log_rate, b.from_host(dg_main, {1, N}));

        const Tensor g = gather(w, elem_bin, 1);  // [K, E]
        const Tensor gF = mul(g, F);
        parts.push_back(D > 0 ? mul(gF, add(dn_sum, 1.0)) : gF);
        if (D > 0) {
            const Tensor gF3 = gF.reshape({K, 1, E});
            parts.push_back(mul(gF3, dt.d_hi).reshape({K, D * E}));
            parts.push_back(mul(gF3, dt.d_lo).reshape({K, D * E}));
            dpar.push_back(mul(gF3, dt.d_alpha).reshape({K, D * E}));
        }
        if (R > 0) {
            const Tensor gbo = mul(mul(g, base).reshape({K, 1, E}), others);  // d lp / d f [K, R, E]
            dpar.push_back(mul(gbo, df).reshape({K, R * E}));
            if (n_norm > 0) {
                const Tensor both = concatenate({mul(gbo, dfh).reshape({K, R * E}), mul(gbo, dfl).reshape({K, R * E}),
                                                 zero_col},
                                                1);
                parts.push_back(norm_sum.of(both));
            }
        }

        // Gaussian constraints: lp += -z^2 / 2 - log sigma - tl::log(2 pi) / 2, z = (aux - par) / sigma
        if (G > 0) {
            const Tensor x = gather(pars, g_par, 1);
            const Tensor z = divide(sub(g_aux, x), g_sigma);
            lp = add(lp, sum(sub(mul(mul(z, z), -0.5), add(tl::log(g_sigma), kHalfLog2Pi)), 1));
            const Tensor dsig = divide(add(mul(z, z), -1.0), g_sigma).reshape({K, G, 1});
            parts.push_back(mul(dsig, g_dsig_dval).reshape({K, G * w_gauss}));
            parts.push_back(mul(dsig, g_dsig_dnom).reshape({K, G * w_gauss}));
            dpar.push_back(divide(z, g_sigma));
        }
        // Poisson constraints: lp += aux tl::log(tau par) - tau par - tl::lgamma(aux + 1); aux = tau where it is the model's
        if (Q > 0) {
            const Tensor x = gather(pars, q_par, 1);
            const Tensor rq = mul(q_tau, x);
            lp = add(lp, sum(sub(sub(xlogy(q_aux, rq), rq), q_lgamma_aux), 1));
            // d/d tau: aux / tau - par, and through aux = tau: tl::log(tau par) - digamma(tau + 1)
            const Tensor dtau = add(sub(divide(q_aux, q_tau), x), sub(tl::log(rq), q_digamma_aux));
            parts.push_back(mul(dtau, q_dtau_dnom));
            parts.push_back(mul(dtau, q_dtau_dunc));
            dpar.push_back(sub(divide(q_aux, x), q_tau));
        }
        parts.push_back(zero_col);  // the padding slot
        dpar.push_back(zero_col);
        const Tensor d_in = mul(in_sum.of(concatenate(parts, 1)), -2.0);

        BackendGradients out;
        out.value = b.to_host_double(mul(lp, -2.0));
        out.d_inputs = b.to_host_double(d_in);
        out.d_pars = b.to_host_double(mul(par_sum.of(concatenate(dpar, 1)), -2.0));
        out.d_main = b.to_host_double(mul(d_main, -2.0));
        return out;
    }

    static Tensor mul_bool(const Tensor& a, const Tensor& c) { return B(a).binary(BinaryOp::logical_and, a, c); }
};

BackendInputGradient::BackendInputGradient(Backend& backend, const Structure& s, const std::vector<double>& inputs)
    : impl_(std::make_unique<Impl>(backend, s, inputs)) {}

BackendInputGradient::~BackendInputGradient() = default;

BackendGradients BackendInputGradient::twice_nll(const std::vector<double>& pars, std::int64_t K,
                                                 const std::vector<double>& main_data) const {
    return impl_->evaluate(pars, K, main_data);
}

}  // namespace hf::grad_detail
