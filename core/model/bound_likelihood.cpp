// BoundLikelihood: evaluations of a Model's likelihood on data bound once (Model::bind, model.cpp).
#include "hfcore/bound_likelihood.hpp"

#include <string>

#include "bound_state.hpp"
#include "hfcore/backend.hpp"
#include "hfcore/errors.hpp"

namespace hf {

const BoundLikelihood::State& BoundLikelihood::state() const {
    if (!state_) throw InputError("", "data", "the likelihood is bound to no data (use Model::bind)");
    return *state_;
}

const Tensor& BoundLikelihood::data() const { return state().data->data(); }

BoundLikelihood BoundLikelihood::rows(const std::vector<std::int64_t>& rows) const {
    const State& s = state();
    const Tensor& data = s.data->data();
    if (data.ndim() != 2)
        throw InputError(s.source, "data", "rows of data bound as one row for every point (shape " +
                                               shape_str(data.shape()) + ")");
    for (std::int64_t r : rows)
        if (r < 0 || r >= data.dim(0))
            throw InputError(s.source, "data", "row " + std::to_string(r) + " of data with " +
                                                   std::to_string(data.dim(0)) + " rows");
    Backend& b = *s.backend;
    auto sub = std::make_shared<State>(s);
    sub->data = s.likelihood->bind_rows(*s.data, rows, b.gather(data, b.from_host_index(rows), 0));
    return BoundLikelihood(std::move(sub));
}

Tensor BoundLikelihood::logpdf(const Tensor& pars, Tensor* grad) const {
    const State& s = state();
    return s.likelihood->logpdf(pars, *s.data, grad);
}

double BoundLikelihood::logpdf(const std::vector<double>& pars, std::vector<double>* grad) const {
    const State& s = state();
    if (static_cast<std::int64_t>(pars.size()) != s.n_pars)
        throw InputError(s.source, "pars", std::to_string(pars.size()) + " parameter values, the model has " +
                                               std::to_string(s.n_pars));
    Backend& b = *s.backend;
    Tensor g;
    Tensor lp = s.likelihood->logpdf(b.from_host(pars, {1, s.n_pars}), *s.data, grad ? &g : nullptr);
    if (grad) *grad = b.to_host_double(g);
    return b.to_host_double(lp).at(0);
}

}  // namespace hf
