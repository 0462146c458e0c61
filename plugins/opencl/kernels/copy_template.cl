/* Data movement that only depends on the element size: U is uchar, uint or ulong (suffix SFX = 1, 4, 8). */
#define K(name) HF_CAT(name, SFX)

__kernel void K(where)(long n, int ndim, long8 shape, long8 sc, long8 sa, long8 sb, __global const uchar* cond,
                       __global const U* a, __global const U* b, __global U* out)
{
    long i = get_global_id(0), ic, ia, ib;
    if (i >= n) return;
    hf_bcast3(i, ndim, shape, sc, sa, sb, &ic, &ia, &ib);
    out[i] = cond[ic] ? a[ia] : b[ib];
}

/* out[i] = x[sum_d idx_d(i) * in_stride[d]]: idx over the output's shape, in_stride the input's strides
 * permuted into output order. */
__kernel void K(transpose)(long n, int ndim, long8 out_shape, long8 in_stride, __global const U* x,
                           __global U* out)
{
    long i = get_global_id(0), ix, u1, u2;
    if (i >= n) return;
    hf_bcast3(i, ndim, out_shape, in_stride, in_stride, in_stride, &ix, &u1, &u2);
    out[i] = x[ix];
}

/* Concatenation, one input at a time: x [outer, inner] -> columns [col, col + inner) of out [outer, out_inner] */
__kernel void K(copy2d)(long outer, long inner, long out_inner, long col, __global const U* x, __global U* out)
{
    long i = get_global_id(0), o, j;
    if (i >= outer * inner) return;
    o = i / inner;
    j = i % inner;
    out[o * out_inner + col + j] = x[i];
}

/* x [outer, n, inner], index [m] -> out [outer, m, inner]. Checking indices would cost a download, so an
 * index outside [0, n) is clamped to 0 or n - 1 on the device (never read out of bounds). */
__kernel void K(gather)(long outer, long n, long inner, long m, __global const U* x, __global const long* index,
                        __global U* out)
{
    long g = get_global_id(0), o, j, in, src;
    if (g >= outer * m * inner) return;
    in = g % inner;
    j = (g / inner) % m;
    o = g / (inner * m);
    src = index[j];
    src = src < 0 ? 0 : (src >= n ? n - 1 : src);
    out[g] = x[(o * n + src) * inner + in];
}

/* masked_select, last pass: block b writes its selected elements from position offsets[b] on. */
__kernel void K(ms_scatter)(long n, long block, __global const uchar* mask, __global const long* offsets,
                            __global const U* x, __global U* out)
{
    long b = get_global_id(0), i, end, pos;
    if (b * block >= n) return;
    end = min(n, (b + 1) * block);
    pos = offsets[b];
    for (i = b * block; i < end; ++i)
        if (mask[i]) out[pos++] = x[i];
}

#undef K
