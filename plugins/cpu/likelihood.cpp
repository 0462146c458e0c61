// Tier 2 of the cpu plugin: the packed HistFactory likelihood evaluated with plain loops over its CSR arrays.
//
// Per point, the work that depends on a parameter alone is done once per parameter: each distinct multiplicative
// term (parameter, kind, lo, hi) is evaluated once (logs of lo/hi precomputed) and shared by the elements that use
// it, and each histosys parameter gets two interpolation weights (hf_delta_weights), so that a histosys bin costs
// two multiply-adds against per-bin constants. The Poisson terms use the cancellation-free arrangement of
// hf_likelihood_math.h; their data-only parts (hf_poisson_const, and aux log(tau/aux) + aux - tau of the
// constraints) are computed in double once, when the data are bound (CpuBound), so a call evaluates only what
// depends on the parameters. Sums accumulate in double with Neumaier compensation, which keeps 32b NLL differences
// meaningful for fits.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include "backend.hpp"
#include "hfcore/threads.hpp"
#include "likelihood_input_grad.hpp"
#include "math.hpp"
#include "neumaier.hpp"
#include "simd.hpp"

namespace hf::cpu {

namespace {

using i64 = std::int64_t;
using i32 = std::int32_t;

// Data-only constants are computed in double whatever the backend precision.
inline double poisson_const(double n) { return lm64::hf_poisson_const(n); }

// A distinct exponential-type multiplicative term (normsys), evaluated once per point and shared by the elements
// that use it; the compiled model keeps its parts in arrays (t_par_, t_log_hi_, ...). Linear factors need no
// term: their value is the parameter itself.
struct TermKey {
    i32 par = 0;
    i32 kind = 0;
    double lo = 1, hi = 1;
    const double* coef = nullptr;  // code4: 6 coefficients in the PackedLikelihood
};

// A histosys parameter with its interpolation code: two weights per point shared by all its bins.
struct Slot {
    i32 par = 0;
    i32 kind = 0;
};

// Consecutive rows [row0, row0 + rows) of the dense histosys matrix whose weights all lie in the columns
// [col0, col0 + width), whole vectors (multiples of simd::kPad). A vector's lanes see the same columns as in
// a product over the whole row, so leaving out the zeros outside changes no rounding.
struct DenseBlock {
    std::size_t row0, rows, col0, width;
};

// The product of tv[src[f]] over f in [f0, f1), in two interleaved products: half the multiply latency chain.
template <class R>
inline R product_of(const R* tv, const std::int32_t* src, std::int32_t f0, std::int32_t f1) {
    R p0 = R(1), p1 = R(1);
    std::int32_t f = f0;
    for (; f + 1 < f1; f += 2) {
        p0 *= tv[src[f]];
        p1 *= tv[src[f + 1]];
    }
    if (f < f1) p0 *= tv[src[f]];
    return p0 * p1;
}

// The derivatives of w * (that product) by each factor, w times the product of the others, passed to
// add(src[f], value). Prefix and suffix products (pre: scratch of f1 - f0 + 1), so that a factor at 0 (a
// normfactor at 0) still gets its derivative.
template <class R, class Add>
inline void distribute(const R* tv, const std::int32_t* src, std::int32_t f0, std::int32_t f1, double w, R* pre,
                       Add&& add) {
    const std::int32_t nf = f1 - f0;
    // One to three factors (most elements: a sample's shared normsys product, a gamma, a normfactor), written
    // out: the same products as the loops below give (a product with the prefix's or suffix's 1 is exact), without
    // their scratch traffic.
    const std::int32_t* s = src + f0;
    switch (nf) {
        case 0: return;
        case 1: add(s[0], w); return;  // w times the empty prefix and suffix products
        case 2:
            add(s[1], w * static_cast<double>(tv[s[0]]));
            add(s[0], w * static_cast<double>(tv[s[1]]));
            return;
        case 3: {
            const R t0 = tv[s[0]], t1 = tv[s[1]], t2 = tv[s[2]];
            add(s[2], w * static_cast<double>(t0 * t1));
            add(s[1], w * static_cast<double>(t0 * t2));
            add(s[0], w * static_cast<double>(t2 * t1));
            return;
        }
        default: break;
    }
    pre[0] = R(1);
    for (std::int32_t i = 0; i < nf; ++i) pre[i + 1] = pre[i] * tv[src[f0 + i]];
    R suf = R(1);
    for (std::int32_t i = nf - 1; i >= 0; --i) {
        add(src[f0 + i], w * static_cast<double>(pre[i] * suf));
        suf *= tv[src[f0 + i]];
    }
}

// Evaluations in progress in this process, on any thread (CpuFused::parallel_for).
inline std::atomic<int>& running_evaluations() {
    static std::atomic<int> n{0};
    return n;
}

// Per-thread working memory: grows to the largest model seen, never shrinks, so calls do not allocate.
// tv holds every factor value a CSR entry can point at: the P parameters, then the normsys terms.
template <class R>
struct Scratch {
    std::vector<R> tv, dtv, w, dw, base, prodf, rate, pre;
    std::vector<double> wbin, wpf, gterm, gslot, gacc;
    // W: the histosys weight count, padded for the dense path (see simd.hpp).
    void fit(std::size_t P, std::size_t T, std::size_t W, std::size_t E, std::size_t N, std::size_t maxf) {
        auto grow = [](auto& v, std::size_t n) {
            if (v.size() < n) v.resize(n);
        };
        grow(tv, P + T), grow(dtv, T), grow(gterm, T);
        grow(w, W), grow(dw, W), grow(gslot, W);
        grow(base, E), grow(prodf, E), grow(wpf, E);
        grow(rate, N), grow(wbin, N);
        grow(pre, maxf + 1), grow(gacc, P);
    }
};

// One per point of a group evaluated together (CpuFused::eval_points).
template <class R>
Scratch<R>& scratch(int point) {
    static thread_local std::array<Scratch<R>, simd::kMaxPoints> s;
    return s[static_cast<std::size_t>(point)];
}

[[noreturn]] void bad(const std::string& what) { throw ShapeError("cpu fused likelihood: " + what); }

// Data bound to one CpuFused: the data-only part of logpdf of each data row, computed in bind().
struct CpuBound final : BoundData {
    CpuBound(const Tensor& data, const FusedLikelihood* owner, i64 rows) : BoundData(data), owner(owner), rows(rows) {}
    const FusedLikelihood* owner;  // constants are only valid for the likelihood that made them
    i64 rows;                      // 1: one data set for every point; else one row per point
    std::vector<double> consts;    // [rows]
};

template <class R>
class CpuFused final : public FusedLikelihood {
public:
    CpuFused(CpuBackend& be, const PackedLikelihood& pk) : be_(be), input_grad_(pk) {
        // Checked by the core (check_packed_likelihood) before it reaches a plugin.
        P_ = pk.n_pars, N_ = pk.n_main, A_ = pk.n_aux, E_ = pk.n_elements();
        elem_bin_ = pk.elem_bin;
        elem_nom_.assign(pk.elem_nominal.begin(), pk.elem_nominal.end());
        f_off_ = pk.factor_offsets;
        d_off_ = pk.delta_offsets;
        compile_factors(pk);
        share_term_products();
        for (i64 e = 0; e < E_; ++e) max_f_ = std::max<i64>(max_f_, f_off_[e + 1] - f_off_[e]);
        compile_histosys(pk);
        g_par_ = pk.gauss_par, g_aux_ = pk.gauss_aux;
        for (double s : pk.gauss_sigma) {
            g_inv_var_.push_back(1.0 / (s * s));
            gauss_const_ += -std::log(s) - 0.91893853320467274178;
        }
        q_par_ = pk.pois_par, q_aux_ = pk.pois_aux;
        q_tau_.assign(pk.pois_tau.begin(), pk.pois_tau.end());
        implementation_ = std::string("cpu fused (") + (sizeof(R) == 4 ? "32b" : "64b") +
                          (dense_c_.empty() ? "" : ", dense histosys") + ")";
    }

