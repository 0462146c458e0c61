// Tier 2 of the cpu plugin: the packed HistFactory likelihood evaluated with plain loops over its CSR arrays.
//
// Per point: each distinct multiplicative term (parameter, kind, lo, hi, coefficients) is evaluated once and
// shared by every element that uses it; elements then cost a few multiplies. The Poisson terms use the
// cancellation-free arrangement of hf_likelihood_math.h (hf_poisson_logpdf, hf_poisson_constraint_logpdf); their
// data-only parts (hf_poisson_const, and aux log(tau/aux) + aux - tau of the constraints) are computed in double
// once per data tensor and cached, so a call evaluates only what depends on the parameters. Sums accumulate in
// double with Neumaier compensation, which keeps 32b NLL differences meaningful for fits.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "cpu_backend.hpp"
#include "cpu_special.hpp"

namespace hf::cpu {

// The shared interpolation formulas, once per precision.
namespace lm64 {
using hf_real = double;
static inline double exp(double x) { return std::exp(x); }
static inline double log(double x) { return std::log(x); }
static inline double lgamma(double x) { return special::lgamma(x); }
#define HF_FN [[maybe_unused]] static inline
#define HF_GLOBAL
#include "hf_likelihood_math.h"
#undef HF_GLOBAL
#undef HF_FN
}  // namespace lm64

namespace lm32 {
using hf_real = float;
static inline float exp(float x) { return std::exp(x); }
static inline float log(float x) { return std::log(x); }
static inline float lgamma(float x) { return static_cast<float>(special::lgamma(x)); }
#define HF_FN [[maybe_unused]] static inline
#define HF_GLOBAL
#include "hf_likelihood_math.h"
#undef HF_GLOBAL
#undef HF_FN
}  // namespace lm32

namespace {

using i64 = std::int64_t;
using i32 = std::int32_t;

template <class R>
struct Math;
template <>
struct Math<double> {
    static double factor(int k, double a, double lo, double hi, const double* c, double* df) {
        return lm64::hf_factor(k, a, lo, hi, c, df);
    }
    static double delta(int k, double a, double lo, double nom, double hi, double* dd) {
        return lm64::hf_delta(k, a, lo, nom, hi, dd);
    }
    static double xlogy(double x, double y) { return lm64::hf_xlogy(x, y); }
};
template <>
struct Math<float> {
    static float factor(int k, float a, float lo, float hi, const float* c, float* df) {
        return lm32::hf_factor(k, a, lo, hi, c, df);
    }
    static float delta(int k, float a, float lo, float nom, float hi, float* dd) {
        return lm32::hf_delta(k, a, lo, nom, hi, dd);
    }
    static float xlogy(float x, float y) { return lm32::hf_xlogy(x, y); }
};
// Data-only constants are computed in double whatever the backend precision.
inline double poisson_const(double n) { return lm64::hf_poisson_const(n); }

struct Neumaier {
    double s = 0, c = 0;
    void add(double v) {
        double t = s + v;
        c += std::fabs(s) >= std::fabs(v) ? (s - t) + v : (v - t) + s;
        s = t;
    }
    double value() const { return s + c; }
};

// A distinct multiplicative term: evaluated once per point, shared by the elements that use it.
template <class R>
struct Term {
    i32 par = 0;
    i32 kind = 0;
    R lo = 1, hi = 1;
    R coef[6] = {0, 0, 0, 0, 0, 0};
};

// Per-thread working memory: grows to the largest model seen, never shrinks, so calls do not allocate.
template <class R>
struct Scratch {
    std::vector<R> tv, dtv, base, prodf, rate, dd, pre;
    std::vector<double> w, gterm, gacc;
    void fit(std::size_t T, std::size_t E, std::size_t N, std::size_t D, std::size_t maxf, std::size_t P) {
        auto grow = [](auto& v, std::size_t n) {
            if (v.size() < n) v.resize(n);
        };
        grow(tv, T), grow(dtv, T), grow(gterm, T);
        grow(base, E), grow(prodf, E);
        grow(rate, N), grow(w, N);
        grow(dd, D), grow(pre, maxf + 1), grow(gacc, P);
    }
};

template <class R>
Scratch<R>& scratch() {
    static thread_local Scratch<R> s;
    return s;
}

[[noreturn]] void bad(const std::string& what) { throw ShapeError("cpu fused likelihood: " + what); }

template <class R>
class CpuFused final : public FusedLikelihood {
public:
    CpuFused(CpuBackend& be, const PackedLikelihood& pk) : be_(be) {
        P_ = pk.n_pars, N_ = pk.n_main, A_ = pk.n_aux, E_ = pk.n_elements();
        validate(pk);
        elem_bin_ = pk.elem_bin;
        elem_nom_.assign(pk.elem_nominal.begin(), pk.elem_nominal.end());
        f_off_ = pk.factor_offsets;
        d_off_ = pk.delta_offsets;
        // Deduplicate factors into terms.
        std::map<std::tuple<i32, i32, double, double, std::vector<double>>, i32> seen;
        const std::size_t F = pk.factor_par.size();
        f_term_.resize(F);
        for (std::size_t f = 0; f < F; ++f) {
            const i32 kind = pk.factor_kind[f];
            std::vector<double> c(6, 0.0);
            double lo = 1, hi = 1;
            if (kind != kFactorLinear) {
                lo = pk.factor_lo[f], hi = pk.factor_hi[f];
                if (kind == kFactorNormsysCode4) std::copy_n(pk.factor_coef.begin() + 6 * f, 6, c.begin());
            }
            auto key = std::make_tuple(pk.factor_par[f], kind, lo, hi, c);
            auto it = seen.find(key);
            if (it == seen.end()) {
                Term<R> t;
                t.par = pk.factor_par[f], t.kind = kind, t.lo = static_cast<R>(lo), t.hi = static_cast<R>(hi);
                for (int i = 0; i < 6; ++i) t.coef[i] = static_cast<R>(c[i]);
                it = seen.emplace(key, static_cast<i32>(terms_.size())).first;
                terms_.push_back(t);
            }
            f_term_[f] = it->second;
        }
        for (i64 e = 0; e < E_; ++e) max_f_ = std::max<i64>(max_f_, f_off_[e + 1] - f_off_[e]);
        d_par_ = pk.delta_par;
        d_kind_ = pk.delta_kind;
        d_lo_.assign(pk.delta_lo.begin(), pk.delta_lo.end());
        d_nom_.assign(pk.delta_nom.begin(), pk.delta_nom.end());
        d_hi_.assign(pk.delta_hi.begin(), pk.delta_hi.end());
        g_par_ = pk.gauss_par, g_aux_ = pk.gauss_aux;
        for (double s : pk.gauss_sigma) {
            g_inv_var_.push_back(1.0 / (s * s));
            gauss_const_ += -std::log(s) - 0.91893853320467274178;
        }
        q_par_ = pk.pois_par, q_aux_ = pk.pois_aux;
        q_tau_.assign(pk.pois_tau.begin(), pk.pois_tau.end());
        implementation_ = std::string("cpu fused (") + (sizeof(R) == 4 ? "32b" : "64b") + ")";
    }

