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
        case HF_U_ERFINV: r = (T)hf_erfinv((W)v); break;
        case HF_U_NORMAL_CDF: r = (T)((W)0.5 * erfc(-(W)v * (W)0.70710678118654752440)); break;
        case HF_U_NORMAL_PPF: r = (T)hf_normal_ppf((W)v); break;
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
