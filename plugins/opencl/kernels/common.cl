/* Text every hfcore OpenCL program starts with (after the defines the host prepends: HF_HAVE_FP64,
 * HF_FAST_POW, the HF_U_* / HF_B_* / HF_R_* op codes). OpenCL C 1.2. */
#ifdef HF_HAVE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define HF_CAT2(a, b) a##_##b
#define HF_CAT(a, b) HF_CAT2(a, b)

/* Broadcast plans arrive as long8 vectors (shape and per-operand element strides); OpenCL C has no dynamic
 * component indexing, so the walk over dimensions copies them into private arrays first. */
#define HF_L8(v) {(v).s0, (v).s1, (v).s2, (v).s3, (v).s4, (v).s5, (v).s6, (v).s7}

/* Offsets of up to three operands for output element i; ndim < 0 means every operand has the output's shape. */
static inline void hf_bcast3(long i, int ndim, long8 shape, long8 s0, long8 s1, long8 s2, long* o0, long* o1,
                             long* o2)
{
    if (ndim < 0) {
        *o0 = i;
        *o1 = i;
        *o2 = i;
        return;
    }
    {
        long sh[8] = HF_L8(shape);
        long a[8] = HF_L8(s0);
        long b[8] = HF_L8(s1);
        long c[8] = HF_L8(s2);
        long r = i, x = 0, y = 0, z = 0;
        int d;
        for (d = ndim - 1; d >= 0; --d) {
            long id = r % sh[d];
            r /= sh[d];
            x += id * a[d];
            y += id * b[d];
            z += id * c[d];
        }
        *o0 = x;
        *o1 = y;
        *o2 = z;
    }
}
