// The packed HistFactory likelihood compiled for the cpu plugin's loops (CpuModel<R>), at one precision R.
//
// Per point, the work that depends on a parameter alone is done once per parameter: each distinct multiplicative
// term (parameter, kind, lo, hi) is evaluated once (logs of lo/hi precomputed) and shared by the elements that use
// it, and each histosys parameter gets two interpolation weights (hf_delta_weights), so that a histosys bin costs
// two multiply-adds against per-bin constants. The Poisson terms use the cancellation-free arrangement of
// hf_likelihood_math.h; their data-only parts (hf_poisson_const, and aux log(tau/aux) + aux - tau of the
// constraints) are computed in double once, when the data are bound, so a call evaluates only what depends on the
// parameters. Sums accumulate in double with Neumaier compensation, which keeps 32b NLL differences meaningful for
// fits. The member functions are defined by role: likelihood_compile.hpp (the arrays from the PackedLikelihood),
// likelihood_forward.hpp (rates and logpdf), likelihood_gradient.hpp (gradient and Jacobian); likelihood.cpp is
// the FusedLikelihood around them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hfcore/plugin/likelihood.hpp"
#include "likelihood_scratch.hpp"
#include "math.hpp"

namespace hf::cpu::fused {

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

template <class R>
class CpuModel {
public:
    explicit CpuModel(const PackedLikelihood& pk);

    // A point of a group evaluated together: its parameters, data row, data-only constant, gradient row (null
    // for none) and working memory.
    struct Point {
        const R* par;
        const R* data;
        double constant;
        R* grad;
        Scratch<R>* s;
    };

    // Per-bin accumulators of jacobian(): d rate_b / d (parameter, normsys term or term product, histosys weight).
    struct JacobianRows {
        std::vector<double> par, term, weight;
    };

    i64 n_sets() const { return static_cast<i64>(set_off_.size()) - 1; }

    // This thread's working memory for the point-th point of a group, grown to this model's sizes.
    Scratch<R>& sized_scratch(int point) const {
        Scratch<R>& s = scratch<R>(point);
        s.fit(P_, t_par_.size() + static_cast<std::size_t>(n_sets()), n_weights_, E_, N_,
              std::max<i64>(max_f_, max_set_));
        return s;
    }

    std::vector<double> data_constants(const R* dp, i64 rows) const;
    template <bool with_derivs>
    void factors_and_weights(const R* par, Scratch<R>& s) const;
    template <bool with_derivs>
    void rates(const R* par, Scratch<R>& s) const;
    template <bool with_derivs>
    void rates_points(const Point* pts, int count) const;
    void sparse_histosys(Scratch<R>& s) const;
    template <bool with_derivs>
    void factor_products(Scratch<R>& s) const;
    void eval_points(const Point* pts, int count, R* out) const;
    R value(const Point& pt, bool g) const;
    void gradient_points(const Point* pts, int count) const;
    void gradient_elements(Scratch<R>& s) const;
    void gradient_finish(const Point& pt) const;
    void to_parameters(Scratch<R>& s, double* dterm, const double* dweight, double* dpar) const;
    void jacobian(const R* par, Scratch<R>& s, JacobianRows& j, R* out) const;

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

private:
    void compile_factors(const PackedLikelihood& pk);
    void share_term_products();
    void compile_histosys(const PackedLikelihood& pk);
};

}  // namespace hf::cpu::fused
