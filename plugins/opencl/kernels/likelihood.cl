/* Fused HistFactory likelihood for K parameter points (semantics: include/hfcore/plugin/likelihood.hpp). Included
 * after hf_likelihood_math.h and fused_layout.h with hf_real set to the program's precision. Rates are computed
 * in hf_real; the Poisson and Gaussian terms, their derivatives and every sum are computed in hf_wide, which is
 * double whenever the device has it (the hfw_* functions are hf_likelihood_math.h instantiated for hf_wide).
 * At 32b this keeps the NLL good to float rounding of the inputs: the shapesys constraint terms of large-tau
 * models cancel terms of 1e5 or more, which float arithmetic would leave wrong by 1e-2.
 *
 * hf_logpdf: one work-group per point; its work-items stride over main bins (computing the rates on the fly)
 * and constraints, accumulate compensated partials and finish with a pairwise tree. With want_grad it also
 * leaves, per point, w[b] = d logpdf / d rate_b and per element its additive base (nominal + deltas), the
 * product of its nonzero factors and how many factors are zero.
 * hf_grad: one work-group per (point, parameter) walks the factors, deltas and constraints that read that
 * parameter (a CSR built on the host), so no atomics are needed and the result is deterministic. The product
 * of an element's other factors is (product of nonzero factors) / f when no factor is zero, the product of
 * the nonzero ones when f is the only zero, and 0 otherwise: exact for zero factors without storing a
 * prefix/suffix product per (point, factor). */

typedef struct {
    int N, E, P, A, G, Q;
    __global const int* bin_off;
    __global const int* bin_elems;
    __global const int* elem_bin;
    __global const int* fac_off;
    __global const int* del_off;
    __global const int* fac_par;
    __global const int* fac_kind;
    __global const int* fac_elem;
    __global const int* del_par;
    __global const int* del_kind;
    __global const int* del_elem;
    __global const int* gauss_par;
    __global const int* gauss_aux;
    __global const int* pois_par;
    __global const int* pois_aux;
    __global const int* par_fac_off;
    __global const int* par_fac;
    __global const int* par_del_off;
    __global const int* par_del;
    __global const int* par_gauss_off;
    __global const int* par_gauss;
    __global const int* par_pois_off;
    __global const int* par_pois;
    __global const int* aux_par;
    __global const hf_real* nominal;
    __global const hf_real* fac_lo;
    __global const hf_real* fac_hi;
    __global const hf_real* fac_coef;
    __global const hf_real* del_lo;
    __global const hf_real* del_nom;
    __global const hf_real* del_hi;
    __global const hf_real* gauss_sigma;
    __global const hf_real* pois_tau;
    __global const hf_real* aux_scale;
} HfModel;

static void hf_model_init(HfModel* m, __global const int* meta, __global const int* it, __global const hf_real* rt)
{
    m->N = meta[HF_META_N];
    m->E = meta[HF_META_E];
    m->P = meta[HF_META_P];
    m->A = meta[HF_META_A];
    m->G = meta[HF_META_G];
    m->Q = meta[HF_META_Q];
    m->bin_off = it + meta[HF_META_INT + HF_I_BIN_OFF];
    m->bin_elems = it + meta[HF_META_INT + HF_I_BIN_ELEMS];
    m->elem_bin = it + meta[HF_META_INT + HF_I_ELEM_BIN];
    m->fac_off = it + meta[HF_META_INT + HF_I_FAC_OFF];
    m->del_off = it + meta[HF_META_INT + HF_I_DEL_OFF];
    m->fac_par = it + meta[HF_META_INT + HF_I_FAC_PAR];
    m->fac_kind = it + meta[HF_META_INT + HF_I_FAC_KIND];
    m->fac_elem = it + meta[HF_META_INT + HF_I_FAC_ELEM];
    m->del_par = it + meta[HF_META_INT + HF_I_DEL_PAR];
    m->del_kind = it + meta[HF_META_INT + HF_I_DEL_KIND];
    m->del_elem = it + meta[HF_META_INT + HF_I_DEL_ELEM];
    m->gauss_par = it + meta[HF_META_INT + HF_I_GAUSS_PAR];
    m->gauss_aux = it + meta[HF_META_INT + HF_I_GAUSS_AUX];
    m->pois_par = it + meta[HF_META_INT + HF_I_POIS_PAR];
    m->pois_aux = it + meta[HF_META_INT + HF_I_POIS_AUX];
    m->par_fac_off = it + meta[HF_META_INT + HF_I_PAR_FAC_OFF];
    m->par_fac = it + meta[HF_META_INT + HF_I_PAR_FAC];
    m->par_del_off = it + meta[HF_META_INT + HF_I_PAR_DEL_OFF];
    m->par_del = it + meta[HF_META_INT + HF_I_PAR_DEL];
    m->par_gauss_off = it + meta[HF_META_INT + HF_I_PAR_GAUSS_OFF];
    m->par_gauss = it + meta[HF_META_INT + HF_I_PAR_GAUSS];
    m->par_pois_off = it + meta[HF_META_INT + HF_I_PAR_POIS_OFF];
    m->par_pois = it + meta[HF_META_INT + HF_I_PAR_POIS];
    m->aux_par = it + meta[HF_META_INT + HF_I_AUX_PAR];
    m->nominal = rt + meta[HF_META_REAL + HF_R_NOMINAL];
    m->fac_lo = rt + meta[HF_META_REAL + HF_R_FAC_LO];
    m->fac_hi = rt + meta[HF_META_REAL + HF_R_FAC_HI];
    m->fac_coef = rt + meta[HF_META_REAL + HF_R_FAC_COEF];
    m->del_lo = rt + meta[HF_META_REAL + HF_R_DEL_LO];
    m->del_nom = rt + meta[HF_META_REAL + HF_R_DEL_NOM];
    m->del_hi = rt + meta[HF_META_REAL + HF_R_DEL_HI];
    m->gauss_sigma = rt + meta[HF_META_REAL + HF_R_GAUSS_SIGMA];
    m->pois_tau = rt + meta[HF_META_REAL + HF_R_POIS_TAU];
    m->aux_scale = rt + meta[HF_META_REAL + HF_R_AUX_SCALE];
}

