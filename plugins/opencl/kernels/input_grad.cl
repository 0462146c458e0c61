/* The reverse-mode terms of logpdf by the packed likelihood's own arrays (FusedLikelihood::input_gradient), after
 * hf_logpdf with want_grad has left w[b] = d logpdf / d rate_b and per element its base, the product of its
 * nonzero factors (pnz) and its count of zero factors (zc); included after likelihood.cl. Each packed entry
 * belongs to one element, each constraint to one aux datum: one work-item per output row, no two writing the same
 * output, no atomics. The partials are those of plugins/cpu/likelihood_input_grad.cpp (its header comment). */

/* d lgamma / dx: recurrence up to x >= 6, then the asymptotic series (error below 1e-15 there). */
static hf_wide hf_digamma(hf_wide x)
{
    hf_wide r = 0, f;
    while (x < 6) {
        r -= 1 / x;
        x += 1;
    }
    f = 1 / (x * x);
    return r + log(x) - (hf_wide)0.5 / x -
           f * ((hf_wide)(1.0 / 12) -
                f * ((hf_wide)(1.0 / 120) - f * ((hf_wide)(1.0 / 252) - f * ((hf_wide)(1.0 / 240) - f * (hf_wide)(1.0 / 132)))));
}

/* d/dn of xlogy(n, lam) - lgamma(n + 1) (0 log 0 is a constant). */
static hf_wide hf_d_count(hf_wide n, hf_wide lam)
{
    return (n == 0 && lam == 0 ? (hf_wide)0 : log(lam)) - hf_digamma(n + 1);
}

/* One work-item per (point, element): the terms of its nominal, its deltas and its factors. */
__kernel void hf_input_grad_elements(long K, __global const int* meta, __global const int* itab,
                                     __global const hf_real* rtab, __global const hf_real* pars,
                                     __global const hf_real* w, __global const hf_real* base,
                                     __global const hf_real* pnz, __global const int* zc, __global hf_real* g_nom,
                                     __global hf_real* g_flo, __global hf_real* g_fhi, __global hf_real* g_coef,
                                     __global hf_real* g_dlo, __global hf_real* g_dnom, __global hf_real* g_dhi)
{
    long g = get_global_id(0), k, F, D;
    int e, t, i;
    HfModel m;
    __global const hf_real* pk;
    hf_wide wb, gp;
    hf_model_init(&m, meta, itab, rtab);
    if (g >= K * m.E) return;
    k = g / m.E;
    e = (int)(g % m.E);
    pk = pars + k * m.P;
    F = m.fac_off[m.E];
    D = m.del_off[m.E];
    wb = (hf_wide)w[k * m.N + m.elem_bin[e]];
    gp = wb * (zc[g] == 0 ? (hf_wide)pnz[g] : (hf_wide)0);
    g_nom[g] = (hf_real)gp;
    for (t = m.del_off[e]; t < m.del_off[e + 1]; ++t) {
        hf_wide wt[4], d_up, d_dn;
        hfw_delta_weights(m.del_kind[t], (hf_wide)pk[m.del_par[t]], wt);
        d_up = (hf_wide)0.5 * (wt[0] + wt[1]);
        d_dn = (hf_wide)0.5 * (wt[0] - wt[1]);
        g_dhi[k * D + t] = (hf_real)(gp * d_up);
        g_dlo[k * D + t] = (hf_real)(-gp * d_dn);
        g_dnom[k * D + t] = (hf_real)(gp * (d_dn - d_up));
    }
    for (t = m.fac_off[e]; t < m.fac_off[e + 1]; ++t) {
        const int kind = m.fac_kind[t];
        const hf_real a = pk[m.fac_par[t]];
        hf_real df;
        const hf_real v = hf_factor(kind, a, m.fac_lo[t], m.fac_hi[t], m.fac_coef + 6 * (long)t, &df);
        const int z = zc[g];
        /* the product of the element's other factors, as hf_grad takes it */
        const hf_wide others = z == 0 ? (hf_wide)pnz[g] / (hf_wide)v
                                      : ((z == 1 && v == (hf_real)0) ? (hf_wide)pnz[g] : (hf_wide)0);
        const hf_wide gf = wb * (hf_wide)base[g] * others, aw = (hf_wide)a;
        hf_wide dlo = 0, dhi = 0, ai = aw;
        int poly = 0;
        if (kind != 0) {
            if (kind == 1 ? a >= (hf_real)0 : a >= (hf_real)1)
                dhi = aw * (hf_wide)v / (hf_wide)m.fac_hi[t];
            else if (kind == 1 || a <= (hf_real)-1)
                dlo = -aw * (hf_wide)v / (hf_wide)m.fac_lo[t];
            else
                poly = 1;
        }
        g_flo[k * F + t] = (hf_real)(gf * dlo);
        g_fhi[k * F + t] = (hf_real)(gf * dhi);
        for (i = 0; i < 6; ++i, ai *= aw) g_coef[(k * F + t) * 6 + i] = (hf_real)(poly ? gf * ai : (hf_wide)0);
    }
}

