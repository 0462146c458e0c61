/* Elementwise kernels for bool (uchar holding 0 or 1). Arithmetic on bools acts as logic, as numpy's does:
 * add and maximum are "or", mul and minimum are "and". */
__kernel void unary_b8(int op, long n, __global const uchar* x, __global uchar* out)
{
    long i = get_global_id(0);
    uchar v;
    if (i >= n) return;
    v = x[i];
    switch (op) {
        case HF_U_LOGICAL_NOT: out[i] = (uchar)(v ? 0 : 1); break;
        case HF_U_SQUARE:
        case HF_U_ABS:
        case HF_U_SIGN:
        case HF_U_FLOOR: out[i] = v; break;
        default: out[i] = (uchar)0;
    }
}

__kernel void is_finite_b8(long n, __global const uchar* x, __global uchar* out)
{
    long i = get_global_id(0);
    if (i < n) out[i] = (uchar)1;
}

__kernel void binary_b8(int op, long n, int ndim, long8 shape, long8 sa, long8 sb, __global const uchar* a,
                        __global const uchar* b, __global uchar* out)
{
    long i = get_global_id(0), ia, ib, unused;
    int x, y, r;
    if (i >= n) return;
    hf_bcast3(i, ndim, shape, sa, sb, sa, &ia, &ib, &unused);
    x = a[ia] != 0;
    y = b[ib] != 0;
    switch (op) {
        case HF_B_ADD:
        case HF_B_MAX:
        case HF_B_OR: r = x || y; break;
        case HF_B_MUL:
        case HF_B_MIN:
        case HF_B_AND: r = x && y; break;
        case HF_B_SUB: r = x != y; break;
        default: r = 0;
    }
    out[i] = (uchar)r;
}
