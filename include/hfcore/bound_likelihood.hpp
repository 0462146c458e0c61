// A likelihood bound to its data (Model::bind; RooFit's createNLL): the data uploaded once and the data-only
// constants computed once, then evaluated at as many parameter points as a fit, a scan or a hypotest needs.
// It refers to its Model, which must outlive it (as a Tensor's backend must outlive the tensor).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "hfcore/tensor.hpp"

namespace hf {

class BoundLikelihood {
public:
    BoundLikelihood() = default;  // bound to nothing: evaluating it throws InputError
    bool bound() const { return state_ != nullptr; }

    // Device entry: pars [K, P] (or [P]) -> logpdf [K] on the model's backend; *grad = d logpdf / d pars [K, P].
    // The data are [N + A] for every point, or [K, N + A], one row per point.
    Tensor logpdf(const Tensor& pars, Tensor* grad = nullptr) const;
    // Host entry: one point [P]; one upload of pars, one download of the value (and of the gradient when asked).
    double logpdf(const std::vector<double>& pars, std::vector<double>* grad = nullptr) const;

    const Tensor& data() const;  // the bound data on the model's backend

    // The likelihood bound to rows `rows` (in that order) of [R, N + A] data, without computing the data-only
    // constants again. InputError for a row outside [0, R) or data of one row for every point.
    BoundLikelihood rows(const std::vector<std::int64_t>& rows) const;

private:
    friend class Model;
    struct State;
    explicit BoundLikelihood(std::shared_ptr<const State> state) : state_(std::move(state)) {}
    const State& state() const;
    // Immutable and shared: copies are cheap, and many threads may evaluate one bound likelihood at once.
    std::shared_ptr<const State> state_;
};

}  // namespace hf
