// The cpu plugin's Backend: host memory (backend.cpp, storage.cpp), Tier 1 kernels by role (elementwise.cpp,
// reduce.cpp, shape.cpp, linalg.cpp, random.cpp) and the fused likelihood (likelihood.cpp). No xtensor here: this header is included by every source of the plugin
// and xtensor costs seconds per translation unit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "hfcore/plugin/backend.hpp"
#include "hfcore/plugin/likelihood.hpp"

namespace hf::cpu {

// Host memory, 64-byte aligned (SIMD loads, BLAS). Booleans are one byte holding 0 or 1.
class CpuStorage final : public Storage {
public:
    explicit CpuStorage(std::size_t bytes);
    ~CpuStorage() override;
    CpuStorage(const CpuStorage&) = delete;
    CpuStorage& operator=(const CpuStorage&) = delete;

    void* data() const { return data_; }
    std::size_t bytes() const { return bytes_; }

private:
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
};

template <class T>
T* data_of(const Tensor& t) {
    return static_cast<T*>(PluginBackend::storage_as<CpuStorage>(t).data());
}

// The C++ type that holds each dtype. bool is stored as uint8_t so that any byte pattern is a valid value.
template <DType D> struct dtype_type;
template <> struct dtype_type<DType::f32> { using type = float; };
template <> struct dtype_type<DType::f64> { using type = double; };
template <> struct dtype_type<DType::i32> { using type = std::int32_t; };
template <> struct dtype_type<DType::i64> { using type = std::int64_t; };
template <> struct dtype_type<DType::boolean> { using type = std::uint8_t; };

template <class T> struct tag { using type = T; };

// Calls f(tag<T>{}) with T the storage type of dtype t.
template <class F>
decltype(auto) dispatch(DType t, F&& f) {
    switch (t) {
        case DType::f32: return f(tag<float>{});
        case DType::f64: return f(tag<double>{});
        case DType::i32: return f(tag<std::int32_t>{});
        case DType::i64: return f(tag<std::int64_t>{});
        case DType::boolean: break;
    }
    return f(tag<std::uint8_t>{});
}

// Same as dispatch, restricted to the floating dtypes (ShapeError otherwise).
template <class F>
decltype(auto) dispatch_float(DType t, const char* op, F&& f) {
    if (t == DType::f32) return f(tag<float>{});
    if (t != DType::f64) throw ShapeError(std::string("cpu: ") + op + " needs a floating dtype, got " + dtype_name(t));
    return f(tag<double>{});
}

template <class T>
constexpr bool is_bool_v = std::is_same_v<T, std::uint8_t>;

// Value conversion with numpy's meaning and no undefined behaviour (NaN or out-of-range floats to integers).
template <class U, class T>
inline U convert(T v) {
    if constexpr (is_bool_v<U>) {
        return static_cast<U>(v != T(0));
    } else if constexpr (std::is_integral_v<U> && std::is_floating_point_v<T>) {
        if (!(v == v)) return std::numeric_limits<U>::min();
        if (v >= static_cast<T>(std::numeric_limits<U>::max())) return std::numeric_limits<U>::max();
        if (v <= static_cast<T>(std::numeric_limits<U>::min())) return std::numeric_limits<U>::min();
        return static_cast<U>(v);
    } else {
        return static_cast<U>(v);
    }
}

// numpy's maximum/minimum: NaN wins.
template <class T>
inline T nan_max(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (a != a) return a;
        if (b != b) return b;
    }
    return a < b ? b : a;
}
template <class T>
inline T nan_min(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (a != a) return a;
        if (b != b) return b;
    }
    return b < a ? b : a;
}

// Copies any tensor into a vector of U (dtype-mismatched operands take this slow but simple path).
template <class U>
std::vector<U> as_vector(const Tensor& t) {
    std::vector<U> v(static_cast<std::size_t>(t.size()));
    dispatch(t.dtype(), [&](auto tt) {
        using T = typename decltype(tt)::type;
        const T* p = data_of<T>(t);
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = convert<U>(p[i]);
    });
    return v;
}

std::string cpu_model_name();  // from /proc/cpuinfo
unsigned cpu_threads();        // hf::run::default_threads(), at least 1

class CpuBackend final : public PluginBackend {
public:
    explicit CpuBackend(Precision precision);

    std::string name() const override { return "cpu"; }
    std::string device_name() const override;

    // A tensor of this backend over new storage (for the fused likelihood's results).
    Tensor wrap(std::shared_ptr<Storage> storage, DType dtype, Shape shape) {
        return make_tensor(std::move(storage), dtype, std::move(shape));
    }

protected:
    HFCORE_TIER1_KERNEL_OVERRIDES
    std::unique_ptr<FusedLikelihood> k_compile_likelihood(const PackedLikelihood& packed) override;
};

// Defined in random.cpp.
void random_fill(RandomDist dist, const Tensor& rate, std::uint64_t seed, std::uint64_t offset, Tensor& out);

}  // namespace hf::cpu
