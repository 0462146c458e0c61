/* Philox-4x32-10 counter-based random numbers (Salmon, Moraes, Dror, Shaw, SC'11) and the distributions
 * hfcore draws toys from. Shared text for every plugin (C++, CUDA, OpenCL C), so that the same seed gives the
 * same numbers on every backend. No include guard: see hf_likelihood_math.h for the macros to define
 * (hf_real, HF_FN). Also define hf_u32 / hf_u64 as 32- and 64-bit unsigned integer types.
 *
 * Stream layout: element i of a tensor draws from counter (offset + i) in the low 64 bits and the draw number
 * j in the third word; the key is the 64-bit seed. Uniforms: 53 bits (double) or 24 bits (float).
 */

HF_FN void hf_philox_round(hf_u32* c, hf_u32 k0, hf_u32 k1)
{
    hf_u64 p0 = (hf_u64)0xD2511F53u * (hf_u64)c[0];
    hf_u64 p1 = (hf_u64)0xCD9E8D57u * (hf_u64)c[2];
    hf_u32 hi0 = (hf_u32)(p0 >> 32), lo0 = (hf_u32)p0;
    hf_u32 hi1 = (hf_u32)(p1 >> 32), lo1 = (hf_u32)p1;
    hf_u32 n0 = hi1 ^ c[1] ^ k0;
    hf_u32 n2 = hi0 ^ c[3] ^ k1;
    c[0] = n0;
    c[1] = lo1;
    c[2] = n2;
    c[3] = lo0;
}

/* Philox-4x32-10 itself: out[4] holds the counter on entry and the block on return; key (k0, k1). Separate from
 * the stream layout below so that the tests can check it against Random123's published known-answer vectors. */
HF_FN void hf_philox4x32_10(hf_u32* out, hf_u32 k0, hf_u32 k1)
{
    int r;
    for (r = 0; r < 10; ++r) {
        hf_philox_round(out, k0, k1);
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
}

/* Fills out[4] with the Philox-4x32-10 block for (counter, draw) under key seed. */
HF_FN void hf_philox(hf_u64 seed, hf_u64 counter, hf_u32 draw, hf_u32* out)
{
    out[0] = (hf_u32)counter;
    out[1] = (hf_u32)(counter >> 32);
    out[2] = draw;
    out[3] = 0u;
    hf_philox4x32_10(out, (hf_u32)seed, (hf_u32)(seed >> 32));
}

/* Two uniforms in (0, 1) from one block: 53-bit resolution when hf_real is double, 24-bit for float. */
HF_FN void hf_uniform2(hf_u64 seed, hf_u64 counter, hf_u32 draw, hf_real* u0, hf_real* u1)
{
    hf_u32 w[4];
    hf_philox(seed, counter, draw, w);
    if (sizeof(hf_real) == 8) {
        hf_u64 a = (((hf_u64)w[0] << 32) | w[1]) >> 11;
        hf_u64 b = (((hf_u64)w[2] << 32) | w[3]) >> 11;
        *u0 = ((hf_real)a + (hf_real)0.5) * (hf_real)1.1102230246251565404e-16; /* 2^-53 */
        *u1 = ((hf_real)b + (hf_real)0.5) * (hf_real)1.1102230246251565404e-16;
    } else {
        *u0 = ((hf_real)(w[0] >> 8) + (hf_real)0.5) * (hf_real)5.9604644775390625e-8; /* 2^-24 */
        *u1 = ((hf_real)(w[1] >> 8) + (hf_real)0.5) * (hf_real)5.9604644775390625e-8;
    }
}

HF_FN hf_real hf_random_uniform(hf_u64 seed, hf_u64 counter)
{
    hf_real u0, u1;
    hf_uniform2(seed, counter, 0u, &u0, &u1);
    return u0;
}

/* Standard normal by Box-Muller on the two uniforms of draw 0. */
HF_FN hf_real hf_random_normal(hf_u64 seed, hf_u64 counter)
{
    hf_real u0, u1;
    hf_uniform2(seed, counter, 0u, &u0, &u1);
    return sqrt((hf_real)-2 * log(u0)) * cos((hf_real)6.283185307179586477 * u1);
}

/* Poisson(lam): inversion by sequential search below 10, else Hormann's PTRS transformed rejection
 * (W. Hormann, "The transformed rejection method for generating Poisson random variables", 1993). */
HF_FN hf_real hf_random_poisson(hf_u64 seed, hf_u64 counter, hf_real lam)
{
    hf_u32 draw = 0u;
    if (!(lam > (hf_real)0)) return (hf_real)0;
    if (lam < (hf_real)10) {
        hf_real u, unused, p, F, k;
        hf_uniform2(seed, counter, draw, &u, &unused);
        p = exp(-lam);
        F = p;
        k = (hf_real)0;
        while (u > F && k < (hf_real)1000) {
            k += (hf_real)1;
            p *= lam / k;
            F += p;
        }
        return k;
    }
    {
        hf_real slam = sqrt(lam), loglam = log(lam);
        hf_real b = (hf_real)0.931 + (hf_real)2.53 * slam;
        hf_real a = (hf_real)-0.059 + (hf_real)0.02483 * b;
        hf_real invalpha = (hf_real)1.1239 + (hf_real)1.1328 / (b - (hf_real)3.4);
        hf_real vr = (hf_real)0.9277 - (hf_real)3.6224 / (b - (hf_real)2);
        for (draw = 0u; draw < 100000u; ++draw) {
            hf_real U, V, us, k;
            hf_uniform2(seed, counter, draw, &U, &V);
            U -= (hf_real)0.5;
            us = (hf_real)0.5 - fabs(U);
            k = floor(((hf_real)2 * a / us + b) * U + lam + (hf_real)0.43);
            if (us >= (hf_real)0.07 && V <= vr) return k;
            if (k < (hf_real)0 || (us < (hf_real)0.013 && V > us)) continue;
            if (log(V) + log(invalpha) - log(a / (us * us) + b) <= -lam + k * loglam - lgamma(k + (hf_real)1))
                return k;
        }
        return floor(lam); /* unreachable in practice: acceptance rate is above 0.9 */
    }
}
