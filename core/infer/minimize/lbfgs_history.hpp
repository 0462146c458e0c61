// The L-BFGS history of one problem of the lockstep engine (lockstep_lbfgs.hpp) and the two halves of its
// two-loop recursion, around which the engine applies the initial matrix (Preconditioner) of several problems
// at once. The sums run in the vector kernels of lanes.hpp, whose order of additions is fixed by the code.
#pragma once

#include <cstddef>
#include <vector>

namespace hf::infer::detail {

// The last `memory` steps s and gradient changes y, in two rings allocated once (no allocation per step, each
// problem's history contiguous). A pair without enough curvature (s.y <= 1e-10 |s| |y|) is not kept.
class LbfgsHistory {
public:
    static constexpr int kMaxMemory = 10;

    void set_memory(int memory) { memory_ = memory; }
    int size() const { return count_; }
    void clear() { count_ = oldest_ = 0; }
    // k = 0 is the oldest pair, size() - 1 the newest.
    const double* s(int k) const { return s_.data() + slot(k) * nf_; }
    const double* y(int k) const { return y_.data() + slot(k) * nf_; }
    double rho(int k) const { return rho_[slot(k)]; }
    double sy(int k) const { return sy_[slot(k)]; }  // s.y over every component
    void push(const double* sv, const double* yv, std::size_t nf);

private:
    std::size_t slot(int k) const { return static_cast<std::size_t>((oldest_ + k) % memory_); }
    std::vector<double> s_, y_;
    double rho_[kMaxMemory] = {}, sy_[kMaxMemory] = {};
    int memory_ = kMaxMemory, count_ = 0, oldest_ = 0;
    std::size_t nf_ = 0;
};

// The largest |v[i]|.
double max_abs(const std::vector<double>& v);

// The first half of the recursion on the free components: q <- g on them (0 elsewhere), less the history's
// terms, whose coefficients go to alpha.
void lbfgs_first_loop(const LbfgsHistory& h, const std::vector<double>& g, const std::vector<char>& free,
                      bool all_free, std::vector<double>& q, double* alpha);

// The second half, after the initial matrix was applied to q (m_applied) or not (then the usual multiple of the
// identity: from the newest pair, or a steepest-descent step of bounded size without history); leaves the
// descent direction -q, zero off the free components.
void lbfgs_second_loop(const LbfgsHistory& h, const std::vector<char>& free, bool all_free, bool m_applied,
                       std::vector<double>& q, const double* alpha);

}  // namespace hf::infer::detail