/* One work-item per (point, main bin or constraint): d/d main data (the bin's rate again from base and pnz),
 * d/d sigma, d/d tau and d/d their aux data. Aux data that no constraint reads keep the 0 they were filled with. */
__kernel void hf_input_grad_data(long K, __global const int* meta, __global const int* itab,
                                 __global const hf_real* rtab, __global const hf_real* pars,
                                 __global const hf_real* data, long data_stride, __global const hf_real* base,
                                 __global const hf_real* pnz, __global const int* zc, __global hf_real* g_sigma,
                                 __global hf_real* g_tau, __global hf_real* g_data)
{
    long g = get_global_id(0), k, J, W;
    int j, t;
    HfModel m;
    __global const hf_real* pk;
    __global const hf_real* dk;
    hf_model_init(&m, meta, itab, rtab);
    J = m.N + m.G + m.Q;
    W = m.N + m.A;
    if (g >= K * J) return;
    k = g / J;
    j = (int)(g % J);
    pk = pars + k * m.P;
    dk = data + k * data_stride;
    if (j < m.N) {
        hf_wide lam = 0;
        for (t = m.bin_off[j]; t < m.bin_off[j + 1]; ++t) {
            const long ke = k * m.E + m.bin_elems[t];
            if (zc[ke] == 0) lam += (hf_wide)base[ke] * (hf_wide)pnz[ke];
        }
        g_data[k * W + j] = (hf_real)hf_d_count((hf_wide)dk[j], lam);
    } else if (j < m.N + m.G) {
        const int i = j - m.N, a = m.gauss_aux[i];
        const hf_wide sigma = (hf_wide)m.gauss_sigma[i];
        const hf_wide r = ((hf_wide)dk[m.N + a] - (hf_wide)pk[m.gauss_par[i]]) / sigma;
        g_sigma[k * m.G + i] = (hf_real)((r * r - 1) / sigma);
        g_data[k * W + m.N + a] = (hf_real)(-r / sigma);
    } else {
        const int i = j - m.N - m.G, a = m.pois_aux[i];
        const hf_wide x = (hf_wide)dk[m.N + a], p = (hf_wide)pk[m.pois_par[i]], tau = (hf_wide)m.pois_tau[i];
        g_tau[k * m.Q + i] = (hf_real)(x > 0 ? x / tau - p : -p);
        g_data[k * W + m.N + a] = (hf_real)hf_d_count(x, tau * p);
    }
}

/* FusedLikelihood::expected_data_vjp: the elements' terms are hf_input_grad_elements' with the main cotangent as w,
 * after this kernel has left per (point, element) the base, pnz and zc that hf_logpdf leaves (one work-item each). */
__kernel void hf_vjp_elements(long K, __global const int* meta, __global const int* itab,
                              __global const hf_real* rtab, __global const hf_real* pars, __global hf_real* base,
                              __global hf_real* pnz, __global int* zc)
{
    long g = get_global_id(0);
    HfModel m;
    hf_real b, p;
    int z;
    hf_model_init(&m, meta, itab, rtab);
    if (g >= K * m.E) return;
    hf_element(&m, (int)(g % m.E), pars + (g / m.E) * m.P, &b, &p, &z);
    base[g] = b;
    pnz[g] = p;
    zc[g] = z;
}

