// Random numbers of the cpu plugin: the shared Philox text (plugins/shared/philox.h), included once per
// precision so that float tensors draw exactly what the GPU plugins draw in 32b.
#include <cmath>
#include <cstdint>

#include "backend.hpp"
#include "philox_host.hpp"

namespace hf::cpu {

namespace rng64 = hf::philox64;
namespace rng32 = hf::philox32;

namespace {

template <class R, class U>
void fill_typed(RandomDist dist, const Tensor& rate, std::uint64_t seed, std::uint64_t offset, U* o, std::int64_t n) {
    if (dist == RandomDist::poisson) {
        dispatch(rate.dtype(), [&](auto tr) {
            using T = typename decltype(tr)::type;
            const T* lam = data_of<T>(rate);
            for (std::int64_t i = 0; i < n; ++i) {
                const std::uint64_t c = offset + static_cast<std::uint64_t>(i);
                if constexpr (std::is_same_v<R, float>)
                    o[i] = convert<U>(rng32::hf_random_poisson(seed, c, static_cast<float>(lam[i])));
                else
                    o[i] = convert<U>(rng64::hf_random_poisson(seed, c, static_cast<double>(lam[i])));
            }
        });
        return;
    }
    for (std::int64_t i = 0; i < n; ++i) {
        const std::uint64_t c = offset + static_cast<std::uint64_t>(i);
        R v;
        if constexpr (std::is_same_v<R, float>)
            v = dist == RandomDist::uniform ? rng32::hf_random_uniform(seed, c) : rng32::hf_random_normal(seed, c);
        else
            v = dist == RandomDist::uniform ? rng64::hf_random_uniform(seed, c) : rng64::hf_random_normal(seed, c);
        o[i] = convert<U>(v);
    }
}

}  // namespace

void random_fill(RandomDist dist, const Tensor& rate, std::uint64_t seed, std::uint64_t offset, Tensor& out) {
    const std::int64_t n = out.size();
    if (dist == RandomDist::poisson && (!rate.defined() || rate.size() != n))
        throw ShapeError("cpu: random_poisson needs a rate tensor of the output's size");
    dispatch(out.dtype(), [&](auto to) {
        using U = typename decltype(to)::type;
        // The draw precision follows the output (float tensors draw 24-bit uniforms), else the rate's dtype.
        const bool single = out.dtype() == DType::f32 ||
                            (!is_floating(out.dtype()) && dist == RandomDist::poisson && rate.dtype() == DType::f32);
        if (single) fill_typed<float, U>(dist, rate, seed, offset, data_of<U>(out), n);
        else fill_typed<double, U>(dist, rate, seed, offset, data_of<U>(out), n);
    });
}

void CpuBackend::k_random(RandomDist dist, const Tensor& rate, std::uint64_t seed, std::uint64_t offset,
                          Tensor& out) {
    random_fill(dist, rate, seed, offset, out);
}

}  // namespace hf::cpu
