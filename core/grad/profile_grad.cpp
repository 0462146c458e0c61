// Gradients of profiled quantities with respect to the inputs, by implicit differentiation at the fitted minima
// (docs/differentiable.md). At a minimum theta*(y) of f(theta, y) the parameters' own term of d f(theta*, y) / dy
// vanishes (or the parameter is held), so a profiled twice_nll needs partial_y f alone. The Asimov data
// A(y) = expected(theta0*(y), y) move with their fit's minimum as well: d theta0* / dy = -H^-1 d(grad_theta f)/dy
// on the free parameters (H: the Hessian of the free block), whose product with a row vector u is
// -d/dy (v . grad_theta f) with v = H^-1 u: one forward-over-reverse sweep (autodiff.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>

#include "grad/evaluate.hpp"
#include "grad/fused_input_grad.hpp"
#include "infer/minimize/problem.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/grad.hpp"
#include "numerics/dense.hpp"

namespace hf::grad_detail {
std::vector<Var> inputs_on_tape(const std::vector<double>& x);
std::vector<double> adjoints_of(const std::vector<Var>& v, const std::vector<double>& adj);
void check_sizes(const Structure& s, const std::vector<double>& pars, const std::vector<double>& main_data);
}  // namespace hf::grad_detail

namespace hf::grad {

using namespace grad_detail;

const char* status_name(Status s) {
    switch (s) {
        case Status::ok: return "ok";
        case Status::not_converged: return "not_converged";
        case Status::singular_hessian: return "singular_hessian";
    }
    return "?";
}

namespace {

using DV = Dual<Var>;

std::vector<double> with_aux(const Model& model, const std::vector<double>& main_data) {
    auto data = main_data;
    const auto aux = model.auxdata();
    data.insert(data.end(), aux.begin(), aux.end());
    return data;
}

// Parameters held at a minimum: fixed, the POI when `poi_held`, and those at a bound.
std::vector<bool> held_parameters(const Model& model, const infer::FitConfig& cfg, const std::vector<double>& pars,
                                  bool poi_held) {
    std::vector<bool> held(pars.size(), false);
    for (std::size_t i = 0; i < pars.size(); ++i) {
        const auto [lo, hi] = cfg.bounds[i];
        const double tol = 1e-7 * (hi - lo);
        held[i] = cfg.fixed[i] || pars[i] <= lo + tol || pars[i] >= hi - tol;
    }
    if (poi_held && model.poi_index() >= 0) held[static_cast<std::size_t>(model.poi_index())] = true;
    return held;
}

std::vector<std::string> names_of(const Model& model, const std::vector<bool>& held) {
    std::vector<std::string> out;
    const auto names = model.par_names();
    for (std::size_t i = 0; i < held.size(); ++i)
        if (held[i]) out.push_back(names[i]);
    return out;
}

std::vector<double> joined(std::vector<double> a, const std::vector<double>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// (partial_y, partial_n) of f(pars_a) - f(pars_b) (pars_b may be empty: f(pars_a) alone), observed main data, the
// model's aux: both points in one evaluation on the model's backend (fused_input_grad.hpp).
std::vector<double> partial_inputs(const Model& model, const Structure& s, const std::vector<double>& y0,
                                   const std::vector<double>& pa, const std::vector<double>* pb,
                                   const std::vector<double>& main_data, Engine engine, std::string* route,
                                   const FusedInputGradient* fused) {
    if (engine == Engine::host_tape) {
        TapeScope scope;
        const auto y = inputs_on_tape(y0);
        const auto n = inputs_on_tape(main_data);
        const auto aux = model_aux(s, y.data());
        const std::vector<Var> a(pa.begin(), pa.end());
        Var f = twice_nll(s, y.data(), a.data(), n.data(), aux.data());
        if (pb) {
            const std::vector<Var> b(pb->begin(), pb->end());
            f = f - twice_nll(s, y.data(), b.data(), n.data(), aux.data());
        }
        const auto adj = scope.tape.backward(f.id);
        if (route) *route = "host tape";
        return joined(adjoints_of(y, adj), adjoints_of(n, adj));
    }
    const std::vector<double> pars = pb ? joined(pa, *pb) : pa;
    const BackendGradients r = backend_twice_nll(model, s, y0, pars, pb ? 2 : 1, main_data, route, fused);
    const std::size_t ny = y0.size(), nn = main_data.size();
    std::vector<double> out = joined(std::vector<double>(r.d_inputs.begin(), r.d_inputs.begin() + ny),
                                     std::vector<double>(r.d_main.begin(), r.d_main.begin() + nn));
    if (pb) {
        for (std::size_t i = 0; i < ny; ++i) out[i] -= r.d_inputs[ny + i];
        for (std::size_t i = 0; i < nn; ++i) out[ny + i] -= r.d_main[nn + i];
    }
    return out;
}

// q_A = f(fixed; A, A_aux) - f(free; A, A_aux) on the Asimov data A(y) = expected(theta0, y), main and aux, with
// the fits to A held: its direct term d q_A / d(y, n) (n, the observed data, do not enter: 0) and u = d q_A /
// d theta0. On the fused route: the partial at fixed data of both fits' points in one evaluation, whose d / d data
// is the cotangent of the expected data's vector-Jacobian product at theta0 (the same reverse pass); else one
// sweep of the host tape, the reference. *route names the one that ran.
std::pair<std::vector<double>, std::vector<double>> asimov_direct_term(const Structure& s,
                                                                       const std::vector<double>& y0,
                                                                       const infer::HypotestResult& r,
                                                                       std::size_t n_main, Engine engine,
                                                                       std::string* route,
                                                                       const FusedInputGradient& fused) {
    const std::size_t ny = y0.size(), N = static_cast<std::size_t>(s.n_main), A = static_cast<std::size_t>(s.n_aux);
    if (engine != Engine::host_tape) {
        const auto& th0 = r.asimov_pars;
        const std::vector<double> asimov =
            joined(expected_main(s, y0.data(), th0.data()), expected_aux(s, y0.data(), th0.data()));
        const auto at = fused.at_data(joined(r.fixed_poi_fit_to_asimov, r.free_fit_to_asimov), 2, asimov);
        if (at) {
            std::vector<double> cot_main(N), cot_aux(A);
            for (std::size_t b = 0; b < N; ++b) cot_main[b] = at->d_main[b] - at->d_main[N + b];
            for (std::size_t a = 0; a < A; ++a) cot_aux[a] = at->d_aux[a] - at->d_aux[A + a];
            const auto vjp = fused.expected_data_vjp(th0, cot_main, cot_aux);
            if (vjp) {
                std::vector<double> d(ny + n_main, 0.0);
                for (std::size_t i = 0; i < ny; ++i) d[i] = at->d_inputs[i] - at->d_inputs[ny + i] + vjp->d_inputs[i];
                if (route) *route = fused.route();
                return {std::move(d), vjp->d_pars};
            }
        }
    }
    TapeScope scope;
    const auto y = inputs_on_tape(y0);
    const auto th0 = inputs_on_tape(r.asimov_pars);
    const auto Am = expected_main(s, y.data(), th0.data());
    const auto Aaux = expected_aux(s, y.data(), th0.data());
    const std::vector<Var> fixed(r.fixed_poi_fit_to_asimov.begin(), r.fixed_poi_fit_to_asimov.end());
    const std::vector<Var> free(r.free_fit_to_asimov.begin(), r.free_fit_to_asimov.end());
    const Var q = twice_nll(s, y.data(), fixed.data(), Am.data(), Aaux.data()) -
                  twice_nll(s, y.data(), free.data(), Am.data(), Aaux.data());
    const auto adj = scope.tape.backward(q.id);
    if (route) *route = "host tape";
    return {joined(adjoints_of(y, adj), std::vector<double>(n_main, 0.0)), adjoints_of(th0, adj)};
}

// One forward-over-reverse sweep of f = twice_nll(theta, y; observed main, model aux) along direction v:
// returns (H v, d/d(y, n) (v . grad_theta f)).
// With `hessian_only` the inputs and data are constants on the tape (a Hessian row needs no d/dy: a much
// smaller tape) and the second result is empty.
std::pair<std::vector<double>, std::vector<double>> mixed_sweep(const Structure& s, const std::vector<double>& y0,
                                                                const std::vector<double>& theta,
                                                                const std::vector<double>& v,
                                                                const std::vector<double>& main_data,
                                                                bool hessian_only = false) {
    TapeScope scope;
    std::vector<DV> y, p, n;
    std::vector<Var> yv, pv, nv;
    for (double a : main_data) {
        nv.push_back(hessian_only ? Var(a) : Var::input(a));
        n.push_back(DV(nv.back(), Var(0.0)));
    }
    for (double a : y0) {
        yv.push_back(hessian_only ? Var(a) : Var::input(a));
        y.push_back(DV(yv.back(), Var(0.0)));
    }
    for (std::size_t i = 0; i < theta.size(); ++i) {
        pv.push_back(Var::input(theta[i]));
        p.push_back(DV(pv.back(), Var(v[i])));
    }
    const auto aux = model_aux(s, y.data());
    const DV f = twice_nll(s, y.data(), p.data(), n.data(), aux.data());
    const auto adj = scope.tape.backward(f.d.id);
    if (hessian_only) return {adjoints_of(pv, adj), {}};
    return {adjoints_of(pv, adj), joined(adjoints_of(yv, adj), adjoints_of(nv, adj))};
}

// Solves H x = b on the free block; false when H is not positive definite, also numerically (a pivot below
// 1e-14 of its diagonal: a flat direction that rounding left barely positive).
bool solve_spd(const std::vector<double>& H, std::size_t n, std::vector<double>& x) {
    std::vector<double> L = H;
    if (!numerics::cholesky(L, n)) return false;
    for (std::size_t j = 0; j < n; ++j)
        if (!(L[j * n + j] * L[j * n + j] > 1e-14 * std::max(1.0, std::abs(H[j * n + j])))) return false;
    x = numerics::cholesky_solve(L, n, x);
    return true;
}

// H_FF of twice_nll at `pars` (observed main data, the model's aux) on the parameters F that are not held. At 64b
// from the engine's analytic gradients by central differences, all 2|F| points in one batched evaluation (the
// fits' own Hessian, infer/minimize/problem.hpp): its error, ~1e-10 relative, is far below what the gradients are checked
// to. At 32b the device's rounding would dominate that difference, so each row is an exact forward-over-reverse
// sweep on the host instead (|F| tapes: the cost of the hypotest's gradient).
std::vector<double> free_block_hessian(const Structure& s, const Model& model, const std::vector<double>& data,
                                       infer::FitConfig cfg, const std::vector<bool>& held,
                                       const std::vector<double>& pars, const std::vector<double>& y0,
                                       const std::vector<double>& main_data, const std::vector<std::size_t>& F) {
    const std::size_t nf = F.size();
    std::vector<double> H(nf * nf);
    if (model.backend()->precision() == Precision::f64) {
        for (std::size_t i = 0; i < pars.size(); ++i) {
            cfg.fixed[i] = held[i];
            cfg.init[i] = pars[i];
        }
        infer::detail::Problem p = infer::detail::make_problem(model, model.bind(data), cfg);
        if (p.free.size() == nf) {
            const auto hy = p.hessian(std::vector<double>(nf, 0.0));
            for (std::size_t a = 0; a < nf; ++a)
                for (std::size_t b = 0; b < nf; ++b) H[a * nf + b] = 2.0 * hy[a * nf + b] / (p.scale[a] * p.scale[b]);
            return H;
        }
    }
    for (std::size_t a = 0; a < nf; ++a) {
        std::vector<double> e(pars.size(), 0.0);
        e[F[a]] = 1.0;
        const auto hv = mixed_sweep(s, y0, pars, e, main_data, true).first;
        for (std::size_t b = 0; b < nf; ++b) H[a * nf + b] = hv[F[b]];
    }
    return H;
}

double normal_pdf(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2.0 * 3.14159265358979323846); }

std::vector<double> scaled(const std::vector<double>& a, double ca, const std::vector<double>& b = {}, double cb = 0) {
    std::vector<double> out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) out[i] = ca * a[i] + (b.empty() ? 0.0 : cb * b[i]);
    return out;
}

}  // namespace

