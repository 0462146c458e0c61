/* Kernels for one dtype T (suffix SFX): comparisons, arange, reductions, sort, integer matmul.
 * The host instantiates this text once per dtype with T, SFX and one of HF_T_FLOAT / HF_T_INT / HF_T_BOOL
 * defined. K(name) gives the kernel's name for this dtype, e.g. K(reduce_serial) -> reduce_serial_f64. */
#define K(name) HF_CAT(name, SFX)

#ifdef HF_T_FLOAT
#define HF_T_ISNAN(x) isnan(x)
#else
#define HF_T_ISNAN(x) 0
#endif

/* a > b, with NaN above everything (NaN sorts last, as numpy does) */
static inline int K(hf_gt)(T a, T b)
{
#ifdef HF_T_FLOAT
    return a > b || (isnan(a) && !isnan(b));
#else
    return a > b;
#endif
}

__kernel void K(compare)(int op, long n, int ndim, long8 shape, long8 sa, long8 sb, __global const T* a,
                         __global const T* b, __global uchar* out)
{
    long i = get_global_id(0), ia, ib, unused;
    T x, y;
    int r = 0;
    if (i >= n) return;
    hf_bcast3(i, ndim, shape, sa, sb, sa, &ia, &ib, &unused);
    x = a[ia];
    y = b[ib];
    switch (op) {
        case HF_B_LT: r = x < y; break;
        case HF_B_LE: r = x <= y; break;
        case HF_B_GT: r = x > y; break;
        case HF_B_GE: r = x >= y; break;
        case HF_B_EQ: r = x == y; break;
        case HF_B_NE: r = x != y; break;
        case HF_B_AND: r = (x != (T)0) && (y != (T)0); break;
        case HF_B_OR: r = (x != (T)0) || (y != (T)0); break;
        default: r = 0;
    }
    out[i] = (uchar)(r ? 1 : 0);
}

#ifndef HF_T_BOOL
__kernel void K(arange)(long n, __global T* out)
{
    long i = get_global_id(0);
    if (i < n) out[i] = (T)i;
}
#endif

/* ---- reductions: x viewed as [outer, n, inner] -> out [outer, inner] ---- */

/* Neumaier's compensated addition: s + c carries the sum to about twice the working precision. */
static inline void K(acc_add)(T* s, T* c, T x)
{
#ifdef HF_T_FLOAT
    T t = *s + x;
    if (fabs(*s) >= fabs(x))
        *c += (*s - t) + x;
    else
        *c += (x - t) + *s;
    *s = t;
#else
    *s += x;
#endif
}

/* (s1, c1) += (s2, c2): the tree step of a pairwise sum of compensated partials */
static inline void K(acc_merge)(T* s1, T* c1, T s2, T c2)
{
    K(acc_add)(s1, c1, s2);
#ifdef HF_T_FLOAT
    *c1 += c2;
#endif
}

/* Once a partial is inf or NaN its compensation is NaN; the plain sum then is the right answer. */
static inline T K(acc_result)(T s, T c)
{
#ifdef HF_T_FLOAT
    return isfinite(s) ? s + c : s;
#else
    return s;
#endif
}

static inline T K(red_init)(int op)
{
    switch (op) {
        case HF_R_PROD: return (T)1;
#ifdef HF_T_FLOAT
        case HF_R_MAX: return (T)(-INFINITY);
        case HF_R_MIN: return (T)INFINITY;
#else
        case HF_R_MAX: return HF_T_LOWEST;
        case HF_R_MIN: return HF_T_HIGHEST;
#endif
        default: return (T)0;
    }
}

/* prod, max, min; max and min propagate NaN as numpy does */
static inline T K(red_combine)(int op, T a, T b)
{
    switch (op) {
        case HF_R_PROD:
#ifdef HF_T_BOOL
            return (T)(a && b);
#else
            return a * b;
#endif
        case HF_R_MAX: return (HF_T_ISNAN(a) || a >= b) ? a : b;
        case HF_R_MIN: return (HF_T_ISNAN(a) || a <= b) ? a : b;
        default: return a + b;
    }
}