    const char* implementation() const override { return implementation_.c_str(); }

    using FusedLikelihood::logpdf;

    // Checks the data ([N + A], [1, N + A] or [R, N + A]) and computes their data-only constants, once.
    std::shared_ptr<const BoundData> bind(const Tensor& data) override {
        be_.check_owner(data, "logpdf");
        const i64 width = N_ + A_;
        i64 rows;
        if (data.size() == width && (data.ndim() <= 1 || (data.ndim() == 2 && data.dim(0) == 1))) rows = 1;
        else if (data.ndim() == 2 && data.dim(1) == width) rows = data.dim(0);
        else bad("data has shape " + shape_str(data.shape()) + "; expected [" + std::to_string(width) +
                 "] or [K, " + std::to_string(width) + "] (main bins + auxdata)");
        auto bound = std::make_shared<CpuBound>(data, this, rows);
        std::vector<R> dbuf;
        bound->consts = data_constants(as_real(data, dbuf), rows);
        return bound;
    }

    std::shared_ptr<const BoundData> bind_rows(const BoundData& bound_in, const std::vector<i64>& rows,
                                               const Tensor& data_rows) override {
        const auto* from = dynamic_cast<const CpuBound*>(&bound_in);
        if (!from || from->owner != this || from->rows == 1) return bind(data_rows);
        be_.check_owner(data_rows, "logpdf");
        auto bound = std::make_shared<CpuBound>(data_rows, this, static_cast<i64>(rows.size()));
        bound->consts.reserve(rows.size());
        for (i64 r : rows) bound->consts.push_back(from->consts.at(static_cast<std::size_t>(r)));
        return bound;
    }

