// The input gradient through Tier 1 ops (backend_input_grad.hpp). Dense layout as the fallback likelihood
// (core/model/fallback_likelihood.cpp): factor entries in R rows of E elements, deltas in D rows, empty slots
// neutral. Reverse mode by hand: with lp = log L, w_b = d lp / d rate_b and g_e = w_(bin of e),
//   rate_b = sum_e base_e F_e,  base_e = nominal_e + sum_r delta_re,  F_e = prod_r f_re
//   d lp / d nominal_e = g_e F_e (1 + sum_r d delta_re / d nominal_e)
//   d lp / d histosys hi/lo of (r, e) = g_e F_e d delta_re / d hi, lo
//   d lp / d normsys hi/lo = sum over the sample's elements of g_e base_e prod_(s != r) f_se d f_re / d hi, lo
// plus the constraints' terms through the staterror widths and the shapesys tau. Tier 1 has no scatter, so every
// partial lands in one slot of a contribution vector C, and each input gathers its (few) slots from C and sums
// them; the normsys ones, whose slots are a whole sample's bins, are summed in a first gather of their own. The
// rates (elements into bins) and d/d pars are gathered sums likewise: O(elements) memory, no dense incidence.
#include "grad/backend_input_grad.hpp"

#include <algorithm>
#include <cmath>

namespace hf::grad_detail {
// Dual<double>'s functions (autodiff.hpp) take std's for its double parts.
using std::exp;
using std::log;
using std::sqrt;
}  // namespace hf::grad_detail

#include "grad/autodiff.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/tensorlib.hpp"
#include "modifiers/code4.hpp"

namespace hf::grad_detail {

namespace {

using namespace hf::tl;

constexpr double kHalfLog2Pi = 0.91893853320467274178;

// Sum over the last axis of x[K, *] gathered at idx (n rows of w entries, padded with a zero slot).
Tensor gather_sum(const Tensor& x, const Tensor& idx, std::int64_t n, std::int64_t w) {
    const std::int64_t K = x.dim(0);
    return sum(gather(x, idx, 1).reshape({K, n, w}), 2);
}

// Calls fn(element, slot k = row * E + element index, entry) for every entry of each element's row list
// (`rows(element)`: its factors or its deltas), the dense layout's slot of row r of element e.
template <class Rows, class Fn>
void for_each_entry(const Structure& s, Rows rows, Fn&& fn) {
    const auto E = s.elements.size();
    for (std::size_t e = 0; e < E; ++e) {
        const auto& list = rows(s.elements[e]);
        for (std::size_t r = 0; r < list.size(); ++r) fn(s.elements[e], r * E + e, list[r]);
    }
}

// Sums of slots of a contribution vector: output i is the sum of its slots, padded with a slot holding 0.
struct SlotSum {
    Tensor idx;
    std::int64_t n = 0, w = 1;
    Tensor of(const Tensor& x) const { return gather_sum(x, idx, n, w); }
};

// A histosys delta's value and partials, for one interpolation code.
struct DeltaTerms {
    Tensor value, d_alpha, d_hi, d_lo, d_nom;
};

}  // namespace

struct BackendInputGradient::Impl {
    Backend& b;
    std::int64_t P = 0, N = 0, E = 0, R = 0, D = 0, G = 0, Q = 0, n_in = 0;

    // elements
    Tensor nominal, elem_bin;
    SlotSum bin_sum, par_sum, norm_sum, in_sum;
    std::vector<std::vector<std::int64_t>> par_slots;  // the parameters' slots in the d/d pars contributions
    std::int64_t par_at = 0;
    // deltas [D, E]
    Tensor d_idx, d_valid, up, dn, lo_d, hi_d, nom_d;
    std::vector<std::pair<DeltaForm, Tensor>> delta_forms;  // forms present, with their masks
    // factors [R, E]
    Tensor f_idx, f_lin, f_code1, f_loglo, f_loghi, f_lo, f_hi;
    Tensor coef[6], dcoef_hi[6], dcoef_lo[6];
    bool has_code1 = false, has_code4 = false;
    std::int64_t n_norm = 0;
    // Gaussian constraints [G] and their staterror carriers [G, Wg]
    Tensor g_par, g_aux, g_sigma, g_stat, g_dsig_dval, g_dsig_dnom;
    std::int64_t w_gauss = 1;
    // Poisson constraints [Q]
    Tensor q_par, q_aux, q_tau, q_lgamma_aux, q_in, q_digamma_aux, q_dtau_dnom, q_dtau_dunc;

