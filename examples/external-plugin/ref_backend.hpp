// The `ref` backend: hf::PluginBackend with every Tier 1 kernel written as a plain loop over host memory.
//
// The core (libhfcore) has already checked operands, worked out shapes and broadcasting and allocated the output
// when a kernel runs (include/hfcore/plugin/backend.hpp), so each kernel only fills `out`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "hfcore/plugin/backend.hpp"

namespace ref {

// Host memory in 8-byte words, so that every dtype is aligned. Booleans are one byte, 0 or 1.
class HostStorage final : public hf::Storage {
public:
    explicit HostStorage(std::size_t bytes) : words_((bytes + 7) / 8) {}
    void* data() { return words_.data(); }

private:
    std::vector<std::uint64_t> words_;
};

template <class T>
T* values(const hf::Tensor& t) {
    return static_cast<T*>(hf::PluginBackend::storage_as<HostStorage>(t).data());
}

// Calls f(std::type_identity<T>{}) with T the element type of the dtype (bool held as std::uint8_t).
template <class F>
decltype(auto) visit(hf::DType dtype, F&& f) {
    switch (dtype) {
        case hf::DType::f32: return f(std::type_identity<float>{});
        case hf::DType::f64: return f(std::type_identity<double>{});
        case hf::DType::i32: return f(std::type_identity<std::int32_t>{});
        case hf::DType::i64: return f(std::type_identity<std::int64_t>{});
        case hf::DType::boolean: break;
    }
    return f(std::type_identity<std::uint8_t>{});
}

class RefBackend final : public hf::PluginBackend {
public:
    explicit RefBackend(hf::Precision precision) : PluginBackend(precision) {}
    std::string name() const override { return "ref"; }
    std::string device_name() const override { return "host, plain loops"; }

protected:
    HFCORE_TIER1_KERNEL_OVERRIDES
};

// Special functions in double (ref_special.cpp).
double lgamma(double x);
double erfinv(double y);
double normal_cdf(double x);
double normal_ppf(double p);

}  // namespace ref
