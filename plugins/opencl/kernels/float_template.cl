/* Kernel names avoid OpenCL builtin names: PoCL defines some (isfinite) as object-like macros.
 * Elementwise kernels for one floating type T (float or double; suffix SFX). W is the type the special
 * functions are evaluated in: double whenever the device has it, so float results are rounded once from a
 * double value, as the cpu plugin computes them. */
#define K(name) HF_CAT(name, SFX)
#ifdef HF_HAVE_FP64
#define W double
#else
#define W float
#endif

/* Standard normal quantile from q = p - 1/2 and r = min(p, 1 - p), both given separately so that erfinv(x)
 * (q = x/2, r = (1 - |x|)/2) keeps full relative accuracy near 0. Wichura's algorithm AS241 (PPND16),
 * Applied Statistics 37 (1988) 477-484: relative error about 1e-16. */
static inline W K(hf_ppnd)(W q, W r)
{
    W v;
    if (fabs(q) <= (W)0.425) {
        W s = (W)0.180625 - q * q;
        return q *
               (((((((s * (W)2509.0809287301226727 + (W)33430.575583588128105) * s + (W)67265.770927008700853) *
                        s +
                    (W)45921.953931549871457) *
                       s +
                   (W)13731.693765509461125) *
                      s +
                  (W)1971.5909503065514427) *
                     s +
                 (W)133.14166789178437745) *
                    s +
                (W)3.387132872796366608) /
               (((((((s * (W)5226.495278852545561 + (W)28729.085735721942674) * s + (W)39307.89580009271061) * s +
                    (W)21213.794301586595867) *
                       s +
                   (W)5394.1960214247511077) *
                      s +
                  (W)687.1870074920579083) *
                     s +
                 (W)42.313330701600911252) *
                    s +
                (W)1);
    }
    if (!(r > (W)0)) return r == (W)0 ? (q < (W)0 ? (W)(-INFINITY) : (W)INFINITY) : (W)NAN;
    r = sqrt(-log(r));
    if (r <= (W)5) {
        r -= (W)1.6;
        v = (((((((r * (W)7.7454501427834140764e-4 + (W)0.0227238449892691845833) * r +
                  (W)0.24178072517745061177) *
                     r +
                 (W)1.27045825245236838258) *
                    r +
                (W)3.64784832476320460504) *
                   r +
               (W)5.7694972214606914055) *
                  r +
              (W)4.6303378461565452959) *
                 r +
             (W)1.42343711074968357734) /
            (((((((r * (W)1.05075007164441684324e-9 + (W)5.475938084995344946e-4) * r +
                  (W)0.0151986665636164571966) *
                     r +
                 (W)0.14810397642748007459) *
                    r +
                (W)0.68976733498510000455) *
                   r +
               (W)1.6763848301838038494) *
                  r +
              (W)2.05319162663775882187) *
                 r +
             (W)1);
    } else {
        r -= (W)5;
        v = (((((((r * (W)2.01033439929228813265e-7 + (W)2.71155556874348757815e-5) * r +
                  (W)0.0012426609473880784386) *
                     r +
                 (W)0.026532189526576123093) *
                    r +
                (W)0.29656057182850489123) *
                   r +
               (W)1.7848265399172913358) *
                  r +
              (W)5.4637849111641143699) *
                 r +
             (W)6.6579046435011037772) /
            (((((((r * (W)2.04426310338993978564e-15 + (W)1.4215117583164458887e-7) * r +
                  (W)1.8463183175100546818e-5) *
                     r +
                 (W)7.868691311456132591e-4) *
                    r +
                (W)0.0148753612908506148525) *
                   r +
               (W)0.13692988092273580531) *
                  r +
              (W)0.59983220655588793769) *
                 r +
             (W)1);
    }
    return q < (W)0 ? -v : v;
}

static inline W K(hf_normal_ppf)(W p)
{
    if (!(p >= (W)0 && p <= (W)1)) return (W)NAN;
    return K(hf_ppnd)(p - (W)0.5, fmin(p, (W)1 - p));
}

static inline W K(hf_erfinv)(W x)
{
    if (!(x >= (W)-1 && x <= (W)1)) return (W)NAN;
    return K(hf_ppnd)((W)0.5 * x, (W)0.5 * ((W)1 - fabs(x))) * (W)0.70710678118654752440;
}

/* x^y; on PoCL exp(y log x) is about ten times faster than pow and agrees to a few ulp for x > 0. */
static inline T K(hf_pow)(T x, T y)
{
#ifdef HF_FAST_POW
    if (x > (T)0 && isfinite(x) && isfinite(y)) return (T)exp((W)y * log((W)x));
#endif
    return pow(x, y);
}

__kernel void K(unary)(int op, long n, __global const T* x, __global T* out)
{
    long i = get_global_id(0);
    T v, r;
    if (i >= n) return;
    v = x[i];
    switch (op) {
        case HF_U_NEG: r = -v; break;
        case HF_U_ABS: r = fabs(v); break;
        case HF_U_EXP: r = exp(v); break;
        case HF_U_LOG: r = log(v); break;
        case HF_U_SQRT: r = sqrt(v); break;
        case HF_U_SQUARE: r = v * v; break;
        case HF_U_SIGN: r = v > (T)0 ? (T)1 : (v < (T)0 ? (T)-1 : (isnan(v) ? v : (T)0)); break;
        case HF_U_FLOOR: r = floor(v); break;
        case HF_U_LGAMMA: r = (T)lgamma((W)v); break;
        case HF_U_ERF: r = (T)erf((W)v); break;
        case HF_U_ERFINV: r = (T)K(hf_erfinv)((W)v); break;
        case HF_U_NORMAL_CDF: r = (T)((W)0.5 * erfc(-(W)v * (W)0.70710678118654752440)); break;
        case HF_U_NORMAL_PPF: r = (T)K(hf_normal_ppf)((W)v); break;
        default: r = (T)NAN;
    }
    out[i] = r;
}

__kernel void K(is_finite)(long n, __global const T* x, __global uchar* out)
{
    long i = get_global_id(0);
    if (i < n) out[i] = (uchar)(isfinite(x[i]) ? 1 : 0);
}

__kernel void K(binary)(int op, long n, int ndim, long8 shape, long8 sa, long8 sb, __global const T* a,
                        __global const T* b, __global T* out)
{
    long i = get_global_id(0), ia, ib, unused;
    T x, y, r;
    if (i >= n) return;
    hf_bcast3(i, ndim, shape, sa, sb, sa, &ia, &ib, &unused);
    x = a[ia];
    y = b[ib];
    switch (op) {
        case HF_B_ADD: r = x + y; break;
        case HF_B_SUB: r = x - y; break;
        case HF_B_MUL: r = x * y; break;
        case HF_B_DIV: r = x / y; break;
        case HF_B_POW: r = K(hf_pow)(x, y); break;
        case HF_B_MIN: r = (isnan(x) || x <= y) ? x : y; break;
        case HF_B_MAX: r = (isnan(x) || x >= y) ? x : y; break;
        case HF_B_XLOGY: r = (x == (T)0 && !isnan(y)) ? (T)0 : x * log(y); break;
        default: r = (T)NAN;
    }
    out[i] = r;
}

#undef K
#undef W