    const char* implementation() const override { return implementation_.c_str(); }

    Tensor logpdf(const Tensor& pars, const Tensor& data, Tensor* grad) override {
        const i64 K = check_pars(pars, "logpdf");
        be_.check_owner(data, "logpdf");
        const i64 width = N_ + A_;
        bool per_point;
        if (data.size() == width && (data.ndim() <= 1 || (data.ndim() == 2 && data.dim(0) == 1))) per_point = false;
        else if (data.ndim() == 2 && data.dim(0) == K && data.dim(1) == width) per_point = true;
        else bad("data has shape " + shape_str(data.shape()) + "; expected [" + std::to_string(width) + "] or [" +
                 std::to_string(K) + ", " + std::to_string(width) + "] (main bins + auxdata)");

        std::vector<R> pbuf, dbuf;
        const R* pp = as_real(pars, pbuf);
        const R* dp = as_real(data, dbuf);
        const std::shared_ptr<const std::vector<double>> consts = data_constants(data, dp, per_point ? K : 1);

        Tensor out = be_.empty(float_dtype_of(), Shape{K});
        R* po = data_of<R>(out);
        R* pg = nullptr;
        if (grad) {
            *grad = be_.empty(float_dtype_of(), Shape{K, P_});
            pg = data_of<R>(*grad);
        }
        parallel_for(K, [&](i64 k0, i64 k1) {
            Scratch<R>& s = scratch<R>();
            s.fit(terms_.size(), E_, N_, d_par_.size(), max_f_, P_);
            for (i64 k = k0; k < k1; ++k) {
                const R* d = dp + (per_point ? k * width : 0);
                const double c = (*consts)[per_point ? k : 0];
                po[k] = eval(pp + k * P_, d, c, pg ? pg + k * P_ : nullptr, s);
            }
        });
        return out;
    }