ProfiledGradient profiled_twice_nll_gradient(const ModelSpec& spec, const Model& model,
                                             const std::vector<double>& main_data, const double* poi_value,
                                             const infer::FitConfig& config, const infer::FitOptions& options) {
    const Structure s = trace_structure(spec, model);
    check_sizes(s, model.suggested_init(), main_data);
    const auto data = with_aux(model, main_data);
    const infer::FitConfig cfg = config.resolved(model);
    const infer::FitResult r = poi_value ? infer::fixed_poi_fit(*poi_value, model, data, cfg, options)
                                         : infer::fit(model, data, cfg, options);
    ProfiledGradient out;
    out.twice_nll = r.twice_nll;
    out.bestfit = r.bestfit;
    out.held = names_of(model, held_parameters(model, cfg, r.bestfit, poi_value != nullptr));
    if (!r.converged) {
        out.status = Status::not_converged;
        out.reason = "the fit did not converge: " + r.reason;
        return out;
    }
    out.d_inputs = partial_inputs(model, s, flatten_inputs(spec), r.bestfit, nullptr, main_data, Engine::automatic,
                                  &out.route, nullptr);
    out.d_inputs.resize(flatten_inputs(spec).size());
    return out;
}

HypotestGradient hypotest_gradient(double poi_test, const ModelSpec& spec, const Model& model,
                                   const std::vector<double>& main_data, const infer::HypotestOptions& options,
                                   Engine engine) {
    if (options.calctype != infer::CalcType::asymptotics || options.calc_base_dist != infer::BaseDist::normal)
        throw InputError("grad", "calctype",
                         "gradients of the hypotest are given for the asymptotic calculator with the normal base "
                         "distribution only");
    const Structure s = trace_structure(spec, model);
    check_sizes(s, model.suggested_init(), main_data);
    const auto y0 = flatten_inputs(spec);
    const auto data = with_aux(model, main_data);
    const bool q0 = options.test_stat == infer::TestStat::q0;
    // Gradients below run over (inputs, main data) and are split at the end.
    const std::size_t n_in = y0.size() + main_data.size();

    infer::AsymptoticCalculator calc(model, data, options);
    const double t = calc.teststatistic(poi_test);
    const auto pv = calc.pvalues(t);
    const auto ev = calc.expected_pvalues();
    HypotestGradient g;
    g.result = calc.details();
    const infer::HypotestResult& r = g.result;
    g.q_obs = r.q_obs, g.q_asimov = r.q_asimov;
    g.CLsb_obs = pv[0], g.CLb_obs = pv[1];
    g.obs = q0 ? pv[0] : pv[2];
    for (int i = 0; i < 5; ++i) g.exp[static_cast<std::size_t>(i)] = q0 ? ev[i][0] : ev[i][2];

    const infer::FitConfig cfg = options.config.resolved(model);
    const auto held = held_parameters(model, cfg, r.asimov_pars, true);
    g.held = names_of(model, held);
    if (!r.converged) {
        g.status = Status::not_converged;
        g.reason = "a fit of the hypotest did not converge";
        return g;
    }

    // The fused route's map of the packed likelihood to the inputs, for the three evaluations below.
    const FusedInputGradient fused(model, s, y0);

    // q_obs: the fixed and the free fit to the observed data.
    if (g.q_obs > 0)
        g.d_q_obs = partial_inputs(model, s, y0, r.fixed_poi_fit_to_data, &r.free_fit_to_data, main_data, engine,
                                   &g.route_obs, &fused);
    else {
        g.d_q_obs.assign(n_in, 0.0);
        g.notes.push_back("q_obs is clipped at 0: its gradient is that of the flat branch (0)");
    }

    // q_A on the Asimov data A(y) = expected(theta0, y): direct term with theta0 held, and u = d q_A / d theta0.
    g.d_q_asimov.assign(n_in, 0.0);
    if (g.q_asimov > 0) {
        std::vector<double> u;
        std::tie(g.d_q_asimov, u) = asimov_direct_term(s, y0, r, main_data.size(), engine, &g.route_asimov, fused);
        // The free block of the Asimov fit's Hessian.
        std::vector<std::size_t> F;
        for (std::size_t i = 0; i < held.size(); ++i)
            if (!held[i]) F.push_back(i);
        const std::size_t nf = F.size();
        if (nf > 0) {
            const auto H = free_block_hessian(s, model, data, cfg, held, r.asimov_pars, y0, main_data, F);
            std::vector<double> x(nf);
            for (std::size_t a = 0; a < nf; ++a) x[a] = u[F[a]];
            if (!solve_spd(H, nf, x)) {
                g.status = Status::singular_hessian;
                g.reason = "the Hessian of the Asimov fit (POI fixed at " + std::string(q0 ? "1" : "0") +
                           ") is not positive definite on its free parameters";
                g.d_q_obs.clear(), g.d_q_asimov.clear();
                return g;
            }
            std::vector<double> v(r.asimov_pars.size(), 0.0);
            for (std::size_t a = 0; a < nf; ++a) v[F[a]] = x[a];
            const auto w = mixed_sweep(s, y0, r.asimov_pars, v, main_data).second;
            for (std::size_t k = 0; k < n_in; ++k) g.d_q_asimov[k] -= w[k];
        }
    } else if (!(poi_test == 0.0 && !q0)) {
        g.notes.push_back("q_asimov is clipped at 0: its gradient is that of the flat branch (0)");
    }

    // The p-values as functions of q and q_A (infer/asymptotic.cpp).
    const double sq = std::sqrt(g.q_obs), sqA = std::sqrt(g.q_asimov);
    const std::vector<double> d_sq = sq > 0 ? scaled(g.d_q_obs, 0.5 / sq) : std::vector<double>(n_in, 0.0);
    const std::vector<double> d_sqA = sqA > 0 ? scaled(g.d_q_asimov, 0.5 / sqA) : std::vector<double>(n_in, 0.0);
    std::vector<double> d_t;
    if (options.test_stat != infer::TestStat::qtilde || sq <= sqA || sqA == 0.0) {
        d_t = scaled(d_sq, 1.0, d_sqA, -1.0);
    } else {
        d_t = scaled(g.d_q_obs, 0.5 / sqA, g.d_q_asimov, -0.5 / sqA);
        const auto corr = scaled(d_sqA, -(g.q_obs - g.q_asimov) / (2.0 * g.q_asimov));
        for (std::size_t k = 0; k < n_in; ++k) d_t[k] += corr[k];
    }
    const double psb = normal_pdf(t + sqA), pb = normal_pdf(t);
    g.d_CLsb_obs = scaled(d_t, -psb, d_sqA, -psb);
    g.d_CLb_obs = scaled(d_t, -pb);
    std::vector<double> d_cls(n_in, 0.0);
    if (sqA > 0) d_cls = scaled(g.d_CLsb_obs, 1.0 / g.CLb_obs, g.d_CLb_obs, -pv[2] / g.CLb_obs);
    g.d_obs = q0 ? g.d_CLsb_obs : d_cls;
    const double nsigma[5] = {2, 1, 0, -1, -2};
    for (int i = 0; i < 5; ++i) {
        const double dsb = -normal_pdf(nsigma[i] + sqA);  // d CLsb_exp / d sqrt(q_A); CLb_exp is fixed
        const double clb = infer::normal_sf(nsigma[i]);
        g.d_exp[static_cast<std::size_t>(i)] = scaled(d_sqA, q0 ? dsb : (sqA > 0 ? dsb / clb : 0.0));
    }
    const auto split = [&](std::vector<double>& full, std::vector<double>& data_part) {
        data_part.assign(full.begin() + static_cast<std::ptrdiff_t>(y0.size()), full.end());
        full.resize(y0.size());
    };
    split(g.d_q_obs, g.d_q_obs_data);
    split(g.d_q_asimov, g.d_q_asimov_data);
    split(g.d_obs, g.d_obs_data);
    split(g.d_CLsb_obs, g.d_CLsb_obs_data);
    split(g.d_CLb_obs, g.d_CLb_obs_data);
    for (std::size_t i = 0; i < 5; ++i) split(g.d_exp[i], g.d_exp_data[i]);
    return g;
}

}  // namespace hf::grad
