// Fused likelihood kernels: the Poisson term of every bin and every constraint term for K points in one
// launch (optionally with each modifier's gradient contribution), the per-parameter gradient sums, and the
// expected main and aux data. Formulas: plugins/shared/hf_likelihood_math.h; semantics: likelihood.hpp.
#include "device.cuh"

namespace hf::cuda {

#define HF_FN __host__ __device__ inline
#define HF_GLOBAL

namespace lk64 {
typedef double hf_real;
#include "hf_likelihood_math.h"
}  // namespace lk64

namespace lk32 {
typedef float hf_real;
// Single-precision functions by name, never the double overloads.
HF_FN float exp(float x) { return expf(x); }
HF_FN float log(float x) { return logf(x); }
HF_FN float lgamma(float x) { return lgammaf(x); }
#include "hf_likelihood_math.h"
}  // namespace lk32

#undef HF_FN
#undef HF_GLOBAL

namespace {

// Both precisions as one overload set.
using lk32::hf_delta;
using lk32::hf_factor;
using lk32::hf_normal_logpdf;
using lk32::hf_poisson_logpdf;
using lk64::hf_delta;
using lk64::hf_factor;
using lk64::hf_normal_logpdf;
using lk64::hf_poisson_logpdf;
using lk32::hf_delta_weights;
using lk64::hf_delta_weights;

template <class T>
struct Tables {
    const T *nominal, *f_lo, *f_hi, *f_coef, *d_lo, *d_nom, *d_hi, *g_sigma, *q_tau, *aux_scale;
    __device__ explicit Tables(const LikelihoodView& v)
        : nominal(static_cast<const T*>(v.elem_nominal)), f_lo(static_cast<const T*>(v.factor_lo)),
          f_hi(static_cast<const T*>(v.factor_hi)), f_coef(static_cast<const T*>(v.factor_coef)),
          d_lo(static_cast<const T*>(v.delta_lo)), d_nom(static_cast<const T*>(v.delta_nom)),
          d_hi(static_cast<const T*>(v.delta_hi)), g_sigma(static_cast<const T*>(v.gauss_sigma)),
          q_tau(static_cast<const T*>(v.pois_tau)), aux_scale(static_cast<const T*>(v.aux_scale)) {}
};

// (nominal + sum of deltas) * product of factors for one element at parameters p.
template <class T>
__device__ inline T element_value(const LikelihoodView& v, const Tables<T>& t, std::int32_t e, const T* p) {
    T base = t.nominal[e], scratch;
    for (std::int32_t d = v.delta_offsets[e]; d < v.delta_offsets[e + 1]; ++d)
        base += hf_delta(v.delta_kind[d], p[v.delta_par[d]], t.d_lo[d], t.d_nom[d], t.d_hi[d], &scratch);
    T prod = T(1);
    for (std::int32_t f = v.factor_offsets[e]; f < v.factor_offsets[e + 1]; ++f)
        prod *= hf_factor(v.factor_kind[f], p[v.factor_par[f]], t.f_lo[f], t.f_hi[f], t.f_coef + 6 * f, &scratch);
    return base * prod;
}

// Writes w * d(element)/d(alpha) into the slot of each of the element's deltas and factors. The product of
// the other factors is taken as prod / f, except where factors are zero (a normfactor at 0 is common).
template <class T>
__device__ inline void element_grad(const LikelihoodView& v, const Tables<T>& t, std::int32_t e, const T* p, T w,
                                    T* c) {
    T base = t.nominal[e], scratch;
    for (std::int32_t d = v.delta_offsets[e]; d < v.delta_offsets[e + 1]; ++d)
        base += hf_delta(v.delta_kind[d], p[v.delta_par[d]], t.d_lo[d], t.d_nom[d], t.d_hi[d], &scratch);
    T prod_nz = T(1);
    int zeros = 0;
    for (std::int32_t f = v.factor_offsets[e]; f < v.factor_offsets[e + 1]; ++f) {
        T val = hf_factor(v.factor_kind[f], p[v.factor_par[f]], t.f_lo[f], t.f_hi[f], t.f_coef + 6 * f, &scratch);
        if (val == T(0)) ++zeros;
        else prod_nz *= val;
    }
    const T prod = zeros ? T(0) : prod_nz;
    for (std::int32_t d = v.delta_offsets[e]; d < v.delta_offsets[e + 1]; ++d) {
        T dd;
        hf_delta(v.delta_kind[d], p[v.delta_par[d]], t.d_lo[d], t.d_nom[d], t.d_hi[d], &dd);
        c[v.delta_slot[d]] = w * dd * prod;
    }
    for (std::int32_t f = v.factor_offsets[e]; f < v.factor_offsets[e + 1]; ++f) {
        T df;
        T val = hf_factor(v.factor_kind[f], p[v.factor_par[f]], t.f_lo[f], t.f_hi[f], t.f_coef + 6 * f, &df);
        T others = zeros == 0 ? prod_nz / val : (zeros == 1 && val == T(0) ? prod_nz : T(0));
        c[v.factor_slot[f]] = w * base * df * others;
    }
}

template <class T>
__global__ void terms_kernel(const LikelihoodView v, const T* pars, std::int64_t K, const T* data,
                             std::int64_t data_stride, T* terms, T* contrib) {
    const Tables<T> t(v);
    const std::int64_t N = v.n_main, G = v.n_gauss, J = v.n_main + v.n_gauss + v.n_pois;
    HF_GRID_STRIDE(idx, K * J) {
        const std::int64_t k = idx / J, j = idx % J;
        const T* p = pars + k * v.n_pars;
        const T* d = data + k * data_stride;
        T* c = contrib ? contrib + k * v.n_slots : nullptr;
        if (j < N) {
            const std::int32_t e0 = v.bin_offsets[j], e1 = v.bin_offsets[j + 1];
            T rate = T(0);
            for (std::int32_t i = e0; i < e1; ++i) rate += element_value(v, t, v.bin_elems[i], p);
            const T n = d[j];
            terms[idx] = hf_poisson_logpdf(n, rate);
            if (c) {
                const T w = n == T(0) ? T(-1) : n / rate - T(1);  // d term / d rate
                for (std::int32_t i = e0; i < e1; ++i) element_grad(v, t, v.bin_elems[i], p, w, c);
            }
        } else if (j < N + G) {
            const std::int64_t g = j - N;
            const T par = p[v.gauss_par[g]], aux = d[N + v.gauss_aux[g]], sigma = t.g_sigma[g];
            terms[idx] = hf_normal_logpdf(aux, par, sigma);
            if (c) c[v.gauss_slot[g]] = (aux - par) / (sigma * sigma);
        } else {
            const std::int64_t q = j - N - G;
            const T par = p[v.pois_par[q]], aux = d[N + v.pois_aux[q]], tau = t.q_tau[q];
            const T lam = tau * par;
            terms[idx] = hf_poisson_logpdf(aux, lam);
            if (c) c[v.pois_slot[q]] = aux == T(0) ? -tau : tau * (aux / lam - T(1));
        }
    }
}

// One warp per (point, parameter): compensated sums per lane over the parameter's slots, then a tree across
// the 32 lanes.
template <class T>
__global__ void grad_kernel(const LikelihoodView v, std::int64_t K, const T* contrib, T* grad) {
    const int lane = threadIdx.x & 31;
    const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
    for (std::int64_t w = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
         w < K * v.n_pars; w += warps) {
        const std::int64_t k = w / v.n_pars, p = w % v.n_pars;
        const T* c = contrib + k * v.n_slots;
        T sum = T(0), comp = T(0);
        for (std::int32_t s = v.par_offsets[p] + lane; s < v.par_offsets[p + 1]; s += 32) {
            const T y = c[s] - comp;
            const T tot = sum + y;
            comp = (tot - sum) - y;
            sum = tot;
        }
        for (int off = 16; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, off);
        if (lane == 0) grad[w] = sum;
    }
}

__device__ inline float log_of(float x) { return logf(x); }
__device__ inline double log_of(double x) { return ::log(x); }

// d lgamma / dx: recurrence up to x >= 6, then the asymptotic series (error below 1e-15 there).
template <class T>
__device__ inline T digamma_of(T x) {
    T r = T(0);
    for (; x < T(6); x += T(1)) r -= T(1) / x;
    const T f = T(1) / (x * x);
    return r + log_of(x) - T(0.5) / x -
           f * (T(1.0 / 12) - f * (T(1.0 / 120) - f * (T(1.0 / 252) - f * (T(1.0 / 240) - f * T(1.0 / 132)))));
}

// d/dn of xlogy(n, lam) - lgamma(n + 1) (0 log 0 is a constant).
template <class T>
__device__ inline T d_count(T n, T lam) {
    return (n == T(0) && lam == T(0) ? T(0) : log_of(lam)) - digamma_of(n + T(1));
}

// One thread per (point, main bin or constraint), as terms_kernel: a bin writes d/d its count and the terms of its
// elements (their nominals, deltas and factors: each packed entry belongs to one element, so no two threads write
// one output); a constraint those of its sigma or tau and its aux datum. Partials as the cpu plugin's
// (plugins/cpu/likelihood_input_grad.cpp).
// With cot_main non-null it is expected_data_vjp's: the cotangent in place of the Poisson weight, the expected aux
// data's terms (par, tau par) in place of the constraints', and every parameter's slot of `contrib` filled (for
// grad_kernel's sums), as terms_kernel fills it.
template <class T>
__global__ void input_grad_kernel(const LikelihoodView v, const T* pars, std::int64_t K, const T* data,
                                  std::int64_t data_stride, const InputGradOutputs o, const T* cot_main,
                                  const T* cot_aux, T* contrib) {
    const Tables<T> t(v);
    const std::int64_t N = v.n_main, G = v.n_gauss, Q = v.n_pois, J = N + G + Q, W = N + v.n_aux;
    const std::int64_t E = o.n_elem, F = o.n_factors, D = o.n_deltas;
    T* g_data = static_cast<T*>(o.data);
    HF_GRID_STRIDE(idx, K * J) {
        const std::int64_t k = idx / J, j = idx % J;
        const T* p = pars + k * v.n_pars;
        const bool vjp = cot_main != nullptr;
        T* c = vjp ? contrib + k * v.n_slots : nullptr;
        if (j < N) {
            const std::int32_t e0 = v.bin_offsets[j], e1 = v.bin_offsets[j + 1];
            T w;
            if (vjp) {
                w = cot_main[k * N + j];
            } else {
                T rate = T(0);
                for (std::int32_t i = e0; i < e1; ++i) rate += element_value(v, t, v.bin_elems[i], p);
                const T n = data[k * data_stride + j];
                w = n == T(0) ? T(-1) : n / rate - T(1);
                g_data[k * W + j] = d_count(n, rate);
            }
            for (std::int32_t i = e0; i < e1; ++i) {
                const std::int32_t e = v.bin_elems[i];
                if (vjp) element_grad(v, t, e, p, w, c);
                T base = t.nominal[e], scratch, prod_nz = T(1);
                int zeros = 0;
                for (std::int32_t dd = v.delta_offsets[e]; dd < v.delta_offsets[e + 1]; ++dd)
                    base += hf_delta(v.delta_kind[dd], p[v.delta_par[dd]], t.d_lo[dd], t.d_nom[dd], t.d_hi[dd], &scratch);
                for (std::int32_t f = v.factor_offsets[e]; f < v.factor_offsets[e + 1]; ++f) {
                    const T val = hf_factor(v.factor_kind[f], p[v.factor_par[f]], t.f_lo[f], t.f_hi[f], t.f_coef + 6 * f,
                                            &scratch);
                    if (val == T(0)) ++zeros;
                    else prod_nz *= val;
                }
                const T gp = w * (zeros ? T(0) : prod_nz);
                static_cast<T*>(o.elem_nominal)[k * E + e] = gp;
                for (std::int32_t dd = v.delta_offsets[e]; dd < v.delta_offsets[e + 1]; ++dd) {
                    T wt[4];
                    hf_delta_weights(v.delta_kind[dd], p[v.delta_par[dd]], wt);
                    const T d_up = T(0.5) * (wt[0] + wt[1]), d_dn = T(0.5) * (wt[0] - wt[1]);
                    static_cast<T*>(o.delta_hi)[k * D + dd] = gp * d_up;
                    static_cast<T*>(o.delta_lo)[k * D + dd] = -gp * d_dn;
                    static_cast<T*>(o.delta_nom)[k * D + dd] = gp * (d_dn - d_up);
                }
                for (std::int32_t f = v.factor_offsets[e]; f < v.factor_offsets[e + 1]; ++f) {
                    const std::int32_t kind = v.factor_kind[f];
                    const T a = p[v.factor_par[f]];
                    const T val = hf_factor(kind, a, t.f_lo[f], t.f_hi[f], t.f_coef + 6 * f, &scratch);
                    const T others = zeros == 0 ? prod_nz / val : (zeros == 1 && val == T(0) ? prod_nz : T(0));
                    const T gf = w * base * others;
                    T dlo = T(0), dhi = T(0);
                    bool poly = false;
                    if (kind != 0) {  // normsys: code1 (1) or code4 (4), FactorKind
                        if (kind == 1 ? a >= T(0) : a >= T(1)) dhi = a * val / t.f_hi[f];
                        else if (kind == 1 || a <= T(-1)) dlo = -a * val / t.f_lo[f];
                        else poly = true;
                    }
                    static_cast<T*>(o.factor_lo)[k * F + f] = gf * dlo;
                    static_cast<T*>(o.factor_hi)[k * F + f] = gf * dhi;
                    T ai = a;
                    for (int c = 0; c < 6; ++c, ai *= a)
                        static_cast<T*>(o.factor_coef)[(k * F + f) * 6 + c] = poly ? gf * ai : T(0);
                }
            }
        } else if (j < N + G) {
            const std::int64_t g = j - N;
            if (vjp) {
                static_cast<T*>(o.gauss_sigma)[k * G + g] = T(0);
                c[v.gauss_slot[g]] = cot_aux[k * v.n_aux + v.gauss_aux[g]];
            } else {
                const T* d = data + k * data_stride;
                const T sigma = t.g_sigma[g], r = (d[N + v.gauss_aux[g]] - p[v.gauss_par[g]]) / sigma;
                static_cast<T*>(o.gauss_sigma)[k * G + g] = (r * r - T(1)) / sigma;
                g_data[k * W + N + v.gauss_aux[g]] = -r / sigma;
            }
        } else {
            const std::int64_t q = j - N - G;
            const T par = p[v.pois_par[q]], tau = t.q_tau[q];
            if (vjp) {
                const T ca = cot_aux[k * v.n_aux + v.pois_aux[q]];
                static_cast<T*>(o.pois_tau)[k * Q + q] = ca * par;
                c[v.pois_slot[q]] = ca * tau;
            } else {
                const T aux = data[k * data_stride + N + v.pois_aux[q]];
                static_cast<T*>(o.pois_tau)[k * Q + q] = aux > T(0) ? aux / tau - par : -par;
                g_data[k * W + N + v.pois_aux[q]] = d_count(aux, tau * par);
            }
        }
    }
}

template <class T>
__global__ void expected_main_kernel(const LikelihoodView v, const T* pars, std::int64_t K, T* out) {
    const Tables<T> t(v);
    HF_GRID_STRIDE(idx, K * v.n_main) {
        const std::int64_t k = idx / v.n_main, b = idx % v.n_main;
        const T* p = pars + k * v.n_pars;
        T rate = T(0);
        for (std::int32_t i = v.bin_offsets[b]; i < v.bin_offsets[b + 1]; ++i)
            rate += element_value(v, t, v.bin_elems[i], p);
        out[idx] = rate;
    }
}

template <class T>
__global__ void expected_aux_kernel(const LikelihoodView v, const T* pars, std::int64_t K, T* out) {
    const Tables<T> t(v);
    HF_GRID_STRIDE(idx, K * v.n_aux) {
        const std::int64_t k = idx / v.n_aux, a = idx % v.n_aux;
        const std::int32_t par = v.aux_par[a];
        out[idx] = par < 0 ? T(0) : t.aux_scale[a] * pars[k * v.n_pars + par];
    }
}

}  // namespace

void launch_likelihood_terms(cudaStream_t s, int dt, const LikelihoodView& v, const void* pars, std::int64_t K,
                             const void* data, std::int64_t data_stride, void* terms, void* contrib) {
    const std::int64_t n = K * (v.n_main + v.n_gauss + v.n_pois);
    if (n == 0) return;
    if (dt == kF32)
        terms_kernel<float><<<grid_for(n, 128), 128, 0, s>>>(v, static_cast<const float*>(pars), K,
                                                             static_cast<const float*>(data), data_stride,
                                                             static_cast<float*>(terms), static_cast<float*>(contrib));
    else
        terms_kernel<double><<<grid_for(n, 128), 128, 0, s>>>(v, static_cast<const double*>(pars), K,
                                                              static_cast<const double*>(data), data_stride,
                                                              static_cast<double*>(terms),
                                                              static_cast<double*>(contrib));
}

void launch_likelihood_grad(cudaStream_t s, int dt, const LikelihoodView& v, std::int64_t K, const void* contrib,
                            void* grad) {
    const std::int64_t threads = K * v.n_pars * 32;
    if (threads == 0) return;
    if (dt == kF32)
        grad_kernel<float><<<grid_for(threads), kThreads, 0, s>>>(v, K, static_cast<const float*>(contrib),
                                                                  static_cast<float*>(grad));
    else
        grad_kernel<double><<<grid_for(threads), kThreads, 0, s>>>(v, K, static_cast<const double*>(contrib),
                                                                   static_cast<double*>(grad));
}

void launch_likelihood_input_grad(cudaStream_t s, int dt, const LikelihoodView& v, const void* pars, std::int64_t K,
                                  const void* data, std::int64_t data_stride, const InputGradOutputs& out,
                                  const void* cot_main, const void* cot_aux, void* contrib) {
    const std::int64_t n = K * (v.n_main + v.n_gauss + v.n_pois);
    if (n == 0) return;
    if (dt == kF32)
        input_grad_kernel<float><<<grid_for(n, 128), 128, 0, s>>>(
            v, static_cast<const float*>(pars), K, static_cast<const float*>(data), data_stride, out,
            static_cast<const float*>(cot_main), static_cast<const float*>(cot_aux), static_cast<float*>(contrib));
    else
        input_grad_kernel<double><<<grid_for(n, 128), 128, 0, s>>>(
            v, static_cast<const double*>(pars), K, static_cast<const double*>(data), data_stride, out,
            static_cast<const double*>(cot_main), static_cast<const double*>(cot_aux), static_cast<double*>(contrib));
}

void launch_expected_main(cudaStream_t s, int dt, const LikelihoodView& v, const void* pars, std::int64_t K,
                          void* out) {
    const std::int64_t n = K * v.n_main;
    if (n == 0) return;
    if (dt == kF32)
        expected_main_kernel<float><<<grid_for(n, 128), 128, 0, s>>>(v, static_cast<const float*>(pars), K,
                                                                     static_cast<float*>(out));
    else
        expected_main_kernel<double><<<grid_for(n, 128), 128, 0, s>>>(v, static_cast<const double*>(pars), K,
                                                                      static_cast<double*>(out));
}

void launch_expected_aux(cudaStream_t s, int dt, const LikelihoodView& v, const void* pars, std::int64_t K,
                         void* out) {
    const std::int64_t n = K * v.n_aux;
    if (n == 0) return;
    if (dt == kF32)
        expected_aux_kernel<float><<<grid_for(n), kThreads, 0, s>>>(v, static_cast<const float*>(pars), K,
                                                                    static_cast<float*>(out));
    else
        expected_aux_kernel<double><<<grid_for(n), kThreads, 0, s>>>(v, static_cast<const double*>(pars), K,
                                                                     static_cast<double*>(out));
}

}  // namespace hf::cuda
