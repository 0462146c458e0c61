#include "infer/minimize/problem.hpp"
#include "infer/minimize/routines_on_fibers.hpp"

#include <algorithm>
#include <cmath>

#include "hfcore/backend.hpp"

namespace hf::infer::detail {

std::vector<double> parameter_scales(const Model& model) {
    std::vector<double> s(static_cast<std::size_t>(model.n_pars()), 1.0);
    for (const auto& ps : model.parameter_sets()) {
        for (std::int64_t i = 0; i < ps.n; ++i) {
            double w = 1.0;
            if (ps.constraint == "normal" && static_cast<std::size_t>(i) < ps.sigmas.size())
                w = ps.sigmas[i];
            else if (ps.constraint == "poisson" && static_cast<std::size_t>(i) < ps.factors.size() &&
                     ps.factors[i] > 0.0)
                w = 1.0 / std::sqrt(ps.factors[i]);
            if (!(w > 0.0) || !std::isfinite(w)) w = 1.0;
            // Never wider than the allowed range: a bounded free parameter moves in units of its range.
            if (static_cast<std::size_t>(i) < ps.bounds.size()) {
                double range = ps.bounds[i].second - ps.bounds[i].first;
                if (range > 0.0 && std::isfinite(range)) w = std::min(w, range);
            }
            s[static_cast<std::size_t>(ps.offset + i)] = w;
        }
    }
    return s;
}

Problem make_problem(const Model& model, const Tensor& data, const FitConfig& config) {
    return make_problem(model, data.defined() ? model.bind(data) : BoundLikelihood(), config);
}

Problem make_problem(const Model& model, const BoundLikelihood& lik, const FitConfig& config) {
    Problem p;
    p.model = &model;
    p.lik = lik;
    p.x0 = config.init;
    p.single_precision = model.backend()->precision() == Precision::f32;
    auto scales = parameter_scales(model);
    for (std::size_t i = 0; i < config.init.size(); ++i) {
        if (config.fixed[i]) continue;
        p.free.push_back(static_cast<int>(i));
        double s = scales[i];
        p.scale.push_back(s);
        p.lo.push_back((config.bounds[i].first - config.init[i]) / s);
        p.hi.push_back((config.bounds[i].second - config.init[i]) / s);
    }
    return p;
}

std::vector<double> Problem::to_x(const std::vector<double>& y) const {
    std::vector<double> x(x0.size());
    to_x(y, x.data());
    return x;
}

void Problem::to_x(const std::vector<double>& y, double* x) const {
    std::copy(x0.begin(), x0.end(), x);
    for (std::size_t i = 0; i < free.size(); ++i) {
        double yi = std::clamp(y[i], lo[i], hi[i]);
        double v = x0[free[i]] + scale[i] * yi;
        // Bounds hold exactly in x even after rounding (a gamma at 1e-10 must not become 9.9e-11).
        double xlo = x0[free[i]] + scale[i] * lo[i], xhi = x0[free[i]] + scale[i] * hi[i];
        if (yi <= lo[i]) v = xlo;
        if (yi >= hi[i]) v = xhi;
        x[free[i]] = v;
    }
}

std::vector<double> Problem::to_y(const std::vector<double>& x) const {
    std::vector<double> y(free.size());
    for (std::size_t i = 0; i < free.size(); ++i) y[i] = (x[free[i]] - x0[free[i]]) / scale[i];
    return y;
}

double Problem::nll(const std::vector<double>& y, std::vector<double>* grad_y) {
    auto x = to_x(y);
    ++n_eval;
    std::vector<double> gx;
    // The gradient-free path still evaluates the gradient (one upload, one download), as it always has.
    const double lp = lockstep ? lockstep->logpdf(x, &gx) : lik.logpdf(x, &gx);
    if (!grad_y) return -lp;
    grad_y->resize(free.size());
    for (std::size_t i = 0; i < free.size(); ++i) (*grad_y)[i] = -gx[free[i]] * scale[i];
    return -lp;
}

std::vector<double> Problem::nll_batch(const std::vector<std::vector<double>>& ys, std::vector<double>* grads) {
    if (lockstep) {
        std::vector<double> out;
        Lockstep* const ls = lockstep;
        lockstep = nullptr;  // the batch itself runs on the lockstep's thread
        ls->on_host([&] { out = nll_batch(ys, grads); });
        lockstep = ls;
        return out;
    }
    const std::int64_t k = static_cast<std::int64_t>(ys.size());
    const std::int64_t np = model->n_pars();
    std::vector<double> pars(static_cast<std::size_t>(k * np));
    for (std::int64_t j = 0; j < k; ++j) {
        auto x = to_x(ys[j]);
        std::copy(x.begin(), x.end(), pars.begin() + j * np);
    }
    n_eval += k;
    auto& be = *model->backend();
    Tensor pt = be.from_host(pars, {k, np});
    Tensor g;
    Tensor lp = lik.logpdf(pt, grads ? &g : nullptr);
    auto lph = be.to_host_double(lp);
    std::vector<double> out(static_cast<std::size_t>(k));
    for (std::int64_t j = 0; j < k; ++j) out[j] = -lph[j];
    if (grads) {
        auto gh = be.to_host_double(g);
        const std::size_t f = free.size();
        grads->assign(static_cast<std::size_t>(k) * f, 0.0);
        for (std::int64_t j = 0; j < k; ++j)
            for (std::size_t i = 0; i < f; ++i)
                (*grads)[j * f + i] = -gh[j * np + free[i]] * scale[i];
    }
    return out;
}

namespace {
void symmetrise(std::vector<double>& h, std::size_t f) {
    for (std::size_t i = 0; i < f; ++i)
        for (std::size_t j = i + 1; j < f; ++j) {
            double v = 0.5 * (h[i * f + j] + h[j * f + i]);
            h[i * f + j] = h[j * f + i] = v;
        }
}
}  // namespace

std::vector<double> Problem::hessian(const std::vector<double>& y) {
    const std::size_t f = free.size();
    std::vector<double> h(f * f, 0.0);
    if (f == 0) return h;
    // Steps in units of constraint widths: large enough to beat rounding in the gradient, small against the
    // curvature scale (one). Parameters sent to a 32b device are rounded to ~6e-8 relative.
    const double step = single_precision ? 3e-3 : 1e-5;
    std::vector<std::vector<double>> pts;
    std::vector<double> hplus(f), hminus(f);
    pts.reserve(2 * f);
    for (std::size_t j = 0; j < f; ++j) {
        // Never step outside the bounds: the likelihood may be undefined there (a gamma below zero).
        double sp = std::min(step, hi[j] - y[j]);
        double sm = std::min(step, y[j] - lo[j]);
        if (sp < 0.25 * step && sm < 0.25 * step) {  // a range narrower than the step
            sp = std::max(sp, 0.0);
            sm = std::max(sm, 0.0);
        } else if (sp < 0.25 * step) {
            sp = 0.0;
            sm = step;
        } else if (sm < 0.25 * step) {
            sm = 0.0;
            sp = step;
        }
        hplus[j] = sp;
        hminus[j] = sm;
        auto yp = y, ym = y;
        yp[j] += sp;
        ym[j] -= sm;
        pts.push_back(yp);
        pts.push_back(ym);
    }
    std::vector<double> grads;
    nll_batch(pts, &grads);
    for (std::size_t j = 0; j < f; ++j) {
        double d = hplus[j] + hminus[j];
        for (std::size_t i = 0; i < f; ++i) {
            double v = d > 0 ? (grads[(2 * j) * f + i] - grads[(2 * j + 1) * f + i]) / d : 0.0;
            h[i * f + j] = v;
        }
    }
    symmetrise(h, f);
    return h;
}

std::vector<double> Problem::hessian_forward(const std::vector<double>& y, const std::vector<double>& g) {
    const std::size_t f = free.size();
    std::vector<double> h(f * f, 0.0);
    if (f == 0) return h;
    const double step = single_precision ? 3e-3 : 1e-5;
    std::vector<std::vector<double>> pts(f, y);
    std::vector<double> steps(f);
    for (std::size_t j = 0; j < f; ++j) {
        // Step inward at an upper bound; a range narrower than the step is crossed as far as it goes.
        double s = std::min(step, hi[j] - y[j]);
        if (s < 0.25 * step) s = -std::min(step, y[j] - lo[j]);
        steps[j] = s;
        pts[j][j] += s;
    }
    std::vector<double> grads;
    nll_batch(pts, &grads);
    for (std::size_t j = 0; j < f; ++j)
        for (std::size_t i = 0; i < f; ++i) h[i * f + j] = steps[j] != 0.0 ? (grads[j * f + i] - g[i]) / steps[j] : 0.0;
    symmetrise(h, f);
    return h;
}

void project_gradient(const std::vector<double>& y, const std::vector<double>& g, const std::vector<double>& lo,
                      const std::vector<double>& hi, std::vector<double>& pg) {
    pg.resize(g.size());
    for (std::size_t i = 0; i < g.size(); ++i) {
        bool at_lo = y[i] <= lo[i] && g[i] > 0.0;
        bool at_hi = y[i] >= hi[i] && g[i] < 0.0;
        pg[i] = (at_lo || at_hi) ? 0.0 : g[i];
    }
}

}  // namespace hf::infer::detail
