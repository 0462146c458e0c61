/* Interpolation formulas of the HistFactory modifiers and their derivatives, as pyhf computes them.
 *
 * Shared by every plugin's fused likelihood kernels: plain C99 so that C++ (cpu), CUDA and OpenCL C include
 * the same text. No include guard on purpose: a C++ includer may include it once per precision inside
 * different namespaces. Before including, define:
 *   hf_real     float or double (a typedef or a macro)
 *   HF_FN       function qualifiers, e.g. "static inline" (C/C++/OpenCL) or "__host__ __device__ inline"
 *   HF_GLOBAL   address space of table pointers: empty, or __global in OpenCL C
 * Kind numbers are those of include/hfcore/plugin/likelihood.hpp (FactorKind, DeltaKind).
 */

/* base^alpha as exp(alpha * log_base) and its derivative; callers that evaluate the same factor many times pass
 * a log computed once. For alpha < 0 a normsys uses lo^-alpha, i.e. log_base = -log(lo). */
HF_FN hf_real hf_factor_exp(hf_real alpha, hf_real log_base, hf_real* df)
{
    hf_real f = exp(alpha * log_base);
    *df = f * log_base;
    return f;
}

/* normsys code4 inside |alpha| < 1: 1 + sum_{i=1..6} coef[i-1] alpha^i and its derivative, by Horner */
HF_FN hf_real hf_factor_code4_poly(hf_real alpha, HF_GLOBAL const hf_real* coef, hf_real* df)
{
    hf_real p = coef[5], dp = (hf_real)6 * coef[5];
    p = p * alpha + coef[4];
    dp = dp * alpha + (hf_real)5 * coef[4];
    p = p * alpha + coef[3];
    dp = dp * alpha + (hf_real)4 * coef[3];
    p = p * alpha + coef[2];
    dp = dp * alpha + (hf_real)3 * coef[2];
    p = p * alpha + coef[1];
    dp = dp * alpha + (hf_real)2 * coef[1];
    p = p * alpha + coef[0];
    dp = dp * alpha + coef[0];
    *df = dp;
    return (hf_real)1 + p * alpha;
}

/* Multiplicative factor f(alpha) of a modifier; *df receives df/dalpha. coef: 6 code4 coefficients. */
HF_FN hf_real hf_factor(int kind, hf_real alpha, hf_real lo, hf_real hi, HF_GLOBAL const hf_real* coef,
                        hf_real* df)
{
    if (kind == 0) { /* linear: normfactor, lumi, shapefactor, shapesys, staterror */
        *df = (hf_real)1;
        return alpha;
    }
    if (kind == 1) /* normsys code1: piecewise exponential */
        return alpha >= (hf_real)0 ? hf_factor_exp(alpha, log(hi), df) : hf_factor_exp(alpha, -log(lo), df);
    /* normsys code4: exponential outside |alpha| < 1, 6th-order polynomial inside (pyhf: alpha0 = 1) */
    if (alpha >= (hf_real)1) return hf_factor_exp(alpha, log(hi), df);
    if (alpha <= (hf_real)-1) return hf_factor_exp(alpha, -log(lo), df);
    return hf_factor_code4_poly(alpha, coef, df);
}

/* Additive delta of a histosys bin; *dd receives d delta / d alpha. */
HF_FN hf_real hf_delta(int kind, hf_real alpha, hf_real lo, hf_real nom, hf_real hi, hf_real* dd)
{
    if (kind == 0) { /* code0: piecewise linear */
        /* at the kink alpha = 0 take the right-hand slope, as pyhf's forward differences see it */
        hf_real slope = alpha >= (hf_real)0 ? hi - nom : nom - lo;
        *dd = slope;
        return alpha * slope;
    }
    if (kind == 2) { /* code2 exactly as pyhf's vectorised implementation computes it */
        hf_real a = (hf_real)0.5 * (hi + lo) - nom;
        hf_real b = (hf_real)0.5 * (hi - lo);
        if (alpha > (hf_real)1) {
            *dd = b + (hf_real)2 * a;
            return (alpha - (hf_real)1) * (b + (hf_real)2 * a);
        }
        if (alpha >= (hf_real)-1) {
            *dd = (hf_real)2 * a * alpha + b;
            return a * alpha * alpha + b * alpha;
        }
        *dd = b - (hf_real)2 * a;
        return alpha * (b - (hf_real)2 * a);
    }
    {   /* code4p: polynomial inside |alpha| <= 1, linear outside */
        hf_real up = hi - nom, dn = nom - lo;
        if (alpha > (hf_real)1) {
            *dd = up;
            return alpha * up;
        }
        if (alpha < (hf_real)-1) {
            *dd = dn;
            return alpha * dn;
        }
        {
            hf_real S = (hf_real)0.5 * (up + dn);
            hf_real A = (hf_real)0.0625 * (up - dn);
            hf_real a2 = alpha * alpha;
            /* delta = S a + A (15 a^2 - 10 a^4 + 3 a^6) */
            hf_real poly = a2 * (a2 * ((hf_real)3 * a2 - (hf_real)10) + (hf_real)15);
            *dd = S + A * alpha * ((hf_real)30 + a2 * ((hf_real)18 * a2 - (hf_real)40));
            return S * alpha + A * poly;
        }
    }
}

/* The same delta written as cS * w[0] + cA * w[1], with per-bin constants cS = (up + dn) / 2, cA = (up - dn) / 2
 * (up = hi - nom, dn = nom - lo) and weights that depend on alpha only: a kernel computes the weights once per
 * parameter and each bin then costs two multiply-adds. w[2], w[3] receive dw[0]/dalpha, dw[1]/dalpha. */