    Tensor expected_main(const Tensor& pars) override {
        const i64 K = check_pars(pars, "expected_main");
        std::vector<R> pbuf;
        const R* pp = as_real(pars, pbuf);
        Tensor out = be_.empty(float_dtype_of(), Shape{K, N_});
        R* po = data_of<R>(out);
        parallel_for(K, [&](i64 k0, i64 k1) {
            Scratch<R>& s = scratch<R>();
            s.fit(terms_.size(), E_, N_, d_par_.size(), max_f_, P_);
            for (i64 k = k0; k < k1; ++k) {
                rates<false>(pp + k * P_, s);
                std::copy_n(s.rate.data(), N_, po + k * N_);
            }
        });
        return out;
    }

    Tensor expected_aux(const Tensor& pars) override {
        const i64 K = check_pars(pars, "expected_aux");
        std::vector<R> pbuf;
        const R* pp = as_real(pars, pbuf);
        Tensor out = be_.empty(float_dtype_of(), Shape{K, A_});
        R* po = data_of<R>(out);
        std::fill(po, po + K * A_, R(0));
        for (i64 k = 0; k < K; ++k) {
            const R* p = pp + k * P_;
            R* o = po + k * A_;
            for (std::size_t g = 0; g < g_par_.size(); ++g) o[g_aux_[g]] = p[g_par_[g]];
            for (std::size_t q = 0; q < q_par_.size(); ++q) o[q_aux_[q]] = static_cast<R>(q_tau_[q] * p[q_par_[q]]);
        }
        return out;
    }

private:
    static DType float_dtype_of() { return sizeof(R) == 4 ? DType::f32 : DType::f64; }

