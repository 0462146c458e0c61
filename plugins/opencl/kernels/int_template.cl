/* Elementwise kernels for one integer type T (int or long; suffix SFX). Division is numpy's floor division;
 * division by zero gives 0 (as numpy) and LOWEST / -1 wraps rather than trapping, since a CPU device (PoCL)
 * would raise SIGFPE. */
#define K(name) HF_CAT(name, SFX)

static inline T K(hf_ipow)(T x, T y)
{
    T r = (T)1;
    if (y < (T)0) return x == (T)1 ? (T)1 : (x == (T)-1 ? ((y & (T)1) ? (T)-1 : (T)1) : (T)0);
    while (y > (T)0) {
        if (y & (T)1) r *= x;
        x *= x;
        y >>= 1;
    }
    return r;
}

/* numpy's //: rounds toward minus infinity */
static inline T K(hf_floordiv)(T x, T y)
{
    T q;
    if (y == (T)0) return (T)0;
    if (y == (T)-1) return -x;
    q = x / y;
    return (x % y != (T)0 && ((x < (T)0) != (y < (T)0))) ? q - (T)1 : q;
}

__kernel void K(unary)(int op, long n, __global const T* x, __global T* out)
{
    long i = get_global_id(0);
    T v, r;
    if (i >= n) return;
    v = x[i];
    switch (op) {
        case HF_U_NEG: r = -v; break;
        case HF_U_ABS: r = v < (T)0 ? -v : v; break;
        case HF_U_SQUARE: r = v * v; break;
        case HF_U_SIGN: r = v > (T)0 ? (T)1 : (v < (T)0 ? (T)-1 : (T)0); break;
        case HF_U_FLOOR: r = v; break;
        default: r = (T)0;
    }
    out[i] = r;
}

__kernel void K(is_finite)(long n, __global const T* x, __global uchar* out)
{
    long i = get_global_id(0);
    if (i < n) out[i] = (uchar)1;
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
        case HF_B_DIV: r = K(hf_floordiv)(x, y); break;
        case HF_B_POW: r = K(hf_ipow)(x, y); break;
        case HF_B_MIN: r = x <= y ? x : y; break;
        case HF_B_MAX: r = x >= y ? x : y; break;
        default: r = (T)0;
    }
    out[i] = r;
}

#undef K