    Impl(Backend& backend, const Structure& s, const std::vector<double>& y) : b(backend) {
        P = s.n_pars, N = s.n_main, n_in = s.n_inputs;
        E = static_cast<std::int64_t>(s.elements.size());
        for (const Element& e : s.elements) {
            R = std::max<std::int64_t>(R, static_cast<std::int64_t>(e.factors.size()));
            D = std::max<std::int64_t>(D, static_cast<std::int64_t>(e.deltas.size()));
        }
        std::vector<std::vector<std::int64_t>> slots(static_cast<std::size_t>(n_in)), bin_slots(static_cast<std::size_t>(N));
        par_slots.resize(static_cast<std::size_t>(P));
        std::int64_t at = 0;  // next free slot of C

        std::vector<double> nom(static_cast<std::size_t>(E));
        std::vector<std::int64_t> bins(static_cast<std::size_t>(E));
        for (std::int64_t e = 0; e < E; ++e) {
            const Element& el = s.elements[static_cast<std::size_t>(e)];
            nom[e] = y[el.nominal];
            bins[e] = el.bin;
            bin_slots[el.bin].push_back(e);
            slots[el.nominal].push_back(at + e);
        }
        at += E;
        nominal = b.from_host(nom, {1, E});
        elem_bin = b.from_host_index(bins);
        bin_sum = slot_sum(bin_slots, E);

        if (D > 0) setup_deltas(s, y, slots, at);
        if (R > 0) setup_factors(s, y, slots, at);
        setup_gauss(s, y, slots, at);
        setup_poisson(s, y, slots, at);

        par_sum = slot_sum(par_slots, par_at);
        in_sum = slot_sum(slots, at);
    }

    SlotSum slot_sum(const std::vector<std::vector<std::int64_t>>& slots, std::int64_t zero_slot) {
        SlotSum out;
        out.n = static_cast<std::int64_t>(slots.size());
        for (const auto& v : slots) out.w = std::max<std::int64_t>(out.w, static_cast<std::int64_t>(v.size()));
        std::vector<std::int64_t> idx(static_cast<std::size_t>(out.n * out.w), zero_slot);
        for (std::int64_t i = 0; i < out.n; ++i) std::copy(slots[i].begin(), slots[i].end(), idx.begin() + i * out.w);
        out.idx = b.from_host_index(idx);
        return out;
    }
    Tensor mask(const std::vector<double>& v, const Shape& shape) {
        return cmp(BinaryOp::ne, b.from_host(v, shape), 0.0);
    }

    void setup_deltas(const Structure& s, const std::vector<double>& y, std::vector<std::vector<std::int64_t>>& slots,
                      std::int64_t& at) {
        const auto DE = static_cast<std::size_t>(D * E);
        std::vector<std::int64_t> idx(DE, P);
        std::vector<double> valid(DE, 0.0), lo(DE, 0.0), hi(DE, 0.0), nm(DE, 0.0);
        std::vector<std::vector<double>> form_mask(3, std::vector<double>(DE, 0.0));
        const auto deltas = [](const Element& el) -> const std::vector<Delta>& { return el.deltas; };
        for_each_entry(s, deltas, [&](const Element& el, std::size_t k, const Delta& d) {
            idx[k] = d.par;
            valid[k] = 1.0;
            lo[k] = y[d.lo], hi[k] = y[d.hi], nm[k] = y[el.nominal];
            form_mask[static_cast<std::size_t>(d.form)][k] = 1.0;
            slots[d.hi].push_back(at + static_cast<std::int64_t>(k));
            slots[d.lo].push_back(at + static_cast<std::int64_t>(DE + k));
            par_slots[d.par].push_back(par_at + static_cast<std::int64_t>(k));
        });
        at += 2 * static_cast<std::int64_t>(DE);
        par_at += static_cast<std::int64_t>(DE);
        d_idx = b.from_host_index(idx);
        d_valid = b.from_host(valid, {D, E});
        lo_d = b.from_host(lo, {D, E});
        hi_d = b.from_host(hi, {D, E});
        nom_d = b.from_host(nm, {D, E});
        up = sub(hi_d, nom_d);
        dn = sub(nom_d, lo_d);
        for (DeltaForm f : {DeltaForm::code0, DeltaForm::code2, DeltaForm::code4p}) {
            const auto& m = form_mask[static_cast<std::size_t>(f)];
            if (std::any_of(m.begin(), m.end(), [](double v) { return v != 0.0; }))
                delta_forms.emplace_back(f, mask(m, {D, E}));
        }
    }