    void validate(const PackedLikelihood& pk) const {
        auto sz = [](const auto& v) { return static_cast<i64>(v.size()); };
        if (P_ < 0 || N_ < 0 || A_ < 0) bad("negative sizes");
        if (sz(pk.elem_nominal) != E_) bad("elem_nominal and elem_bin differ in length");
        if (sz(pk.factor_offsets) != E_ + 1 || sz(pk.delta_offsets) != E_ + 1) bad("CSR offsets need E+1 entries");
        const i64 F = sz(pk.factor_par), D = sz(pk.delta_par);
        if (sz(pk.factor_kind) != F || sz(pk.factor_lo) != F || sz(pk.factor_hi) != F || sz(pk.factor_coef) != 6 * F)
            bad("factor arrays differ in length");
        if (sz(pk.delta_kind) != D || sz(pk.delta_lo) != D || sz(pk.delta_nom) != D || sz(pk.delta_hi) != D)
            bad("delta arrays differ in length");
        if (pk.factor_offsets[0] != 0 || pk.factor_offsets[E_] != F || pk.delta_offsets[0] != 0 ||
            pk.delta_offsets[E_] != D)
            bad("CSR offsets do not span the factor/delta arrays");
        for (i64 e = 0; e < E_; ++e) {
            if (pk.factor_offsets[e + 1] < pk.factor_offsets[e] || pk.delta_offsets[e + 1] < pk.delta_offsets[e])
                bad("CSR offsets decrease at element " + std::to_string(e));
            if (pk.elem_bin[e] < 0 || pk.elem_bin[e] >= N_) bad("element " + std::to_string(e) + " bin out of range");
        }
        auto check_par = [&](const std::vector<i32>& v, const char* what) {
            for (i32 p : v)
                if (p < 0 || p >= P_) bad(std::string(what) + " parameter index " + std::to_string(p) + " out of range");
        };
        check_par(pk.factor_par, "factor");
        check_par(pk.delta_par, "delta");
        check_par(pk.gauss_par, "gauss");
        check_par(pk.pois_par, "poisson");
        for (i32 k : pk.factor_kind)
            if (k != kFactorLinear && k != kFactorNormsysCode1 && k != kFactorNormsysCode4)
                bad("unknown factor kind " + std::to_string(k));
        for (i32 k : pk.delta_kind)
            if (k != kDeltaCode0 && k != kDeltaCode2 && k != kDeltaCode4p) bad("unknown delta kind " + std::to_string(k));
        if (sz(pk.gauss_aux) != sz(pk.gauss_par) || sz(pk.gauss_sigma) != sz(pk.gauss_par))
            bad("gauss arrays differ in length");
        if (sz(pk.pois_aux) != sz(pk.pois_par) || sz(pk.pois_tau) != sz(pk.pois_par)) bad("poisson arrays differ in length");
        for (const auto* v : {&pk.gauss_aux, &pk.pois_aux})
            for (i32 a : *v)
                if (a < 0 || a >= A_) bad("aux index " + std::to_string(a) + " out of range");
    }

    i64 check_pars(const Tensor& pars, const char* op) const {
        be_.check_owner(pars, op);
        if (pars.ndim() == 1 && pars.dim(0) == P_) return 1;
        if (pars.ndim() == 2 && pars.dim(1) == P_) return pars.dim(0);
        bad(std::string(op) + ": pars has shape " + shape_str(pars.shape()) + "; expected [K, " + std::to_string(P_) + "]");
    }

    // The tensor's values as R: its own memory when the dtype matches (the usual case), else a converted copy.
    static const R* as_real(const Tensor& t, std::vector<R>& buf) {
        if (t.dtype() == float_dtype_of()) return data_of<R>(t);
        buf.resize(static_cast<std::size_t>(t.size()));
        dispatch(t.dtype(), [&](auto tt) {
            using T = typename decltype(tt)::type;
            const T* p = data_of<T>(t);
            for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = convert<R>(p[i]);
        });
        return buf.data();
    }

    // The data-only part of logpdf: hf_poisson_const over the main bins; aux log(tau/aux) + (aux - tau) +
    // hf_poisson_const(aux) over Poisson constraints; the Gaussian normalisations. Cached for the last data tensor
    // (tensors are immutable; holding the tensor keeps its storage, hence the key, alive).
    std::shared_ptr<const std::vector<double>> data_constants(const Tensor& data, const R* dp, i64 rows) {
        std::lock_guard<std::mutex> lock(cache_mutex_);
        if (cached_data_.defined() && cached_data_.storage() == data.storage() && cached_rows_ == rows &&
            cached_data_.dtype() == data.dtype())
            return cached_consts_;
        auto c = std::make_shared<std::vector<double>>(static_cast<std::size_t>(rows), gauss_const_);
        for (i64 r = 0; r < rows; ++r) {
            const R* d = dp + r * (N_ + A_);
            Neumaier acc;
            for (i64 b = 0; b < N_; ++b) acc.add(poisson_const(static_cast<double>(d[b])));
            for (std::size_t q = 0; q < q_aux_.size(); ++q) {
                const double a = static_cast<double>(d[N_ + q_aux_[q]]), tau = q_tau_[q];
                if (a > 0) acc.add(a * std::log(tau / a) + (a - tau) + poisson_const(a));
            }
            (*c)[r] += acc.value();
        }
        cached_data_ = data;
        cached_rows_ = rows;
        cached_consts_ = c;
        return c;
    }

