// d twice_nll / d inputs at a point: on the model's backend (fused_input_grad.hpp: the fused likelihood's terms or
// Tier 1 ops), or one reverse sweep of the traced likelihood on the host tape (evaluate.hpp), the reference.
#include <cmath>

#include "grad/evaluate.hpp"
#include "grad/fused_input_grad.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/grad.hpp"

namespace hf::grad_detail {

// Recurrence up to x >= 6, then the asymptotic series (error below 1e-15 there).
double digamma(double x) {
    double r = 0.0;
    while (x < 6.0) r -= 1.0 / x, x += 1.0;
    const double f = 1.0 / (x * x);
    return r + std::log(x) - 0.5 / x -
           f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
}

double trigamma(double x) {
    double r = 0.0;
    while (x < 6.0) r += 1.0 / (x * x), x += 1.0;
    const double f = 1.0 / (x * x);
    return r + 1.0 / x + 0.5 * f + (1.0 / x) * f * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f * (1.0 / 30))));
}

std::vector<Var> inputs_on_tape(const std::vector<double>& x) {
    std::vector<Var> v;
    v.reserve(x.size());
    for (double a : x) v.push_back(Var::input(a));
    return v;
}

std::vector<double> adjoints_of(const std::vector<Var>& v, const std::vector<double>& adj) {
    std::vector<double> out(v.size(), 0.0);
    for (std::size_t i = 0; i < v.size(); ++i)
        if (v[i].id >= 0) out[i] = adj[static_cast<std::size_t>(v[i].id)];
    return out;
}

void check_sizes(const Structure& s, const std::vector<double>& pars, const std::vector<double>& main_data) {
    if (static_cast<std::int64_t>(pars.size()) != s.n_pars)
        throw InputError("grad", "pars", "pars has " + std::to_string(pars.size()) + " entries, the model " +
                                             std::to_string(s.n_pars) + " parameters");
    if (static_cast<std::int64_t>(main_data.size()) != s.n_main)
        throw InputError("grad", "data",
                         "main data has " + std::to_string(main_data.size()) + " entries, the model " +
                             std::to_string(s.n_main) + " main bins (the aux data are the model's own)");
}

}  // namespace hf::grad_detail

namespace hf::grad {

using namespace grad_detail;

const char* engine_name(Engine e) {
    switch (e) {
        case Engine::automatic: return "automatic";
        case Engine::backend: return "backend";
        case Engine::host_tape: return "host_tape";
    }
    return "?";
}

LikelihoodGradient twice_nll_gradient(const ModelSpec& spec, const Model& model, const std::vector<double>& pars,
                                      const std::vector<double>& main_data, Engine engine) {
    const Structure s = trace_structure(spec, model);
    check_sizes(s, pars, main_data);
    if (engine != Engine::host_tape) {
        std::string route;
        BackendGradients r = backend_twice_nll(model, s, flatten_inputs(spec), pars, 1, main_data, &route);
        return {r.value.at(0), Engine::backend, std::move(r.d_inputs), std::move(r.d_pars), std::move(r.d_main),
                std::move(route)};
    }
    TapeScope scope;
    const auto y = inputs_on_tape(flatten_inputs(spec));
    const auto p = inputs_on_tape(pars);
    const auto n = inputs_on_tape(main_data);
    const auto aux = model_aux(s, y.data());
    const Var f = twice_nll(s, y.data(), p.data(), n.data(), aux.data());
    const auto adj = scope.tape.backward(f.id);
    return {f.v, Engine::host_tape, adjoints_of(y, adj), adjoints_of(p, adj), adjoints_of(n, adj), "host tape"};
}

LikelihoodGradient logpdf_gradient(const ModelSpec& spec, const Model& model, const std::vector<double>& pars,
                                   const std::vector<double>& main_data, Engine engine) {
    LikelihoodGradient g = twice_nll_gradient(spec, model, pars, main_data, engine);
    g.value *= -0.5;
    for (auto* v : {&g.d_inputs, &g.d_pars, &g.d_main_data})
        for (double& x : *v) x *= -0.5;
    return g;
}

}  // namespace hf::grad
