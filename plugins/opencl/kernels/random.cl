/* Philox-based random numbers (plugins/shared/philox.h, included before this text with hf_real set to the
 * program's precision). Element i uses counter offset + i, as every plugin does. */
__kernel void rng_uniform(long n, ulong seed, ulong offset, __global hf_real* out)
{
    long i = get_global_id(0);
    if (i < n) out[i] = hf_random_uniform(seed, offset + (ulong)i);
}

__kernel void rng_normal(long n, ulong seed, ulong offset, __global hf_real* out)
{
    long i = get_global_id(0);
    if (i < n) out[i] = hf_random_normal(seed, offset + (ulong)i);
}

__kernel void rng_poisson(long n, ulong seed, ulong offset, __global const hf_real* rate, __global hf_real* out)
{
    long i = get_global_id(0);
    if (i < n) out[i] = hf_random_poisson(seed, offset + (ulong)i, rate[i]);
}