    // Fills s.rate (and s.base, s.prodf, s.tv, s.dtv, s.dd for the gradient).
    template <bool with_derivs>
    void rates(const R* par, Scratch<R>& s) const {
        const std::size_t T = terms_.size();
        for (std::size_t u = 0; u < T; ++u) {
            const Term<R>& t = terms_[u];
            if (t.kind == kFactorLinear) {
                s.tv[u] = par[t.par];
                s.dtv[u] = R(1);
            } else {
                s.tv[u] = Math<R>::factor(t.kind, par[t.par], t.lo, t.hi, t.coef, &s.dtv[u]);
            }
        }
        std::fill_n(s.rate.data(), N_, R(0));
        const R* tv = s.tv.data();
        for (i64 e = 0; e < E_; ++e) {
            R b = elem_nom_[e];
            for (i32 d = d_off_[e], d1 = d_off_[e + 1]; d < d1; ++d) {
                R dd;
                b += Math<R>::delta(d_kind_[d], par[d_par_[d]], d_lo_[d], d_nom_[d], d_hi_[d], &dd);
                if constexpr (with_derivs) s.dd[d] = dd;
            }
            R pf = R(1);
            for (i32 f = f_off_[e], f1 = f_off_[e + 1]; f < f1; ++f) pf *= tv[f_term_[f]];
            if constexpr (with_derivs) {
                s.base[e] = b;
                s.prodf[e] = pf;
            }
            s.rate[elem_bin_[e]] += b * pf;
        }
    }

    R eval(const R* par, const R* data, double constant, R* grad, Scratch<R>& s) const {
        const bool g = grad != nullptr;
        if (g) rates<true>(par, s);
        else rates<false>(par, s);
        Neumaier acc;
        // Rates are computed in the backend precision; the per-bin terms take them (and the data) to double:
        // on a CPU that costs nothing and keeps a 32b NLL from losing digits in n log(lam / n) at large n.
        for (i64 b = 0; b < N_; ++b) {
            const double n = static_cast<double>(data[b]), lam = static_cast<double>(s.rate[b]);
            // hf_poisson_logpdf less hf_poisson_const(n), which lives in `constant`
            acc.add(n > 0 ? Math<double>::xlogy(n, lam / n) + (n - lam) : -lam);
            if (g) s.w[b] = n > 0 ? n / lam - 1.0 : -1.0;
        }
        const R* aux = data + N_;
        for (std::size_t i = 0; i < g_par_.size(); ++i) {
            const R z = aux[g_aux_[i]] - par[g_par_[i]];
            acc.add(-0.5 * static_cast<double>(z) * static_cast<double>(z) * g_inv_var_[i]);
        }
        for (std::size_t i = 0; i < q_par_.size(); ++i) {
            // hf_poisson_constraint_logpdf less its data-only part: aux log(par) - (par - 1) tau (tau reaches
            // 1e11 for tiny shapesys uncertainties, hence double here too)
            const double a = aux[q_aux_[i]], p = par[q_par_[i]], tau = q_tau_[i];
            acc.add(a > 0 ? Math<double>::xlogy(a, p) - (p - 1.0) * tau : -p * tau);
        }
        const double value = acc.value() + constant;
        if (g) gradient(par, data, s, grad);
        return static_cast<R>(value);
    }

