/* The standard normal quantile and the inverse error function, one routine for every plugin (cpu, opencl,
 * cuda) so that their results agree to the rounding of one algorithm. Plain C99 that C++, CUDA and OpenCL C all
 * compile. No include guard: an OpenCL program text includes it once per working type. Before including, define:
 *   hf_nq_real  the working type: double, or float on an OpenCL device without fp64
 *   HF_NQ_FN    function qualifiers, e.g. "static inline" (C/OpenCL), "inline" (C++), "__device__ inline" (CUDA)
 * and have sqrt, log, fabs, fmin, INFINITY and NAN in scope. */

/* Standard normal quantile from q = p - 1/2 and r = min(p, 1 - p), both given separately so that erfinv(x)
 * (q = x/2, r = (1 - |x|)/2) keeps full relative accuracy near 0. Wichura's algorithm AS241 (PPND16),
 * Applied Statistics 37 (1988) 477-484: relative error about 1e-16. */
HF_NQ_FN hf_nq_real hf_ppnd(hf_nq_real q, hf_nq_real r)
{
    hf_nq_real v;
    if (fabs(q) <= (hf_nq_real)0.425) {
        hf_nq_real s = (hf_nq_real)0.180625 - q * q;
        return q *
               (((((((s * (hf_nq_real)2509.0809287301226727 + (hf_nq_real)33430.575583588128105) * s + (hf_nq_real)67265.770927008700853) *
                        s +
                    (hf_nq_real)45921.953931549871457) *
                       s +
                   (hf_nq_real)13731.693765509461125) *
                      s +
                  (hf_nq_real)1971.5909503065514427) *
                     s +
                 (hf_nq_real)133.14166789178437745) *
                    s +
                (hf_nq_real)3.387132872796366608) /
               (((((((s * (hf_nq_real)5226.495278852545561 + (hf_nq_real)28729.085735721942674) * s + (hf_nq_real)39307.89580009271061) * s +
                    (hf_nq_real)21213.794301586595867) *
                       s +
                   (hf_nq_real)5394.1960214247511077) *
                      s +
                  (hf_nq_real)687.1870074920579083) *
                     s +
                 (hf_nq_real)42.313330701600911252) *
                    s +
                (hf_nq_real)1);
    }
    if (!(r > (hf_nq_real)0)) return r == (hf_nq_real)0 ? (q < (hf_nq_real)0 ? (hf_nq_real)(-INFINITY) : (hf_nq_real)INFINITY) : (hf_nq_real)NAN;
    r = sqrt(-log(r));
    if (r <= (hf_nq_real)5) {
        r -= (hf_nq_real)1.6;
        v = (((((((r * (hf_nq_real)7.7454501427834140764e-4 + (hf_nq_real)0.0227238449892691845833) * r +
                  (hf_nq_real)0.24178072517745061177) *
                     r +
                 (hf_nq_real)1.27045825245236838258) *
                    r +
                (hf_nq_real)3.64784832476320460504) *
                   r +
               (hf_nq_real)5.7694972214606914055) *
                  r +
              (hf_nq_real)4.6303378461565452959) *
                 r +
             (hf_nq_real)1.42343711074968357734) /
            (((((((r * (hf_nq_real)1.05075007164441684324e-9 + (hf_nq_real)5.475938084995344946e-4) * r +
                  (hf_nq_real)0.0151986665636164571966) *
                     r +
                 (hf_nq_real)0.14810397642748007459) *
                    r +
                (hf_nq_real)0.68976733498510000455) *
                   r +
               (hf_nq_real)1.6763848301838038494) *
                  r +
              (hf_nq_real)2.05319162663775882187) *
                 r +
             (hf_nq_real)1);
    } else {
        r -= (hf_nq_real)5;
        v = (((((((r * (hf_nq_real)2.01033439929228813265e-7 + (hf_nq_real)2.71155556874348757815e-5) * r +
                  (hf_nq_real)0.0012426609473880784386) *
                     r +
                 (hf_nq_real)0.026532189526576123093) *
                    r +
                (hf_nq_real)0.29656057182850489123) *
                   r +
               (hf_nq_real)1.7848265399172913358) *
                  r +
              (hf_nq_real)5.4637849111641143699) *
                 r +
             (hf_nq_real)6.6579046435011037772) /
            (((((((r * (hf_nq_real)2.04426310338993978564e-15 + (hf_nq_real)1.4215117583164458887e-7) * r +
                  (hf_nq_real)1.8463183175100546818e-5) *
                     r +
                 (hf_nq_real)7.868691311456132591e-4) *
                    r +
                (hf_nq_real)0.0148753612908506148525) *
                   r +
               (hf_nq_real)0.13692988092273580531) *
                  r +
              (hf_nq_real)0.59983220655588793769) *
                 r +
             (hf_nq_real)1);
    }
    return q < (hf_nq_real)0 ? -v : v;
}

HF_NQ_FN hf_nq_real hf_normal_ppf(hf_nq_real p)
{
    if (!(p >= (hf_nq_real)0 && p <= (hf_nq_real)1)) return (hf_nq_real)NAN;
    return hf_ppnd(p - (hf_nq_real)0.5, fmin(p, (hf_nq_real)1 - p));
}

HF_NQ_FN hf_nq_real hf_erfinv(hf_nq_real x)
{
    if (!(x >= (hf_nq_real)-1 && x <= (hf_nq_real)1)) return (hf_nq_real)NAN;
    return hf_ppnd((hf_nq_real)0.5 * x, (hf_nq_real)0.5 * ((hf_nq_real)1 - fabs(x))) * (hf_nq_real)0.70710678118654752440;
}