    Tensor logpdf(const Tensor& pars, const BoundData& bound_in, Tensor* grad) override {
        const i64 K = check_pars(pars, "logpdf");
        // Data bound by another likelihood (or by the default bind) are bound again here, for this call.
        std::shared_ptr<const BoundData> rebound;
        const auto* bound = dynamic_cast<const CpuBound*>(&bound_in);
        if (!bound || bound->owner != this) {
            rebound = bind(bound_in.data());
            bound = static_cast<const CpuBound*>(rebound.get());
        }
        const Tensor& data = bound->data();
        const i64 width = N_ + A_;
        const bool per_point = bound->rows != 1;
        if (per_point && bound->rows != K)
            bad("data has shape " + shape_str(data.shape()) + "; expected [" + std::to_string(width) + "] or [" +
                std::to_string(K) + ", " + std::to_string(width) + "] (main bins + auxdata)");

        std::vector<R> pbuf, dbuf;
        const R* pp = as_real(pars, pbuf);
        const R* dp = as_real(data, dbuf);
        const std::vector<double>& consts = bound->consts;

        Tensor out = be_.empty(float_dtype_of(), Shape{K});
        R* po = data_of<R>(out);
        R* pg = nullptr;
        if (grad) {
            *grad = be_.empty(float_dtype_of(), Shape{K, P_});
            pg = data_of<R>(*grad);
        }
        // With the dense histosys matrix, points go through it kMaxPoints at a time (rows_dot_points): one point's
        // result does not depend on the others, nor on how the points are grouped.
        const int group = dense_c_.empty() ? 1 : simd::kMaxPoints;
        parallel_for(K, [&](i64 k0, i64 k1) {
            Scratch<R>* s[simd::kMaxPoints];
            for (int t = 0; t < group; ++t) s[t] = &sized_scratch(t);
            for (i64 k = k0; k < k1; k += group) {
                const int count = static_cast<int>(std::min<i64>(group, k1 - k));
                Point pts[simd::kMaxPoints] = {};
                for (int t = 0; t < count; ++t) {
                    const i64 kt = k + t;
                    pts[t] = Point{pp + kt * P_, dp + (per_point ? kt * width : 0), consts[per_point ? kt : 0],
                                   pg ? pg + kt * P_ : nullptr, s[t]};
                }
                eval_points(pts, count, po + k);
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
            Scratch<R>& s = sized_scratch(0);
            for (i64 k = k0; k < k1; ++k) {
                rates<false>(pp + k * P_, s);
                std::copy_n(s.rate.data(), N_, po + k * N_);
            }
        });
        return out;
    }

    bool native_jacobian() const override { return true; }

    // The packed arrays' reverse-mode terms (likelihood_input_grad.cpp), the points spread as logpdf's.
    bool input_gradient(const Tensor& pars, const BoundData& bound_in, PackedGradient* out) override {
        const i64 K = check_pars(pars, "input_gradient");
        std::shared_ptr<const BoundData> rebound;
        const auto* bound = dynamic_cast<const CpuBound*>(&bound_in);
        if (!bound || bound->owner != this) {
            rebound = bind(bound_in.data());  // checks the data's shape
            bound = static_cast<const CpuBound*>(rebound.get());
        }
        const i64 width = N_ + A_;
        const bool per_point = bound->rows != 1;
        if (per_point && bound->rows != K)
            bad("input_gradient: data has " + std::to_string(bound->rows) + " rows for " + std::to_string(K) + " points");
        out->value = be_.empty(float_dtype_of(), Shape{K});
        std::vector<R> pbuf, dbuf;
        const R* pp = as_real(pars, pbuf);
        const R* dp = as_real(bound->data(), dbuf);
        each_gradient_row(K, out, [&](i64 k, const PackedGradientRow<R>& r, InputGradScratch& s) {
            input_grad_.point(pp + k * P_, dp + (per_point ? k * width : 0), r, s);
        });
        return true;
    }

    bool expected_data_vjp(const Tensor& pars, const Tensor& cot_main, const Tensor& cot_aux,
                           PackedGradient* out) override {
        const i64 K = check_pars(pars, "expected_data_vjp");
        if (cot_main.shape() != Shape{K, N_} || cot_aux.shape() != Shape{K, A_})
            bad("expected_data_vjp: the cotangents must be [" + std::to_string(K) + ", " + std::to_string(N_) +
                "] and [" + std::to_string(K) + ", " + std::to_string(A_) + "]");
        out->value = Tensor();
        std::vector<R> pbuf, mbuf, abuf;
        const R* pp = as_real(pars, pbuf);
        const R* cm = as_real(cot_main, mbuf);
        const R* ca = as_real(cot_aux, abuf);
        each_gradient_row(K, out, [&](i64 k, const PackedGradientRow<R>& r, InputGradScratch& s) {
            input_grad_.vjp_point(pp + k * P_, cm + k * N_, ca + k * A_, r, s);
        });
        return true;
    }

    // Makes out's tensors but value ([K, the length of each array]) and calls fill(k, the rows of point k, scratch)
    // for every point, spread as logpdf's.
    template <class Fill>
    void each_gradient_row(i64 K, PackedGradient* out, Fill fill) {
        const PackedLikelihood& pk = input_grad_.packed();
        const i64 F = static_cast<i64>(pk.factor_par.size()), D = static_cast<i64>(pk.delta_par.size());
        const i64 G = static_cast<i64>(pk.gauss_par.size()), Q = static_cast<i64>(pk.pois_par.size());
        auto make = [&](Tensor& t, i64 n) { t = be_.empty(float_dtype_of(), Shape{K, n}); };
        make(out->pars, P_), make(out->elem_nominal, E_), make(out->factor_lo, F), make(out->factor_hi, F);
        make(out->factor_coef, 6 * F), make(out->delta_lo, D), make(out->delta_nom, D), make(out->delta_hi, D);
        make(out->gauss_sigma, G), make(out->pois_tau, Q), make(out->data, N_ + A_);
        auto row = [K](Tensor& t, i64 k) { return data_of<R>(t) + k * (t.size() / K); };
        parallel_for(K, [&](i64 k0, i64 k1) {
            InputGradScratch s;
            R no_value{};
            for (i64 k = k0; k < k1; ++k) {
                R* value = out->value.defined() ? row(out->value, k) : &no_value;
                const PackedGradientRow<R> r{value,                  row(out->pars, k),      row(out->elem_nominal, k),
                                             row(out->factor_lo, k), row(out->factor_hi, k), row(out->factor_coef, k),
                                             row(out->delta_lo, k),  row(out->delta_nom, k), row(out->delta_hi, k),
                                             row(out->gauss_sigma, k), row(out->pois_tau, k), row(out->data, k)};
                fill(k, r, s);
            }
        });
    }

    Tensor expected_main_jacobian(const Tensor& pars) override {
        const i64 K = check_pars(pars, "expected_main_jacobian");
        std::vector<R> pbuf;
        const R* pp = as_real(pars, pbuf);
        Tensor out = be_.empty(float_dtype_of(), Shape{K, N_, P_});
        R* po = data_of<R>(out);
        parallel_for(K, [&](i64 k0, i64 k1) {
            Scratch<R>& s = sized_scratch(0);
            JacobianRows rows;
            for (i64 k = k0; k < k1; ++k) jacobian(pp + k * P_, s, rows, po + k * N_ * P_);
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
    void compile_factors(const PackedLikelihood& pk) {
        // Factor entries point into tv: a linear factor at its parameter, a normsys at its deduplicated term.
        // Code4 terms come first, so that their polynomials are one vector loop (simd::code4_poly).
        std::map<std::tuple<i32, i32, double, double>, i32> seen;
        std::vector<TermKey> keys;
        const std::size_t F = pk.factor_par.size();
        f_src_.resize(F);
        for (std::size_t f = 0; f < F; ++f) {
            const i32 kind = pk.factor_kind[f];
            if (kind == kFactorLinear) {
                f_src_[f] = pk.factor_par[f];
                continue;
            }
            auto key = std::make_tuple(pk.factor_par[f], kind, pk.factor_lo[f], pk.factor_hi[f]);
            auto it = seen.find(key);
            if (it == seen.end()) {
                it = seen.emplace(key, static_cast<i32>(keys.size())).first;
                keys.push_back(TermKey{pk.factor_par[f], kind, pk.factor_lo[f], pk.factor_hi[f],
                                       pk.factor_coef.data() + 6 * f});
            }
            f_src_[f] = it->second;  // renumbered below
        }
        std::vector<i32> order(keys.size()), position(keys.size());
        for (std::size_t u = 0; u < keys.size(); ++u) order[u] = static_cast<i32>(u);
        std::stable_partition(order.begin(), order.end(),
                              [&](i32 u) { return keys[static_cast<std::size_t>(u)].kind == kFactorNormsysCode4; });
        const std::size_t T = keys.size();
        n_code4_ = 0;
        t_coef_.assign(6 * T, R(0));
        for (std::size_t v = 0; v < T; ++v) {
            const TermKey& k = keys[static_cast<std::size_t>(order[v])];
            position[static_cast<std::size_t>(order[v])] = static_cast<i32>(v);
            t_par_.push_back(k.par);
            t_log_hi_.push_back(static_cast<R>(std::log(static_cast<R>(k.hi))));
            t_neg_log_lo_.push_back(static_cast<R>(-std::log(static_cast<R>(k.lo))));
            if (k.kind == kFactorNormsysCode4) ++n_code4_;
        }
        for (std::size_t v = 0; v < n_code4_; ++v)
            for (std::size_t i = 0; i < 6; ++i)
                t_coef_[i * n_code4_ + v] = static_cast<R>(keys[static_cast<std::size_t>(order[v])].coef[i]);
        t_coef_.resize(6 * n_code4_);
        for (std::size_t f = 0; f < F; ++f)
            if (pk.factor_kind[f] != kFactorLinear)
                f_src_[f] = static_cast<i32>(P_) + position[static_cast<std::size_t>(f_src_[f])];
    }

    // The normsys terms of an element are those of its sample, the same in every bin: the elements of a sample
    // would multiply the same terms (19 of them per element in the 250-parameter synthetic model) bin after bin,
    // and walk them again for the gradient. Each distinct set of two or more terms becomes one product, computed
    // once per point into tv[P + T + set] and used by its elements as a single factor; the gradient reaches the
    // terms through it (gradient(), after the elements).
    void share_term_products() {
        const i32 first_set = static_cast<i32>(P_ + static_cast<i64>(t_par_.size()));
        std::map<std::vector<i32>, i32> set_of;
        std::vector<i32> off{0}, src;
        for (i64 e = 0; e < E_; ++e) {
            std::vector<i32> terms;
            const std::size_t begin = src.size();
            for (i32 f = f_off_[e]; f < f_off_[e + 1]; ++f) {
                if (f_src_[f] >= P_) terms.push_back(f_src_[f]);
                else src.push_back(f_src_[f]);
            }
            if (terms.size() < 2) {
                src.resize(begin);
                src.insert(src.end(), f_src_.begin() + f_off_[e], f_src_.begin() + f_off_[e + 1]);
            } else {
                std::sort(terms.begin(), terms.end());
                auto it = set_of.find(terms);
                if (it == set_of.end()) {
                    it = set_of.emplace(terms, static_cast<i32>(set_off_.size() - 1)).first;
                    set_src_.insert(set_src_.end(), terms.begin(), terms.end());
                    set_off_.push_back(static_cast<i32>(set_src_.size()));
                    max_set_ = std::max<i64>(max_set_, static_cast<i64>(terms.size()));
                }
                src.push_back(first_set + it->second);
            }
            off.push_back(static_cast<i32>(src.size()));
        }
        f_off_ = std::move(off);
        f_src_ = std::move(src);
    }

    i64 n_sets() const { return static_cast<i64>(set_off_.size()) - 1; }

    void compile_histosys(const PackedLikelihood& pk) {
        // Histosys bins: constants (cS, cA) of hf_delta_weights, and the slot of their (parameter, code).
        std::map<std::pair<i32, i32>, i32> slot_of;
        const std::size_t D = pk.delta_par.size();
        d_slot_.resize(D);
        d_coef_.resize(2 * D);
        for (std::size_t d = 0; d < D; ++d) {
            auto key = std::make_pair(pk.delta_par[d], pk.delta_kind[d]);
            auto it = slot_of.find(key);
            if (it == slot_of.end()) {
                it = slot_of.emplace(key, static_cast<i32>(slots_.size())).first;
                slots_.push_back(Slot{key.first, key.second});
            }
            d_slot_[d] = it->second;
            const double up = pk.delta_hi[d] - pk.delta_nom[d], dn = pk.delta_nom[d] - pk.delta_lo[d];
            d_coef_[2 * d] = static_cast<R>(0.5 * (up + dn));
            d_coef_[2 * d + 1] = static_cast<R>(0.5 * (up - dn));
        }
        n_weights_ = simd::padded(2 * slots_.size());
        if (slots_.empty()) return;
        // The dense path reads, per row, only the whole vectors between its first and last weight: slots are
        // numbered in element order, so a sample's histosys parameters are neighbours and a row of a model with
        // several samples spans a fraction of the weights (the 250-parameter synthetic model: 48 of 160).
        std::vector<DenseBlock> blocks;
        std::size_t dense_entries = 0;
        for (i64 e = 0; e < E_; ++e) {
            if (d_off_[e] == d_off_[e + 1]) continue;
            std::size_t lo = n_weights_, hi = 0;
            for (i32 d = d_off_[e]; d < d_off_[e + 1]; ++d) {
                lo = std::min<std::size_t>(lo, 2 * static_cast<std::size_t>(d_slot_[d]));
                hi = std::max<std::size_t>(hi, 2 * static_cast<std::size_t>(d_slot_[d]) + 2);
            }
            lo = lo / simd::kPad * simd::kPad;
            const std::size_t width = simd::padded(hi) - lo;
            dense_entries += width;
            DenseBlock* last = blocks.empty() ? nullptr : &blocks.back();
            const bool extends = last && last->row0 + last->rows == static_cast<std::size_t>(e) &&
                                 last->col0 == lo && last->width == width;
            if (extends)
                ++last->rows;
            else
                blocks.push_back(DenseBlock{static_cast<std::size_t>(e), 1, lo, width});
        }
        if (!simd::worthwhile(dense_entries, D)) return;
        dense_blocks_ = std::move(blocks);
        dense_c_.assign(static_cast<std::size_t>(E_) * n_weights_, R(0));
        for (i64 e = 0; e < E_; ++e)
            for (i32 d = d_off_[e]; d < d_off_[e + 1]; ++d) {
                R* row = dense_c_.data() + static_cast<std::size_t>(e) * n_weights_;
                row[2 * d_slot_[d]] += d_coef_[2 * d];
                row[2 * d_slot_[d] + 1] += d_coef_[2 * d + 1];
            }
    }

    // This thread's working memory for the point-th point of a group, grown to this model's sizes.
    Scratch<R>& sized_scratch(int point) const {
        Scratch<R>& s = scratch<R>(point);
        s.fit(P_, t_par_.size() + static_cast<std::size_t>(n_sets()), n_weights_, E_, N_,
              std::max<i64>(max_f_, max_set_));
        return s;
    }

    static DType float_dtype_of() { return sizeof(R) == 4 ? DType::f32 : DType::f64; }

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

    // The data-only part of logpdf per data row: hf_poisson_const over the main bins; aux log(tau/aux) +
    // (aux - tau) + hf_poisson_const(aux) over Poisson constraints; the Gaussian normalisations. Computed when
    // the data are bound, so that the evaluations of a fit or a scan skip the lgamma per bin.
    std::vector<double> data_constants(const R* dp, i64 rows) const {
        std::vector<double> c(static_cast<std::size_t>(rows), gauss_const_);
        for (i64 r = 0; r < rows; ++r) {
            const R* d = dp + r * (N_ + A_);
            Neumaier acc;
            for (i64 b = 0; b < N_; ++b) acc.add(poisson_const(static_cast<double>(d[b])));
            for (std::size_t q = 0; q < q_aux_.size(); ++q) {
                const double a = static_cast<double>(d[N_ + q_aux_[q]]), tau = q_tau_[q];
                if (a > 0) acc.add(lm64::hf_n_log_ratio(a, tau) + (a - tau) + poisson_const(a));
            }
            c[static_cast<std::size_t>(r)] += acc.value();
        }
        return c;
    }

    // Fills s.tv (parameters, then normsys term values) and s.w (histosys weights), with their derivatives.
    template <bool with_derivs>
    void factors_and_weights(const R* par, Scratch<R>& s) const {
        R* tv = s.tv.data();
        std::copy_n(par, P_, tv);
        R* tt = tv + P_;
        R* dtv = s.dtv.data();
        const bool outside = simd::code4_poly(par, t_par_.data(), t_coef_.data(), n_code4_, tt, dtv);
        for (std::size_t u = outside ? 0 : n_code4_, T = t_par_.size(); u < T; ++u) {
            const R a = par[t_par_[u]];
            if (u < n_code4_ && a < R(1) && a > R(-1)) continue;  // the polynomial holds
            tt[u] = Math<R>::fexp(a, a >= R(0) ? t_log_hi_[u] : t_neg_log_lo_[u], &dtv[u]);
        }
        // The padding stays zero: the scratch may hold another model's weights there.
        std::fill(s.w.begin() + static_cast<std::ptrdiff_t>(2 * slots_.size()),
                  s.w.begin() + static_cast<std::ptrdiff_t>(n_weights_), R(0));
        for (std::size_t k = 0, S = slots_.size(); k < S; ++k) {
            R wk[4];
            Math<R>::delta_weights(slots_[k].kind, par[slots_[k].par], wk);
            s.w[2 * k] = wk[0], s.w[2 * k + 1] = wk[1];
            if constexpr (with_derivs) s.dw[2 * k] = wk[2], s.dw[2 * k + 1] = wk[3];
        }
    }

    // A point of a group evaluated together: its parameters, data row, data-only constant, gradient row (null
    // for none) and working memory.
    struct Point {
        const R* par;
        const R* data;
        double constant;
        R* grad;
        Scratch<R>* s;
    };

    // Fills s.base (nominal plus histosys deltas), s.rate, and s.prodf for the gradient.
    template <bool with_derivs>
    void rates(const R* par, Scratch<R>& s) const {
        Point one{par, nullptr, 0.0, nullptr, &s};
        rates_points<with_derivs>(&one, 1);
    }

    template <bool with_derivs>
    void rates_points(const Point* pts, int count) const {
        for (int t = 0; t < count; ++t) {
            factors_and_weights<with_derivs>(pts[t].par, *pts[t].s);
            std::copy_n(elem_nom_.data(), E_, pts[t].s->base.data());
        }
        if (!dense_c_.empty()) {
            const R* w[simd::kMaxPoints];
            R* base[simd::kMaxPoints];
            for (const DenseBlock& b : dense_blocks_) {
                for (int t = 0; t < count; ++t)
                    w[t] = pts[t].s->w.data() + b.col0, base[t] = pts[t].s->base.data() + b.row0;
                simd::rows_dot_points(dense_c_.data() + b.row0 * n_weights_ + b.col0, n_weights_, b.width, b.rows,
                                      w, base, count);
            }
        } else {
            for (int t = 0; t < count; ++t) sparse_histosys(*pts[t].s);
        }
        for (int t = 0; t < count; ++t) factor_products<with_derivs>(*pts[t].s);
    }

    // base[e] += the histosys deltas of element e, from the sparse entries.
    void sparse_histosys(Scratch<R>& s) const {
        R* base = s.base.data();
        const R* w = s.w.data();
        const R* c = d_coef_.data();
        const i32* slot = d_slot_.data();
        for (i64 e = 0; e < E_; ++e) {
            // Four independent sums: a bin of a large model has dozens of histosys terms.
            R b0 = 0, b1 = 0, b2 = 0, b3 = 0;
            i32 d = d_off_[e];
            const i32 d1 = d_off_[e + 1];
            for (; d + 1 < d1; d += 2) {
                const R* wa = w + 2 * slot[d];
                const R* wb = w + 2 * slot[d + 1];
                b0 += c[2 * d] * wa[0];
                b1 += c[2 * d + 1] * wa[1];
                b2 += c[2 * d + 2] * wb[0];
                b3 += c[2 * d + 3] * wb[1];
            }
            if (d < d1) {
                const R* wa = w + 2 * slot[d];
                b0 += c[2 * d] * wa[0];
                b1 += c[2 * d + 1] * wa[1];
            }
            base[e] += (b0 + b2) + (b1 + b3);
        }
    }

    // s.rate from s.base and the multiplicative factors (s.prodf: each element's product, for the gradient).
    template <bool with_derivs>
    void factor_products(Scratch<R>& s) const {
        const R* base = s.base.data();
        std::fill_n(s.rate.data(), N_, R(0));
        R* tv = s.tv.data();
        for (i64 u = 0, first = P_ + static_cast<i64>(t_par_.size()); u < n_sets(); ++u)
            tv[first + u] = product_of(tv, set_src_.data(), set_off_[u], set_off_[u + 1]);
        for (i64 e = 0; e < E_; ++e) {
            const R pf = product_of(tv, f_src_.data(), f_off_[e], f_off_[e + 1]);
            if constexpr (with_derivs) s.prodf[e] = pf;
            s.rate[elem_bin_[e]] += base[e] * pf;
        }
    }

    // logpdf (and its gradient where the points ask for one: all of them or none) of count <= kMaxPoints points.
    void eval_points(const Point* pts, int count, R* out) const {
        const bool g = pts[0].grad != nullptr;
        if (g) rates_points<true>(pts, count);
        else rates_points<false>(pts, count);
        for (int t = 0; t < count; ++t) out[t] = value(pts[t], g);
        if (g) gradient_points(pts, count);
    }

    // logpdf from the point's rates; with g, the per-bin weights of the gradient (s.wbin) too.
    R value(const Point& pt, bool g) const {
        const R* par = pt.par;
        const R* data = pt.data;
        Scratch<R>& s = *pt.s;
        Neumaier acc;
        // Rates are computed in the backend precision; the per-bin terms take them (and the data) to double:
        // on a CPU that costs nothing and keeps a 32b NLL from losing digits in n log(lam / n) at large n.
        for (i64 b = 0; b < N_; ++b) {
            const double n = static_cast<double>(data[b]), lam = static_cast<double>(s.rate[b]);
            // hf_poisson_logpdf less hf_poisson_const(n), which lives in `constant`
            acc.add(n > 0 ? lm64::hf_n_log_ratio(n, lam) + (n - lam) : -lam);
            if (g) s.wbin[b] = n > 0 ? n / lam - 1.0 : -1.0;
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
        return static_cast<R>(acc.value() + pt.constant);
    }

    void gradient_points(const Point* pts, int count) const {
        for (int t = 0; t < count; ++t) gradient_elements(*pts[t].s);
        if (!dense_c_.empty()) {
            const double* wpf[simd::kMaxPoints];
            double* gslot[simd::kMaxPoints];
            for (const DenseBlock& b : dense_blocks_) {
                for (int t = 0; t < count; ++t)
                    wpf[t] = pts[t].s->wpf.data() + b.row0, gslot[t] = pts[t].s->gslot.data() + b.col0;
                simd::weighted_row_sum_points(dense_c_.data() + b.row0 * n_weights_ + b.col0, n_weights_, b.width,
                                              b.rows, wpf, gslot, count);
            }
        }
        for (int t = 0; t < count; ++t) gradient_finish(pts[t]);
    }

    // The gradient's pass over the elements: d logpdf / d (parameter, normsys term or term product) into s.gacc
    // and s.gterm, each element's weight wb * prodf into s.wpf, and the sparse histosys entries into s.gslot.
    void gradient_elements(Scratch<R>& s) const {
        const std::size_t T = t_par_.size();
        double* gacc = s.gacc.data();
        double* gterm = s.gterm.data();  // d logpdf / d (normsys term value)
        double* gslot = s.gslot.data();  // d logpdf / d (histosys weight)
        std::fill_n(gacc, P_, 0.0);
        std::fill_n(gterm, T + static_cast<std::size_t>(n_sets()), 0.0);
        std::fill_n(gslot, n_weights_, 0.0);
        const R* tv = s.tv.data();
        const R* c = d_coef_.data();
        R* pre = s.pre.data();
        // d logpdf / d tv[i] accumulates in gacc for parameters (linear factors) and gterm for normsys terms and
        // their shared products.
        auto add_factor_grad = [&](i32 src, double v) {
            if (src < P_) gacc[src] += v;
            else gterm[src - P_] += v;
        };
        for (i64 e = 0; e < E_; ++e) {
            const double wb = s.wbin[elem_bin_[e]];
            // d rate / d factor_i = base * (product of the other factors)
            distribute(tv, f_src_.data(), f_off_[e], f_off_[e + 1], wb * static_cast<double>(s.base[e]), pre,
                       add_factor_grad);
            const double wpf = wb * static_cast<double>(s.prodf[e]);
            s.wpf[e] = wpf;
            if (dense_c_.empty())
                for (i32 d = d_off_[e], d1 = d_off_[e + 1]; d < d1; ++d) {
                    double* gs = gslot + 2 * d_slot_[d];
                    gs[0] += wpf * static_cast<double>(c[2 * d]);
                    gs[1] += wpf * static_cast<double>(c[2 * d + 1]);
                }
        }
    }

    // The rest of the gradient, after the dense histosys entries reached s.gslot: the chain rule to the
    // parameters, the constraints, and the point's gradient row.
    void gradient_finish(const Point& pt) const {
        Scratch<R>& s = *pt.s;
        const R* par = pt.par;
        R* grad = pt.grad;
        double* gacc = s.gacc.data();
        to_parameters(s, s.gterm.data(), s.gslot.data(), gacc);
        const R* aux = pt.data + N_;
        for (std::size_t i = 0; i < g_par_.size(); ++i)
            gacc[g_par_[i]] += (static_cast<double>(aux[g_aux_[i]]) - par[g_par_[i]]) * g_inv_var_[i];
        for (std::size_t i = 0; i < q_par_.size(); ++i) {
            const double a = aux[q_aux_[i]], tau = q_tau_[i], p = par[q_par_[i]];
            gacc[q_par_[i]] += a > 0 ? a / p - tau : -tau;
        }
        for (i64 p = 0; p < P_; ++p) grad[p] = static_cast<R>(gacc[p]);
    }

    // The chain rule's last links, shared by gradient_finish() and jacobian(): derivatives by the shared term
    // products (dterm[T + set]) reach their terms, by the normsys terms (dterm[0, T)) and by the histosys weights
    // (dweight) reach the parameters (dpar, added to).
    void to_parameters(Scratch<R>& s, double* dterm, const double* dweight, double* dpar) const {
        const std::size_t T = t_par_.size();
        const R* tv = s.tv.data();
        for (i64 u = 0; u < n_sets(); ++u) {
            // d / d term = d / d product * (product of the set's other terms)
            const double w = dterm[T + static_cast<std::size_t>(u)];
            if (w == 0.0) continue;
            distribute(tv, set_src_.data(), set_off_[u], set_off_[u + 1], w, s.pre.data(),
                       [&](i32 src, double v) { dterm[src - P_] += v; });
        }
        for (std::size_t u = 0; u < T; ++u) dpar[t_par_[u]] += dterm[u] * static_cast<double>(s.dtv[u]);
        for (std::size_t k = 0; k < slots_.size(); ++k)
            dpar[slots_[k].par] += dweight[2 * k] * static_cast<double>(s.dw[2 * k]) +
                                   dweight[2 * k + 1] * static_cast<double>(s.dw[2 * k + 1]);
    }

    // Per-bin accumulators of jacobian(): d rate_b / d (parameter, normsys term or term product, histosys weight).
    struct JacobianRows {
        std::vector<double> par, term, weight;
    };

    // d rate_b / d par_p into out [N, P]: gradient()'s chain rule with one accumulator row per bin instead of one
    // sum weighted by the bins' residuals.
    void jacobian(const R* par, Scratch<R>& s, JacobianRows& j, R* out) const {
        rates<true>(par, s);
        const std::size_t T = t_par_.size(), nt = T + static_cast<std::size_t>(n_sets()), nw = 2 * slots_.size();
        const std::size_t P = static_cast<std::size_t>(P_);
        j.par.assign(static_cast<std::size_t>(N_) * P, 0.0);
        j.term.assign(static_cast<std::size_t>(N_) * nt, 0.0);
        j.weight.assign(static_cast<std::size_t>(N_) * nw, 0.0);
        const R* tv = s.tv.data();
        const R* c = d_coef_.data();
        R* pre = s.pre.data();
        for (i64 e = 0; e < E_; ++e) {
            const std::size_t b = static_cast<std::size_t>(elem_bin_[e]);
            double* jp = j.par.data() + b * P;
            double* jt = j.term.data() + b * nt;
            distribute(tv, f_src_.data(), f_off_[e], f_off_[e + 1], static_cast<double>(s.base[e]), pre,
                       [&](i32 src, double v) {
                           if (src < P_) jp[src] += v;
                           else jt[src - P_] += v;
                       });
            const double pf = static_cast<double>(s.prodf[e]);
            double* jw = j.weight.data() + b * nw;
            for (i32 d = d_off_[e], d1 = d_off_[e + 1]; d < d1; ++d) {
                jw[2 * d_slot_[d]] += pf * static_cast<double>(c[2 * d]);
                jw[2 * d_slot_[d] + 1] += pf * static_cast<double>(c[2 * d + 1]);
            }
        }
        for (std::size_t b = 0; b < static_cast<std::size_t>(N_); ++b) {
            double* jp = j.par.data() + b * P;
            double* jt = j.term.data() + b * nt;
            const double* jw = j.weight.data() + b * nw;
            to_parameters(s, jt, jw, jp);
            for (std::size_t p = 0; p < P; ++p) out[b * P + p] = static_cast<R>(jp[p]);
        }
    }

    // Splits K points over the process's worker threads (hfcore/threads.hpp) when the batch is worth more than
    // handing them out, and when no other evaluation is running: callers that run evaluations on several threads
    // of their own (toy blocks, scan points, Python threads) already fill the cores, and workers for this one would
    // only oversubscribe them. A point's result does not depend on how the points are split.
    template <class F>
    void parallel_for(i64 K, F&& body) const {
        struct Running {
            explicit Running(std::atomic<int>& n) : n(n), others(n.fetch_add(1)) {}
            ~Running() { n.fetch_sub(1); }
            std::atomic<int>& n;
            const int others;
        } running(running_evaluations());
        const i64 work = K * (E_ + N_ + 16);
        const i64 workers = running.others > 0 ? 1 : std::min<i64>(static_cast<i64>(cpu_threads()), K);
        if (workers <= 1 || work < (i64{1} << 16)) {
            body(i64{0}, K);
            return;
        }
        const i64 chunk = (K + workers - 1) / workers;
        const i64 chunks = (K + chunk - 1) / chunk;
        hf::run::for_each_index(static_cast<std::size_t>(chunks), static_cast<int>(workers), [&](std::size_t c, int) {
            const i64 k0 = static_cast<i64>(c) * chunk;
            body(k0, std::min(K, k0 + chunk));
        });
    }

    CpuBackend& be_;
    PackedInputGradient input_grad_;  // the packed arrays as they came, for input_gradient
    i64 P_ = 0, N_ = 0, A_ = 0, E_ = 0, max_f_ = 0;
    std::vector<i32> elem_bin_, f_off_, d_off_;
    std::vector<i32> f_src_;   // [F] index into Scratch::tv
    std::vector<i32> set_off_{0}, set_src_;  // shared term products (share_term_products): their terms in tv
    i64 max_set_ = 0;                         // the most terms in one set
    std::vector<i32> d_slot_;  // [D] histosys slot
    std::vector<R> elem_nom_;
    std::vector<R> d_coef_;    // [2D] cS, cA of each histosys bin
    std::vector<i32> t_par_;                // [T] normsys terms, code4 first
    std::vector<R> t_log_hi_, t_neg_log_lo_;  // [T]
    std::vector<R> t_coef_;                 // [6 x n_code4_] code4 coefficients, one row per power
    std::size_t n_code4_ = 0;
    std::vector<Slot> slots_;
    std::size_t n_weights_ = 0;  // 2 per slot, padded to simd::kPad
    std::vector<R> dense_c_;     // [E x n_weights_] when the dense histosys path is worthwhile, else empty
    std::vector<DenseBlock> dense_blocks_;  // the parts of dense_c_ the products read
    std::vector<i32> g_par_, g_aux_, q_par_, q_aux_;
    std::vector<double> g_inv_var_, q_tau_;  // constraints are evaluated in double (see eval)
    double gauss_const_ = 0;
    std::string implementation_;
};

}  // namespace

std::unique_ptr<FusedLikelihood> CpuBackend::k_compile_likelihood(const PackedLikelihood& packed) {
    if (precision() == Precision::f32) return std::make_unique<CpuFused<float>>(*this, packed);
    return std::make_unique<CpuFused<double>>(*this, packed);
}

}  // namespace hf::cpu
