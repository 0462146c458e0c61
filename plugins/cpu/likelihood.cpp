// Tier 2 of the cpu plugin: the FusedLikelihood around CpuModel (likelihood_model.hpp, the packed likelihood
// compiled for plain loops over its CSR arrays): data bound once with their data-only constants (CpuBound), points
// spread over hfcore's worker threads, and the input gradient of likelihood_input_grad.cpp.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "backend.hpp"
#include "hfcore/threads.hpp"
#include "likelihood_compile.hpp"
#include "likelihood_forward.hpp"
#include "likelihood_gradient.hpp"
#include "likelihood_input_grad.hpp"
#include "likelihood_model.hpp"
#include "simd.hpp"

namespace hf::cpu {

namespace {

using fused::CpuModel;
using fused::i64;
using fused::Scratch;

[[noreturn]] void bad(const std::string& what) { throw ShapeError("cpu fused likelihood: " + what); }

// Evaluations in progress in this process, on any thread (CpuFused::parallel_for).
inline std::atomic<int>& running_evaluations() {
    static std::atomic<int> n{0};
    return n;
}

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
    CpuFused(CpuBackend& be, const PackedLikelihood& pk) : be_(be), input_grad_(pk), m_(pk) {
        implementation_ = std::string("cpu fused (") + (sizeof(R) == 4 ? "32b" : "64b") +
                          (m_.dense_c_.empty() ? "" : ", dense histosys") + ")";
    }

    const char* implementation() const override { return implementation_.c_str(); }

    using FusedLikelihood::logpdf;

    // Checks the data ([N + A], [1, N + A] or [R, N + A]) and computes their data-only constants, once.
    std::shared_ptr<const BoundData> bind(const Tensor& data) override {
        be_.check_owner(data, "logpdf");
        const i64 width = m_.N_ + m_.A_;
        i64 rows;
        if (data.size() == width && (data.ndim() <= 1 || (data.ndim() == 2 && data.dim(0) == 1))) rows = 1;
        else if (data.ndim() == 2 && data.dim(1) == width) rows = data.dim(0);
        else bad("data has shape " + shape_str(data.shape()) + "; expected [" + std::to_string(width) +
                 "] or [K, " + std::to_string(width) + "] (main bins + auxdata)");
        auto bound = std::make_shared<CpuBound>(data, this, rows);
        std::vector<R> dbuf;
        bound->consts = m_.data_constants(as_real(data, dbuf), rows);
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
        const i64 width = m_.N_ + m_.A_;
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
            *grad = be_.empty(float_dtype_of(), Shape{K, m_.P_});
            pg = data_of<R>(*grad);
        }
        // With the dense histosys matrix, points go through it kMaxPoints at a time (rows_dot_points): one point's
        // result does not depend on the others, nor on how the points are grouped.
        const int group = m_.dense_c_.empty() ? 1 : simd::kMaxPoints;
        parallel_for(K, [&](i64 k0, i64 k1) {
            Scratch<R>* s[simd::kMaxPoints];
            for (int t = 0; t < group; ++t) s[t] = &m_.sized_scratch(t);
            for (i64 k = k0; k < k1; k += group) {
                const int count = static_cast<int>(std::min<i64>(group, k1 - k));
                Point pts[simd::kMaxPoints] = {};
                for (int t = 0; t < count; ++t) {
                    const i64 kt = k + t;
                    pts[t] = Point{pp + kt * m_.P_, dp + (per_point ? kt * width : 0), consts[per_point ? kt : 0],
                                   pg ? pg + kt * m_.P_ : nullptr, s[t]};
                }
                m_.eval_points(pts, count, po + k);
            }
        });
        return out;
    }

