/* Conversion from TS (suffix SS) to TD (suffix SD). HF_TO_BOOL: nonzero -> 1. Float to integer truncates. */
__kernel void HF_CAT(cast, HF_CAT(SS, SD))(long n, __global const TS* x, __global TD* out)
{
    long i = get_global_id(0);
    if (i >= n) return;
#ifdef HF_TO_BOOL
    out[i] = (TD)(x[i] != (TS)0 ? 1 : 0);
#else
    out[i] = (TD)x[i];
#endif
}