    void gradient(const R* par, const R* data, Scratch<R>& s, R* grad) const {
        double* gacc = s.gacc.data();
        double* gterm = s.gterm.data();
        std::fill_n(gacc, P_, 0.0);
        std::fill_n(gterm, terms_.size(), 0.0);
        const R* tv = s.tv.data();
        R* pre = s.pre.data();
        for (i64 e = 0; e < E_; ++e) {
            const double wb = s.w[elem_bin_[e]];
            const i32 f0 = f_off_[e], f1 = f_off_[e + 1];
            // d rate / d factor_i = base * (product of the other factors): prefix and suffix products, so a
            // factor at 0 (a normfactor at 0) still gets its derivative.
            const double wbase = wb * static_cast<double>(s.base[e]);
            const i32 nf = f1 - f0;
            if (nf == 1) {
                gterm[f_term_[f0]] += wbase;
            } else if (nf > 1) {
                pre[0] = R(1);
                for (i32 i = 0; i < nf; ++i) pre[i + 1] = pre[i] * tv[f_term_[f0 + i]];
                R suf = R(1);
                for (i32 i = nf - 1; i >= 0; --i) {
                    gterm[f_term_[f0 + i]] += wbase * static_cast<double>(pre[i] * suf);
                    suf *= tv[f_term_[f0 + i]];
                }
            }
            const double wpf = wb * static_cast<double>(s.prodf[e]);
            for (i32 d = d_off_[e], d1 = d_off_[e + 1]; d < d1; ++d) gacc[d_par_[d]] += wpf * static_cast<double>(s.dd[d]);
        }
        for (std::size_t u = 0; u < terms_.size(); ++u) gacc[terms_[u].par] += gterm[u] * static_cast<double>(s.dtv[u]);
        const R* aux = data + N_;
        for (std::size_t i = 0; i < g_par_.size(); ++i)
            gacc[g_par_[i]] += (static_cast<double>(aux[g_aux_[i]]) - par[g_par_[i]]) * g_inv_var_[i];
        for (std::size_t i = 0; i < q_par_.size(); ++i) {
            const double a = aux[q_aux_[i]], tau = q_tau_[i], p = par[q_par_[i]];
            gacc[q_par_[i]] += a > 0 ? a / p - tau : -tau;
        }
        for (i64 p = 0; p < P_; ++p) grad[p] = static_cast<R>(gacc[p]);
    }

    // Splits K points over std::thread workers when the batch is worth more than the cost of starting them.
    template <class F>
    void parallel_for(i64 K, F&& body) const {
        const i64 work = K * (E_ + N_ + 16);
        const i64 workers = std::min<i64>(static_cast<i64>(cpu_threads()), K);
        if (workers <= 1 || work < (i64{1} << 16)) {
            body(i64{0}, K);
            return;
        }
        std::vector<std::thread> threads;
        threads.reserve(static_cast<std::size_t>(workers - 1));
        const i64 chunk = (K + workers - 1) / workers;
        for (i64 w = 1; w < workers; ++w) {
            const i64 k0 = w * chunk, k1 = std::min(K, k0 + chunk);
            if (k0 >= k1) break;
            threads.emplace_back([&body, k0, k1] { body(k0, k1); });
        }
        body(i64{0}, std::min(K, chunk));
        for (auto& t : threads) t.join();
    }

    CpuBackend& be_;
    i64 P_ = 0, N_ = 0, A_ = 0, E_ = 0, max_f_ = 0;
    std::vector<i32> elem_bin_, f_off_, d_off_, f_term_, d_par_, d_kind_;
    std::vector<R> elem_nom_, d_lo_, d_nom_, d_hi_;
    std::vector<Term<R>> terms_;
    std::vector<i32> g_par_, g_aux_, q_par_, q_aux_;
    std::vector<double> g_inv_var_, q_tau_;  // constraints are evaluated in double (see eval)
    double gauss_const_ = 0;
    std::string implementation_;

    std::mutex cache_mutex_;
    Tensor cached_data_;
    i64 cached_rows_ = 0;
    std::shared_ptr<const std::vector<double>> cached_consts_;
};

}  // namespace

std::unique_ptr<FusedLikelihood> CpuBackend::compile_likelihood(const PackedLikelihood& packed) {
    if (precision() == Precision::f32) return std::make_unique<CpuFused<float>>(*this, packed);
    return std::make_unique<CpuFused<double>>(*this, packed);
}

}  // namespace hf::cpu