    Tensor expected_main(const Tensor& pars) override {
        const i64 K = check_pars(pars, "expected_main");
        std::vector<R> pbuf;
        const R* pp = as_real(pars, pbuf);
        Tensor out = be_.empty(float_dtype_of(), Shape{K, m_.N_});
        R* po = data_of<R>(out);
        parallel_for(K, [&](i64 k0, i64 k1) {
            Scratch<R>& s = m_.sized_scratch(0);
            for (i64 k = k0; k < k1; ++k) {
                m_.template rates<false>(pp + k * m_.P_, s);
                std::copy_n(s.rate.data(), m_.N_, po + k * m_.N_);
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
        const i64 width = m_.N_ + m_.A_;
        const bool per_point = bound->rows != 1;
        if (per_point && bound->rows != K)
            bad("input_gradient: data has " + std::to_string(bound->rows) + " rows for " + std::to_string(K) +
                " points");
        out->value = be_.empty(float_dtype_of(), Shape{K});
        std::vector<R> pbuf, dbuf;
        const R* pp = as_real(pars, pbuf);
        const R* dp = as_real(bound->data(), dbuf);
        each_gradient_row(K, out, [&](i64 k, const PackedGradientRow<R>& r, InputGradScratch& s) {
            input_grad_.point(pp + k * m_.P_, dp + (per_point ? k * width : 0), r, s);
        });
        return true;
    }

    bool expected_data_vjp(const Tensor& pars, const Tensor& cot_main, const Tensor& cot_aux,
                           PackedGradient* out) override {
        const i64 K = check_pars(pars, "expected_data_vjp");
        if (cot_main.shape() != Shape{K, m_.N_} || cot_aux.shape() != Shape{K, m_.A_})
            bad("expected_data_vjp: the cotangents must be [" + std::to_string(K) + ", " + std::to_string(m_.N_) +
                "] and [" + std::to_string(K) + ", " + std::to_string(m_.A_) + "]");
        out->value = Tensor();
        std::vector<R> pbuf, mbuf, abuf;
        const R* pp = as_real(pars, pbuf);
        const R* cm = as_real(cot_main, mbuf);
        const R* ca = as_real(cot_aux, abuf);
        each_gradient_row(K, out, [&](i64 k, const PackedGradientRow<R>& r, InputGradScratch& s) {
            input_grad_.vjp_point(pp + k * m_.P_, cm + k * m_.N_, ca + k * m_.A_, r, s);
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
        make(out->pars, m_.P_), make(out->elem_nominal, m_.E_), make(out->factor_lo, F), make(out->factor_hi, F);
        make(out->factor_coef, 6 * F), make(out->delta_lo, D), make(out->delta_nom, D), make(out->delta_hi, D);
        make(out->gauss_sigma, G), make(out->pois_tau, Q), make(out->data, m_.N_ + m_.A_);
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
        Tensor out = be_.empty(float_dtype_of(), Shape{K, m_.N_, m_.P_});
        R* po = data_of<R>(out);
        parallel_for(K, [&](i64 k0, i64 k1) {
            Scratch<R>& s = m_.sized_scratch(0);
            JacobianRows rows;
            for (i64 k = k0; k < k1; ++k) m_.jacobian(pp + k * m_.P_, s, rows, po + k * m_.N_ * m_.P_);
        });
        return out;
    }

    Tensor expected_aux(const Tensor& pars) override {
        const i64 K = check_pars(pars, "expected_aux");
        std::vector<R> pbuf;
        const R* pp = as_real(pars, pbuf);
        Tensor out = be_.empty(float_dtype_of(), Shape{K, m_.A_});
        R* po = data_of<R>(out);
        std::fill(po, po + K * m_.A_, R(0));
        for (i64 k = 0; k < K; ++k) {
            const R* p = pp + k * m_.P_;
            R* o = po + k * m_.A_;
            for (std::size_t g = 0; g < m_.g_par_.size(); ++g) o[m_.g_aux_[g]] = p[m_.g_par_[g]];
            for (std::size_t q = 0; q < m_.q_par_.size(); ++q)
                o[m_.q_aux_[q]] = static_cast<R>(m_.q_tau_[q] * p[m_.q_par_[q]]);
        }
        return out;
    }

private:

    static DType float_dtype_of() { return sizeof(R) == 4 ? DType::f32 : DType::f64; }

    i64 check_pars(const Tensor& pars, const char* op) const {
        be_.check_owner(pars, op);
        if (pars.ndim() == 1 && pars.dim(0) == m_.P_) return 1;
        if (pars.ndim() == 2 && pars.dim(1) == m_.P_) return pars.dim(0);
        bad(std::string(op) + ": pars has shape " + shape_str(pars.shape()) + "; expected [K, " +
            std::to_string(m_.P_) + "]");
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
        const i64 work = K * (m_.E_ + m_.N_ + 16);
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

    using Point = typename CpuModel<R>::Point;
    using JacobianRows = typename CpuModel<R>::JacobianRows;

    CpuBackend& be_;
    PackedInputGradient input_grad_;  // the packed arrays as they came, for input_gradient
    CpuModel<R> m_;
    std::string implementation_;
};

}  // namespace

std::unique_ptr<FusedLikelihood> CpuBackend::k_compile_likelihood(const PackedLikelihood& packed) {
    if (precision() == Precision::f32) return std::make_unique<CpuFused<float>>(*this, packed);
    return std::make_unique<CpuFused<double>>(*this, packed);
}

}  // namespace hf::cpu