/* One work-item per (point, parameter): d (c . expected data) / d par, walking the factors, deltas and
 * constraints that read it as hf_grad does, with the main cotangent in place of w and the expected aux data's
 * terms (Gaussian: par, Poisson: tau par) in place of the constraints'. */
__kernel void hf_vjp_pars(long K, __global const int* meta, __global const int* itab, __global const hf_real* rtab,
                          __global const hf_real* pars, __global const hf_real* cot_main,
                          __global const hf_real* cot_aux, __global const hf_real* base,
                          __global const hf_real* pnz, __global const int* zc, __global hf_real* grad)
{
    long g = get_global_id(0), k;
    int p, t;
    HfModel m;
    hf_wide s = 0, c = 0;
    hf_real alpha;
    __global const hf_real* cm;
    __global const hf_real* ca;
    hf_model_init(&m, meta, itab, rtab);
    if (g >= K * m.P) return;
    k = g / m.P;
    p = (int)(g % m.P);
    alpha = pars[k * m.P + p];
    cm = cot_main + k * m.N;
    ca = cot_aux + k * m.A;
    for (t = m.par_fac_off[p]; t < m.par_fac_off[p + 1]; ++t) {
        int f = m.par_fac[t], e = m.fac_elem[f], z;
        long ke = k * m.E + e;
        hf_real df;
        hf_real v = hf_factor(m.fac_kind[f], alpha, m.fac_lo[f], m.fac_hi[f], m.fac_coef + 6 * (long)f, &df);
        hf_wide others;
        z = zc[ke];
        others = z == 0 ? (hf_wide)pnz[ke] / (hf_wide)v : ((z == 1 && v == (hf_real)0) ? (hf_wide)pnz[ke] : (hf_wide)0);
        hf_acc(&s, &c, (hf_wide)cm[m.elem_bin[e]] * (hf_wide)base[ke] * (hf_wide)df * others);
    }
    for (t = m.par_del_off[p]; t < m.par_del_off[p + 1]; ++t) {
        int d = m.par_del[t], e = m.del_elem[d];
        long ke = k * m.E + e;
        hf_real dd, prod = zc[ke] == 0 ? pnz[ke] : (hf_real)0;
        hf_delta(m.del_kind[d], alpha, m.del_lo[d], m.del_nom[d], m.del_hi[d], &dd);
        hf_acc(&s, &c, (hf_wide)cm[m.elem_bin[e]] * (hf_wide)dd * (hf_wide)prod);
    }
    for (t = m.par_gauss_off[p]; t < m.par_gauss_off[p + 1]; ++t) hf_acc(&s, &c, (hf_wide)ca[m.gauss_aux[m.par_gauss[t]]]);
    for (t = m.par_pois_off[p]; t < m.par_pois_off[p + 1]; ++t) {
        int q = m.par_pois[t];
        hf_acc(&s, &c, (hf_wide)ca[m.pois_aux[q]] * (hf_wide)m.pois_tau[q]);
    }
    grad[g] = (hf_real)hf_acc_result(s, c);
}

/* One work-item per (point, Poisson constraint): d (c . expected aux) / d tau = c par. */
__kernel void hf_vjp_tau(long K, __global const int* meta, __global const int* itab, __global const hf_real* rtab,
                         __global const hf_real* pars, __global const hf_real* cot_aux, __global hf_real* g_tau)
{
    long g = get_global_id(0), k;
    int q;
    HfModel m;
    hf_model_init(&m, meta, itab, rtab);
    if (g >= K * m.Q) return;
    k = g / m.Q;
    q = (int)(g % m.Q);
    g_tau[g] = (hf_real)((hf_wide)cot_aux[k * m.A + m.pois_aux[q]] * (hf_wide)pars[k * m.P + m.pois_par[q]]);
}