static inline void hf_acc(hf_wide* s, hf_wide* c, hf_wide x)
{
    hf_wide t = *s + x;
    if (fabs(*s) >= fabs(x))
        *c += (*s - t) + x;
    else
        *c += (x - t) + *s;
    *s = t;
}

static inline hf_wide hf_acc_result(hf_wide s, hf_wide c) { return isfinite(s) ? s + c : s; }

/* Pairwise tree over the work-group's compensated partials; every work-item gets the total. */
static hf_wide hf_group_sum(hf_wide s, hf_wide c, __local hf_wide* ls, __local hf_wide* lc)
{
    int lid = (int)get_local_id(0), L = (int)get_local_size(0), w;
    hf_wide total;
    ls[lid] = s;
    lc[lid] = c;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (w = L / 2; w > 0; w >>= 1) {
        if (lid < w) {
            hf_wide s1 = ls[lid], c1 = lc[lid];
            hf_acc(&s1, &c1, ls[lid + w]);
            ls[lid] = s1;
            lc[lid] = c1 + lc[lid + w];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    total = hf_acc_result(ls[0], lc[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

/* Expected rate contributed by element e: (nominal + deltas) * product of factors. */
static hf_real hf_element(const HfModel* m, int e, __global const hf_real* pk, hf_real* base_out,
                          hf_real* pnz_out, int* zc_out)
{
    hf_real base = m->nominal[e], prod = (hf_real)1, pnz = (hf_real)1, dummy;
    int zc = 0, t;
    for (t = m->del_off[e]; t < m->del_off[e + 1]; ++t)
        base += hf_delta(m->del_kind[t], pk[m->del_par[t]], m->del_lo[t], m->del_nom[t], m->del_hi[t], &dummy);
    for (t = m->fac_off[e]; t < m->fac_off[e + 1]; ++t) {
        hf_real f = hf_factor(m->fac_kind[t], pk[m->fac_par[t]], m->fac_lo[t], m->fac_hi[t],
                              m->fac_coef + 6 * (long)t, &dummy);
        prod *= f;
        if (f == (hf_real)0)
            ++zc;
        else
            pnz *= f;
    }
    *base_out = base;
    *pnz_out = pnz;
    *zc_out = zc;
    return base * prod;
}

__kernel void hf_logpdf(long K, __global const int* meta, __global const int* itab, __global const hf_real* rtab,
                        __global const hf_real* pars, __global const hf_real* data, long data_stride,
                        __global hf_real* out, int want_grad, __global hf_real* w_out, __global hf_real* base_out,
                        __global hf_real* pnz_out, __global int* zc_out, __local hf_wide* ls, __local hf_wide* lc)
{
    long k = get_group_id(0);
    int lid = (int)get_local_id(0), L = (int)get_local_size(0), b, t;
    HfModel m;
    __global const hf_real* pk;
    __global const hf_real* dk;
    hf_wide s = 0, c = 0, total;
    if (k >= K) return;
    hf_model_init(&m, meta, itab, rtab);
    pk = pars + k * m.P;
    dk = data + k * data_stride;
    for (b = lid; b < m.N; b += L) {
        hf_real lam = (hf_real)0, n = dk[b];
        for (t = m.bin_off[b]; t < m.bin_off[b + 1]; ++t) {
            int e = m.bin_elems[t], zc;
            hf_real base, pnz;
            lam += hf_element(&m, e, pk, &base, &pnz, &zc);
            if (want_grad) {
                base_out[k * m.E + e] = base;
                pnz_out[k * m.E + e] = pnz;
                zc_out[k * m.E + e] = zc;
            }
        }
        hf_acc(&s, &c, hfw_poisson_logpdf((hf_wide)n, (hf_wide)lam));
        if (want_grad) w_out[k * m.N + b] = (hf_real)((n == (hf_real)0 ? (hf_wide)0 : (hf_wide)n / (hf_wide)lam) - 1);
    }
    for (t = lid; t < m.G; t += L)
        hf_acc(&s, &c,
               hfw_normal_logpdf((hf_wide)dk[m.N + m.gauss_aux[t]], (hf_wide)pk[m.gauss_par[t]],
                                 (hf_wide)m.gauss_sigma[t]));
    for (t = lid; t < m.Q; t += L)
        hf_acc(&s, &c,
               hfw_poisson_constraint_logpdf((hf_wide)dk[m.N + m.pois_aux[t]], (hf_wide)pk[m.pois_par[t]],
                                             (hf_wide)m.pois_tau[t]));
    total = hf_group_sum(s, c, ls, lc);
    if (lid == 0) out[k] = (hf_real)total;
}

__kernel void hf_grad(long K, __global const int* meta, __global const int* itab, __global const hf_real* rtab,
                      __global const hf_real* pars, __global const hf_real* data, long data_stride,
                      __global const hf_real* w, __global const hf_real* base, __global const hf_real* pnz,
                      __global const int* zc, __global hf_real* grad, __local hf_wide* ls, __local hf_wide* lc)
{
    long g = get_group_id(0), k;
    int lid = (int)get_local_id(0), L = (int)get_local_size(0), p, t;
    HfModel m;
    __global const hf_real* pk;
    __global const hf_real* dk;
    hf_wide s = 0, c = 0, total;
    hf_real alpha;
    hf_model_init(&m, meta, itab, rtab);
    k = g / m.P;
    p = (int)(g % m.P);
    if (k >= K) return;
    pk = pars + k * m.P;
    dk = data + k * data_stride;
    alpha = pk[p];
    for (t = m.par_fac_off[p] + lid; t < m.par_fac_off[p + 1]; t += L) {
        int f = m.par_fac[t], e = m.fac_elem[f];
        long ke = k * m.E + e;
        hf_real df, others;
        hf_real v = hf_factor(m.fac_kind[f], alpha, m.fac_lo[f], m.fac_hi[f], m.fac_coef + 6 * (long)f, &df);
        int z = zc[ke];
        others = z == 0 ? pnz[ke] / v : ((z == 1 && v == (hf_real)0) ? pnz[ke] : (hf_real)0);
        hf_acc(&s, &c, w[k * m.N + m.elem_bin[e]] * base[ke] * df * others);
    }
    for (t = m.par_del_off[p] + lid; t < m.par_del_off[p + 1]; t += L) {
        int d = m.par_del[t], e = m.del_elem[d];
        long ke = k * m.E + e;
        hf_real dd, prod = zc[ke] == 0 ? pnz[ke] : (hf_real)0;
        hf_delta(m.del_kind[d], alpha, m.del_lo[d], m.del_nom[d], m.del_hi[d], &dd);
        hf_acc(&s, &c, w[k * m.N + m.elem_bin[e]] * dd * prod);
    }
    for (t = m.par_gauss_off[p] + lid; t < m.par_gauss_off[p + 1]; t += L) {
        int q = m.par_gauss[t];
        hf_wide sg = (hf_wide)m.gauss_sigma[q];
        hf_acc(&s, &c, ((hf_wide)dk[m.N + m.gauss_aux[q]] - (hf_wide)alpha) / (sg * sg));
    }
    for (t = m.par_pois_off[p] + lid; t < m.par_pois_off[p + 1]; t += L) {
        int q = m.par_pois[t];
        hf_wide aux = (hf_wide)dk[m.N + m.pois_aux[q]];
        hf_acc(&s, &c, (aux == 0 ? (hf_wide)0 : aux / (hf_wide)alpha) - (hf_wide)m.pois_tau[q]);
    }
    total = hf_group_sum(s, c, ls, lc);
    if (lid == 0) grad[g] = (hf_real)total;
}

__kernel void hf_expected_main(long K, __global const int* meta, __global const int* itab,
                               __global const hf_real* rtab, __global const hf_real* pars, __global hf_real* out)
{
    long g = get_global_id(0), k;
    int b, t, zc;
    HfModel m;
    hf_real lam = (hf_real)0, base, pnz;
    hf_model_init(&m, meta, itab, rtab);
    if (g >= K * m.N) return;
    k = g / m.N;
    b = (int)(g % m.N);
    for (t = m.bin_off[b]; t < m.bin_off[b + 1]; ++t)
        lam += hf_element(&m, m.bin_elems[t], pars + k * m.P, &base, &pnz, &zc);
    out[g] = lam;
}

__kernel void hf_expected_aux(long K, __global const int* meta, __global const int* itab,
                              __global const hf_real* rtab, __global const hf_real* pars, __global hf_real* out)
{
    long g = get_global_id(0), k;
    int a, p;
    HfModel m;
    hf_model_init(&m, meta, itab, rtab);
    if (g >= K * m.A) return;
    k = g / m.A;
    a = (int)(g % m.A);
    p = m.aux_par[a];
    out[g] = p < 0 ? (hf_real)0 : m.aux_scale[a] * pars[k * m.P + p];
}