HF_FN void hf_delta_weights(int kind, hf_real alpha, hf_real* w)
{
    w[0] = alpha;
    w[2] = (hf_real)1;
    if (kind == 0) { /* alpha * up for alpha >= 0 (right-hand slope at the kink), alpha * dn below */
        w[1] = alpha >= (hf_real)0 ? alpha : -alpha;
        w[3] = alpha >= (hf_real)0 ? (hf_real)1 : (hf_real)-1;
    } else if (kind == 2) { /* cA alpha^2 + cS alpha inside; pyhf's linear continuations outside */
        if (alpha > (hf_real)1) {
            w[0] = alpha - (hf_real)1;
            w[1] = (hf_real)2 * (alpha - (hf_real)1);
            w[3] = (hf_real)2;
        } else if (alpha >= (hf_real)-1) {
            w[1] = alpha * alpha;
            w[3] = (hf_real)2 * alpha;
        } else {
            w[1] = (hf_real)-2 * alpha;
            w[3] = (hf_real)-2;
        }
    } else { /* code4p: (15 a^2 - 10 a^4 + 3 a^6) / 8 inside, |alpha| outside */
        if (alpha > (hf_real)1) {
            w[1] = alpha;
            w[3] = (hf_real)1;
        } else if (alpha < (hf_real)-1) {
            w[1] = -alpha;
            w[3] = (hf_real)-1;
        } else {
            hf_real a2 = alpha * alpha;
            w[1] = (hf_real)0.125 * (a2 * (a2 * ((hf_real)3 * a2 - (hf_real)10) + (hf_real)15));
            w[3] = (hf_real)0.125 * (alpha * ((hf_real)30 + a2 * ((hf_real)18 * a2 - (hf_real)40)));
        }
    }
}

/* x log(y) with the convention 0 log(y) = 0 (pyhf's xlogy). */
HF_FN hf_real hf_xlogy(hf_real x, hf_real y)
{
    return x == (hf_real)0 ? (hf_real)0 : x * log(y);
}

/* n log n - n - lgamma(n + 1) for continuous n >= 0: the part of log Poisson(n | lam) that depends on the data
 * only. For large n the three terms cancel almost completely (n = 2e11 gives terms of 5e12 and a result of
 * -13.5), so there it is evaluated from Stirling's series instead: -0.5 log(2 pi n) - (1/(12n) - 1/(360n^3)
 * + 1/(1260n^5) - 1/(1680n^7)), whose truncation error is below 1e-14 for n >= 15. */
HF_FN hf_real hf_poisson_const(hf_real n)
{
    if (n <= (hf_real)0) return (hf_real)0;
    if (n < (hf_real)15) return n * log(n) - n - lgamma(n + (hf_real)1);
    {
        hf_real r = (hf_real)1 / n, r2 = r * r;
        hf_real series = r * ((hf_real)(1.0 / 12) -
                              r2 * ((hf_real)(1.0 / 360) - r2 * ((hf_real)(1.0 / 1260) - r2 * (hf_real)(1.0 / 1680))));
        return (hf_real)-0.5 * log((hf_real)6.283185307179586477 * n) - series;
    }
}

/* n log(lam / n) for n > 0: the ratio keeps the digits that n log lam - n log n would lose when lam is close to
 * n, but for a count below lam / (the largest finite number), a denormal one like 1e-310, lam / n overflows, and
 * n log(inf) = inf turned a finite logpdf into NaN inside compensated sums (pyhf: finite). There the difference
 * of logs is used: times so small an n it is ~0 either way. (r * 0.5 == r for r > 0: r is inf; not every
 * dialect has isinf.) */
HF_FN hf_real hf_n_log_ratio(hf_real n, hf_real lam)
{
    hf_real r = lam / n;
    if (r > (hf_real)0 && r * (hf_real)0.5 == r) return n * (log(lam) - log(n));
    return hf_xlogy(n, r);
}

/* log Poisson(n | lam) = n log lam - lam - lgamma(n + 1) for continuous n, arranged as
 * n log(lam / n) + (n - lam) + hf_poisson_const(n) so that nothing large cancels: with aux data of 1e11 (tiny
 * shapesys uncertainties) the direct form has rounding errors of 1e-3, which stall fits and ruin 32b. */
HF_FN hf_real hf_poisson_logpdf(hf_real n, hf_real lam)
{
    if (n == (hf_real)0) return -lam;
    return hf_n_log_ratio(n, lam) + (n - lam) + hf_poisson_const(n);
}

/* log Poisson(aux | par * tau), the constraint of a shapesys parameter par (nominally 1) with tau = (nom/unc)^2,
 * up to 1e11. Rearranged so that neither n log(lam/n) nor n - lam loses digits to the rounding of par * tau:
 * aux log(par) + aux log(tau/aux) + ((aux - tau) - (par - 1) tau) + hf_poisson_const(aux). At nominal aux
 * (aux == tau) the second term is exactly 0. Derivative in par: aux/par - tau. */
HF_FN hf_real hf_poisson_constraint_logpdf(hf_real aux, hf_real par, hf_real tau)
{
    if (aux == (hf_real)0) return -par * tau;
    return aux * log(par) + hf_n_log_ratio(aux, tau) + ((aux - tau) - (par - (hf_real)1) * tau) +
           hf_poisson_const(aux);
}

/* log Normal(x | mu, sigma) */
HF_FN hf_real hf_normal_logpdf(hf_real x, hf_real mu, hf_real sigma)
{
    hf_real z = (x - mu) / sigma;
    return (hf_real)-0.5 * z * z - log(sigma) - (hf_real)0.91893853320467274178; /* 0.5 log(2 pi) */
}
