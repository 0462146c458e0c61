#include "hfcore/tensorlib.hpp"

#include <cmath>

namespace hf::tl {

Tensor poisson_const(const Tensor& n) {
    // Same branches and series as hf_poisson_const in plugins/shared/hf_likelihood_math.h.
    Tensor big = cmp(BinaryOp::ge, n, 15.0);
    Tensor pos = cmp(BinaryOp::gt, n, 0.0);
    Tensor safe = where(pos, n, scalar_like(n, 1.0));
    Tensor direct = sub(sub(mul(n, log(safe)), n), lgamma(add(n, 1.0)));
    Tensor r = divide(scalar_like(n, 1.0), safe), r2 = mul(r, r);
    Tensor series = mul(r, sub(scalar_like(n, 1.0 / 12),
                               mul(r2, sub(scalar_like(n, 1.0 / 360),
                                           mul(r2, sub(scalar_like(n, 1.0 / 1260), mul(r2, 1.0 / 1680)))))));
    Tensor stirling = sub(mul(log(mul(safe, 6.283185307179586477)), -0.5), series);
    return where(pos, where(big, stirling, direct), scalar_like(n, 0.0));
}

Tensor percentile(const Tensor& x, double q) {
    if (x.ndim() == 0 || x.dim(-1) == 0) throw ShapeError("percentile: empty tensor");
    if (!(q >= 0 && q <= 100)) throw ShapeError("percentile: q must lie in [0, 100]");
    Backend& b = B(x);
    Tensor sorted = b.sort(x, -1);
    const std::int64_t n = x.dim(-1);
    const double pos = q / 100.0 * static_cast<double>(n - 1);
    const auto lo = static_cast<std::int64_t>(std::floor(pos));
    const std::int64_t hi = std::min<std::int64_t>(lo + 1, n - 1);
    const double frac = pos - static_cast<double>(lo);
    Tensor vlo = b.gather(sorted, b.from_host_index({lo}), -1);
    Tensor vhi = b.gather(sorted, b.from_host_index({hi}), -1);
    Tensor r = add(vlo, mul(sub(vhi, vlo), frac));
    Shape s = x.shape();
    s.pop_back();
    return r.reshape(s);
}

}  // namespace hf::tl
