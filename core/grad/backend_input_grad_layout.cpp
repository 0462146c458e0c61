// The input gradient's constants and slot bookkeeping (backend_input_grad_layout.hpp), built once per structure
// and inputs: the histosys and normsys entries in the dense layout, the normsys code4 coefficients and their
// derivatives by hi and lo (forward mode on the host), the staterror widths and shapesys tau with their partials
// by the inputs (on the backend).
#include "grad/backend_input_grad_layout.hpp"

#include <algorithm>
#include <cmath>

#include "grad/autodiff.hpp"
#include "modifiers/code4.hpp"

namespace hf::grad_detail {

namespace {

using namespace hf::tl;

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

}  // namespace

InputGradLayout::InputGradLayout(Backend& backend, const Structure& s, const std::vector<double>& y) : b(backend) {
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

SlotSum InputGradLayout::slot_sum(const SlotLists& slots, std::int64_t zero_slot) {
    SlotSum out;
    out.n = static_cast<std::int64_t>(slots.size());
    for (const auto& v : slots) out.w = std::max<std::int64_t>(out.w, static_cast<std::int64_t>(v.size()));
    std::vector<std::int64_t> idx(static_cast<std::size_t>(out.n * out.w), zero_slot);
    for (std::int64_t i = 0; i < out.n; ++i) std::copy(slots[i].begin(), slots[i].end(), idx.begin() + i * out.w);
    out.idx = b.from_host_index(idx);
    return out;
}

Tensor InputGradLayout::mask(const std::vector<double>& v, const Shape& shape) {
    return cmp(BinaryOp::ne, b.from_host(v, shape), 0.0);
}

void InputGradLayout::setup_deltas(const Structure& s, const std::vector<double>& y, SlotLists& slots,
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

void InputGradLayout::setup_factors(const Structure& s, const std::vector<double>& y, SlotLists& slots,
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

void InputGradLayout::setup_gauss(const Structure& s, const std::vector<double>& y, SlotLists& slots,
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

void InputGradLayout::setup_poisson(const Structure& s, const std::vector<double>& y, SlotLists& slots,
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

}  // namespace hf::grad_detail