    void setup_factors(const Structure& s, const std::vector<double>& y, std::vector<std::vector<std::int64_t>>& slots,
                       std::int64_t& at) {
        const auto RE = static_cast<std::size_t>(R * E);
        std::vector<std::int64_t> idx(RE, P);
        std::vector<double> lin(RE, 1.0), c1(RE, 0.0), loglo(RE, 0.0), loghi(RE, 0.0), lo(RE, 1.0), hi(RE, 1.0);
        std::vector<double> cf(6 * RE, 0.0), dch(6 * RE, 0.0), dcl(6 * RE, 0.0);
        // normsys inputs: their slots in [d f/d hi (RE), d f/d lo (RE), zero]
        std::vector<std::int32_t> norm_inputs;
        std::vector<std::vector<std::int64_t>> norm_slots;
        auto add_norm = [&](std::int32_t input, std::int64_t slot) {
            auto it = std::find(norm_inputs.begin(), norm_inputs.end(), input);
            if (it == norm_inputs.end()) {
                norm_inputs.push_back(input);
                norm_slots.emplace_back();
                it = norm_inputs.end() - 1;
            }
            norm_slots[static_cast<std::size_t>(it - norm_inputs.begin())].push_back(slot);
        };
        const auto factors = [](const Element& el) -> const std::vector<Factor>& { return el.factors; };
        for_each_entry(s, factors, [&](const Element&, std::size_t k, const Factor& f) {
            idx[k] = f.par;
            par_slots[f.par].push_back(par_at + static_cast<std::int64_t>(k));
            if (f.form == FactorForm::linear) return;
            lin[k] = 0.0;
            c1[k] = f.form == FactorForm::normsys_code1;
            (f.form == FactorForm::normsys_code1 ? has_code1 : has_code4) = true;
            lo[k] = y[f.lo], hi[k] = y[f.hi];
            loglo[k] = std::log(lo[k]), loghi[k] = std::log(hi[k]);
            // code4's coefficients and their derivatives with respect to hi and lo (one tangent each)
            Dual<double> c_hi[6], c_lo[6];
            hf::detail::code4_coefficients(Dual<double>(lo[k], 0.0), Dual<double>(hi[k], 1.0), c_hi);
            hf::detail::code4_coefficients(Dual<double>(lo[k], 1.0), Dual<double>(hi[k], 0.0), c_lo);
            for (std::size_t c = 0; c < 6; ++c) {
                cf[c * RE + k] = c_hi[c].v;
                dch[c * RE + k] = c_hi[c].d;
                dcl[c * RE + k] = c_lo[c].d;
            }
            add_norm(f.hi, static_cast<std::int64_t>(k));
            add_norm(f.lo, static_cast<std::int64_t>(RE + k));
        });
        par_at += static_cast<std::int64_t>(RE);
        f_idx = b.from_host_index(idx);
        f_lin = mask(lin, {R, E});
        f_code1 = mask(c1, {R, E});
        f_loglo = b.from_host(loglo, {R, E});
        f_loghi = b.from_host(loghi, {R, E});
        f_lo = b.from_host(lo, {R, E});
        f_hi = b.from_host(hi, {R, E});
        auto row_block = [&](const std::vector<double>& v, std::size_t c) {
            return b.from_host(std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(c * RE),
                                                   v.begin() + static_cast<std::ptrdiff_t>((c + 1) * RE)),
                               {R, E});
        };
        for (std::size_t c = 0; c < 6; ++c) {
            coef[c] = row_block(cf, c);
            dcoef_hi[c] = row_block(dch, c);
            dcoef_lo[c] = row_block(dcl, c);
        }
        n_norm = static_cast<std::int64_t>(norm_inputs.size());
        for (std::int64_t j = 0; j < n_norm; ++j) slots[norm_inputs[j]].push_back(at + j);
        at += n_norm;
        if (n_norm > 0) norm_sum = slot_sum(norm_slots, 2 * static_cast<std::int64_t>(RE));
    }