/* One work-item per output: used when there are many outputs or short rows. */
__kernel void K(reduce_serial)(int op, long outer, long n, long inner, __global const T* x, __global T* out)
{
    long g = get_global_id(0), o, in, i;
    __global const T* p;
    if (g >= outer * inner) return;
    o = g / inner;
    in = g % inner;
    p = x + o * n * inner + in;
    if (op == HF_R_SUM) {
        T s = (T)0, c = (T)0;
        for (i = 0; i < n; ++i) K(acc_add)(&s, &c, p[i * inner]);
        out[g] = K(acc_result)(s, c);
    } else {
        T a = K(red_init)(op);
        for (i = 0; i < n; ++i) a = K(red_combine)(op, a, p[i * inner]);
        out[g] = a;
    }
}

/* One work-group per output for long rows: strided compensated partials, then a pairwise tree in local
 * memory. The local size is a power of two. */
__kernel void K(reduce_group)(int op, long n, long inner, __global const T* x, __global T* out, __local T* ls,
                              __local T* lc)
{
    long g = get_group_id(0), o = g / inner, in = g % inner, i;
    int lid = (int)get_local_id(0), L = (int)get_local_size(0), w;
    __global const T* p = x + o * n * inner + in;
    T s = (op == HF_R_SUM) ? (T)0 : K(red_init)(op), c = (T)0;
    for (i = lid; i < n; i += L) {
        if (op == HF_R_SUM)
            K(acc_add)(&s, &c, p[i * inner]);
        else
            s = K(red_combine)(op, s, p[i * inner]);
    }
    ls[lid] = s;
    lc[lid] = c;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (w = L / 2; w > 0; w >>= 1) {
        if (lid < w) {
            if (op == HF_R_SUM) {
                T s1 = ls[lid], c1 = lc[lid];
                K(acc_merge)(&s1, &c1, ls[lid + w], lc[lid + w]);
                ls[lid] = s1;
                lc[lid] = c1;
            } else {
                ls[lid] = K(red_combine)(op, ls[lid], ls[lid + w]);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[g] = (op == HF_R_SUM) ? K(acc_result)(ls[0], lc[0]) : ls[0];
}

/* ---- sort: one compare-exchange step of a bitonic network over the next power of two above n, in the form
 * where every step sorts ascending (the first step of a merge compares i with its mirror in the block). Slots
 * at or beyond n act as +infinity, so a pair whose upper slot lies there never swaps. ---- */
__kernel void K(sort_step)(long lines, long n, long inner, long half_pairs, long j, int mirror, __global T* x)
{
    long t = get_global_id(0), line, q, lo, hi, o, in;
    T a, b;
    if (t >= lines * half_pairs) return;
    line = t / half_pairs;
    q = t % half_pairs;
    lo = (q / j) * 2 * j + (q % j);
    hi = mirror ? (lo ^ (2 * j - 1)) : (lo + j);
    if (hi >= n) return;
    o = line / inner;
    in = line % inner;
    lo = (o * n + lo) * inner + in;
    hi = (o * n + hi) * inner + in;
    a = x[lo];
    b = x[hi];
    if (K(hf_gt)(a, b)) {
        x[lo] = b;
        x[hi] = a;
    }
}

#ifdef HF_T_INT
/* Integer matmul (CLBlast covers the floating types): a [batch or 1, m, k] x b [batch or 1, k, n]. */
__kernel void K(matmul)(long batch, long m, long k, long n, long a_bstride, long b_bstride, __global const T* a,
                        __global const T* b, __global T* out)
{
    long g = get_global_id(0), bt, i, j, l;
    T s = (T)0;
    if (g >= batch * m * n) return;
    bt = g / (m * n);
    i = (g / n) % m;
    j = g % n;
    for (l = 0; l < k; ++l) s += a[bt * a_bstride + i * k + l] * b[bt * b_bstride + l * n + j];
    out[g] = s;
}
#endif

#undef K
#undef HF_T_ISNAN
