// FusedLikelihood's default Jacobian of the expected main rates: central differences of its own expected_main,
// for likelihoods whose kernels do not return the derivatives (the cpu plugin's do).
#include <algorithm>
#include <cmath>

#include "hfcore/errors.hpp"
#include "hfcore/plugin/likelihood.hpp"

namespace hf {

Tensor FusedLikelihood::expected_main_jacobian(const Tensor& pars) {
    if (!pars.defined() || pars.ndim() < 1 || pars.ndim() > 2)
        throw ShapeError("expected_main_jacobian: pars must be [P] or [K, P]");
    Backend& be = pars.backend();
    const std::int64_t P = pars.dim(pars.ndim() - 1);
    const std::int64_t K = pars.ndim() == 2 ? pars.dim(0) : 1;
    if (P == 0 || K == 0) {
        const std::int64_t N = expected_main(pars).dim(1);
        return be.from_host(std::vector<double>{}, {K, N, P});
    }
    const std::vector<double> x = be.to_host_double(pars);
    // Steps near the cube root of the precision's epsilon (truncation ~h^2, rounding ~eps / h): 1e-5 relative
    // at 64b, 1e-2 at 32b. The steps are taken between the points as the backend holds them (rounded to its
    // precision), not as asked.
    const bool f32 = be.float_dtype() == DType::f32;
    const double rel = f32 ? 1e-2 : 1e-5;
    auto held = [f32](double v) { return f32 ? static_cast<double>(static_cast<float>(v)) : v; };
    std::vector<double> pts(static_cast<std::size_t>(K * 2 * P * P)), h(static_cast<std::size_t>(K * P));
    for (std::int64_t k = 0; k < K; ++k)
        for (std::int64_t p = 0; p < P; ++p) {
            const double* xk = x.data() + k * P;
            const double step = rel * std::max(1.0, std::fabs(xk[p]));
            double* up = pts.data() + ((k * P + p) * 2) * P;
            double* down = up + P;
            for (std::int64_t i = 0; i < P; ++i) up[i] = down[i] = held(xk[i]);
            up[p] = held(xk[p] + step);
            down[p] = held(xk[p] - step);
            h[static_cast<std::size_t>(k * P + p)] = up[p] - down[p];
        }
    const std::vector<double> lam = be.to_host_double(expected_main(be.from_host(pts, {K * 2 * P, P})));
    const std::int64_t N = static_cast<std::int64_t>(lam.size()) / (K * 2 * P);
    std::vector<double> jac(static_cast<std::size_t>(K * N * P));
    for (std::int64_t k = 0; k < K; ++k)
        for (std::int64_t p = 0; p < P; ++p) {
            const double* up = lam.data() + ((k * P + p) * 2) * N;
            const double* down = up + N;
            const double step = h[static_cast<std::size_t>(k * P + p)];
            for (std::int64_t b = 0; b < N; ++b)
                jac[static_cast<std::size_t>((k * N + b) * P + p)] = (up[b] - down[b]) / step;
        }
    return be.from_host(jac, {K, N, P});
}

}  // namespace hf