    void setup_gauss(const Structure& s, const std::vector<double>& y, std::vector<std::vector<std::int64_t>>& slots,
                     std::int64_t& at) {
        G = static_cast<std::int64_t>(s.gauss.size());
        if (G == 0) return;
        for (const Gauss& g : s.gauss) w_gauss = std::max<std::int64_t>(w_gauss, static_cast<std::int64_t>(g.stat_vals.size()));
        std::vector<std::int64_t> par(static_cast<std::size_t>(G)), vidx(static_cast<std::size_t>(G * w_gauss), n_in),
            nidx(vidx);
        std::vector<double> sigma(static_cast<std::size_t>(G)), stat(static_cast<std::size_t>(G), 0.0);
        for (std::int64_t i = 0; i < G; ++i) {
            const Gauss& g = s.gauss[static_cast<std::size_t>(i)];
            par[i] = g.par, sigma[i] = g.sigma, stat[i] = !g.stat_vals.empty();
            par_slots[g.par].push_back(par_at + i);
            for (std::size_t w = 0; w < g.stat_vals.size(); ++w) {
                const std::int64_t k = i * w_gauss + static_cast<std::int64_t>(w);
                vidx[k] = g.stat_vals[w], nidx[k] = g.stat_noms[w];
                slots[g.stat_vals[w]].push_back(at + k);
                slots[g.stat_noms[w]].push_back(at + G * w_gauss + k);
            }
        }
        at += 2 * G * w_gauss;
        g_par = b.from_host_index(par);
        g_aux = b.from_host(s.gauss_aux_value);
        par_at += G;
        // The staterror widths from the inputs, on the backend: sigma = tl::sqrt(sum vals^2) / sum nominals, and
        // d sigma / d val_k = val_k / (tl::sqrt(sum vals^2) sum nominals), d sigma / d nominal_k = -sigma / sum nominals.
        std::vector<double> y0(y);
        y0.push_back(0.0);  // the padding's input
        const Tensor yt = b.from_host(y0);
        const Tensor vals = gather(yt, b.from_host_index(vidx), 0).reshape({G, w_gauss});
        const Tensor noms = gather(yt, b.from_host_index(nidx), 0).reshape({G, w_gauss});
        g_stat = mask(stat, {G});
        const Tensor one = b.full({G}, 1.0);
        const Tensor root = where(g_stat, tl::sqrt(sum(mul(vals, vals), 1)), one);
        const Tensor nomsum = where(g_stat, sum(noms, 1), one);
        g_sigma = where(g_stat, divide(root, nomsum), b.from_host(sigma));
        // The padding's slots and those of constant widths reach no input: their values do not matter.
        g_dsig_dval = divide(vals, mul(root, nomsum).reshape({G, 1}));
        g_dsig_dnom = mul(b.full({G, w_gauss}, 1.0), neg(divide(g_sigma, nomsum)).reshape({G, 1}));
    }

    void setup_poisson(const Structure& s, const std::vector<double>& y, std::vector<std::vector<std::int64_t>>& slots,
                       std::int64_t& at) {
        Q = static_cast<std::int64_t>(s.pois.size());
        if (Q == 0) return;
        std::vector<std::int64_t> par(static_cast<std::size_t>(Q)), nidx(static_cast<std::size_t>(Q), n_in),
            uidx(nidx);
        std::vector<double> tau(static_cast<std::size_t>(Q)), aux(tau), in(static_cast<std::size_t>(Q), 0.0), dg(in);
        for (std::int64_t i = 0; i < Q; ++i) {
            const Poisson& q = s.pois[static_cast<std::size_t>(i)];
            par[i] = q.par, tau[i] = q.tau, aux[i] = q.aux_value;
            par_slots[q.par].push_back(par_at + i);
            if (q.nominal < 0) continue;
            in[i] = 1.0;
            nidx[i] = q.nominal, uidx[i] = q.unc;
            const double r = y[q.nominal] / y[q.unc];
            // digamma has no Tier 1 op: the aux datum tau is fixed by the inputs, so its digamma is a constant here
            dg[i] = digamma(r * r + 1.0);
            slots[q.nominal].push_back(at + i);
            slots[q.unc].push_back(at + Q + i);
        }
        at += 2 * Q;
        q_par = b.from_host_index(par);
        par_at += Q;
        std::vector<double> y1(y);
        y1.push_back(1.0);  // the padding's input
        const Tensor yt = b.from_host(y1);
        const Tensor nm = gather(yt, b.from_host_index(nidx), 0), un = gather(yt, b.from_host_index(uidx), 0);
        q_in = mask(in, {Q});
        const Tensor ratio = divide(nm, un);
        q_tau = where(q_in, mul(ratio, ratio), b.from_host(tau));
        q_aux = where(q_in, q_tau, b.from_host(aux));
        q_lgamma_aux = tl::lgamma(add(q_aux, 1.0));
        q_digamma_aux = b.from_host(dg);
        // d tau / d nominal = 2 tau / nominal, d tau / d uncertainty = -2 tau / uncertainty (0 for a constant tau)
        const Tensor zero = b.full({Q}, 0.0);
        q_dtau_dnom = where(q_in, divide(mul(q_tau, 2.0), nm), zero);
        q_dtau_dunc = where(q_in, divide(mul(q_tau, -2.0), un), zero);
    }

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
