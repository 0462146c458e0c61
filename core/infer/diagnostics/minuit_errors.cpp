// Uncertainties as Minuit reports them for parameters with limits (UncertaintyConvention::minuit), from the
// Hessian in the parameters themselves: Minuit's internal variable p with x = X(p) (Minuit2's sin and sqrt
// parameter transformations), its Hessian d2F/dp2 = J H J + diag(g X''(p)) (J = X'(p), g = dF/dx), the
// internal error e = sqrt((d2F/dp2)^-1)_ii, and the reported error 0.5 (|X(p+e) - X(p)| + |X(p-e) - X(p)|).
#include <algorithm>
#include <cmath>

#include "hfcore/backend.hpp"
#include "infer/diagnostics/parameter_lookup.hpp"
#include "numerics/dense.hpp"

namespace hf::infer {

namespace {

// One parameter's Minuit transformation (identity without limits).
struct Transformation {
    enum Kind { none, sine, sqrt_low, sqrt_up } kind = none;
    double lo = 0.0, hi = 0.0;

    Transformation(double l, double h) : lo(l), hi(h) {
        const bool fl = std::isfinite(l), fh = std::isfinite(h);
        kind = fl && fh ? sine : fl ? sqrt_low : fh ? sqrt_up : none;
    }
    double to_internal(double x) const {
        switch (kind) {
            case sine: return std::asin(std::clamp(2.0 * (x - lo) / (hi - lo) - 1.0, -1.0, 1.0));
            case sqrt_low: return std::sqrt(std::max((x - lo + 1.0) * (x - lo + 1.0) - 1.0, 0.0));
            case sqrt_up: return std::sqrt(std::max((hi - x + 1.0) * (hi - x + 1.0) - 1.0, 0.0));
            default: return x;
        }
    }
    double to_external(double p) const {
        switch (kind) {
            case sine: return lo + 0.5 * (hi - lo) * (std::sin(p) + 1.0);
            case sqrt_low: return lo - 1.0 + std::sqrt(p * p + 1.0);
            case sqrt_up: return hi + 1.0 - std::sqrt(p * p + 1.0);
            default: return p;
        }
    }
    double first(double p) const {  // dX/dp
        switch (kind) {
            case sine: return 0.5 * (hi - lo) * std::cos(p);
            case sqrt_low: return p / std::sqrt(p * p + 1.0);
            case sqrt_up: return -p / std::sqrt(p * p + 1.0);
            default: return 1.0;
        }
    }
    double second(double p) const {  // d2X/dp2
        switch (kind) {
            case sine: return -0.5 * (hi - lo) * std::sin(p);
            case sqrt_low: return std::pow(p * p + 1.0, -1.5);
            case sqrt_up: return -std::pow(p * p + 1.0, -1.5);
            default: return 0.0;
        }
    }
};

}  // namespace

ReportedUncertainties minuit_uncertainties(const Model& model, const std::vector<double>& data, const FitResult& fit,
                                           const FitConfig& config) {
    const auto np = static_cast<std::size_t>(model.n_pars());
    if (fit.bestfit.size() != np || fit.uncertainties.size() != np || fit.correlations.size() != np * np)
        throw InputError("uncertainties", "fit", "the fit result needs uncertainties and correlations of all " +
                                                     std::to_string(np) + " parameters (FitOptions::uncertainties)");
    const FitConfig cfg = config.resolved(model);
    ReportedUncertainties out;
    out.uncertainties.assign(np, 0.0);
    out.correlations.assign(np * np, 0.0);
    for (std::size_t i = 0; i < np; ++i) out.correlations[i * np + i] = 1.0;
    std::vector<std::size_t> free;
    for (std::size_t i = 0; i < np; ++i)
        if (!cfg.fixed[i] && fit.uncertainties[i] > 0.0 && std::isfinite(fit.uncertainties[i])) free.push_back(i);
    const std::size_t n = free.size();
    if (n == 0) return out;

    // The Hessian of the NLL in x over the free parameters, from the fit's covariance.
    std::vector<double> cov(n * n), factor;
    for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = 0; b < n; ++b)
            cov[a * n + b] = fit.uncertainties[free[a]] * fit.uncertainties[free[b]] *
                             (a == b ? 1.0 : fit.correlations[free[a] * np + free[b]]);
    numerics::shifted_cholesky(cov, n, factor);
    const auto hess = numerics::cholesky_inverse(factor, n);
    std::vector<double> grad;
    model.bind(data).logpdf(fit.bestfit, &grad);

    std::vector<Transformation> tr;
    std::vector<double> p(n), jac(n);
    for (std::size_t a = 0; a < n; ++a) {
        tr.emplace_back(cfg.bounds[free[a]].first, cfg.bounds[free[a]].second);
        p[a] = tr[a].to_internal(fit.bestfit[free[a]]);
        jac[a] = tr[a].first(p[a]);
    }
    std::vector<double> hint(n * n);
    for (std::size_t a = 0; a < n; ++a) {
        for (std::size_t b = 0; b < n; ++b) hint[a * n + b] = jac[a] * hess[a * n + b] * jac[b];
        hint[a * n + a] += -grad[free[a]] * tr[a].second(p[a]);  // dNLL/dx = -dlogpdf/dx
    }
    numerics::shifted_cholesky(hint, n, factor);
    const auto cint = numerics::cholesky_inverse(factor, n);
    std::vector<double> e(n);
    for (std::size_t a = 0; a < n; ++a) {
        e[a] = std::sqrt(std::max(cint[a * n + a], 0.0));
        const double x = tr[a].to_external(p[a]);
        out.uncertainties[free[a]] =
            0.5 * (std::fabs(tr[a].to_external(p[a] + e[a]) - x) + std::fabs(tr[a].to_external(p[a] - e[a]) - x));
    }
    // Minuit's external covariance is J C_int J: its correlations are the internal ones up to the signs of J.
    for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = 0; b < n; ++b) {
            if (a == b) continue;
            const double sign = (jac[a] < 0) != (jac[b] < 0) ? -1.0 : 1.0;
            out.correlations[free[a] * np + free[b]] = e[a] > 0 && e[b] > 0 ? sign * cint[a * n + b] / (e[a] * e[b]) : 0.0;
        }
    return out;
}

namespace detail {

ReportedUncertainties reported_uncertainties(const Model& model, const std::vector<double>& data, const FitResult& fit,
                                             const FitConfig& config, UncertaintyConvention convention) {
    if (convention == UncertaintyConvention::minuit) return minuit_uncertainties(model, data, fit, config);
    return {fit.uncertainties, fit.correlations};
}

}  // namespace detail

}  // namespace hf::infer
