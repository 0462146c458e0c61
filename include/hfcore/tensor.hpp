// Tensor: a handle to contiguous row-major memory owned by one backend, with its dtype and shape.
// Tensors are values: operations return new tensors and never modify their inputs. reshape() shares storage.
// Tensors are made by a Backend (from_host, full, the operations); only a plugin wraps new memory in one
// (hfcore/plugin/backend.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "hfcore/errors.hpp"

namespace hf {

enum class DType : std::uint8_t { f32, f64, i32, i64, boolean };
enum class Precision : std::uint8_t { f32 = 32, f64 = 64 };

using Shape = std::vector<std::int64_t>;

inline std::size_t dtype_size(DType t) {
    switch (t) {
        case DType::f32: return 4;
        case DType::f64: return 8;
        case DType::i32: return 4;
        case DType::i64: return 8;
        case DType::boolean: return 1;
    }
    return 0;
}
inline const char* dtype_name(DType t) {
    switch (t) {
        case DType::f32: return "f32";
        case DType::f64: return "f64";
        case DType::i32: return "i32";
        case DType::i64: return "i64";
        case DType::boolean: return "bool";
    }
    return "?";
}
inline bool is_floating(DType t) { return t == DType::f32 || t == DType::f64; }
inline DType float_dtype(Precision p) { return p == Precision::f32 ? DType::f32 : DType::f64; }
inline const char* precision_name(Precision p) { return p == Precision::f32 ? "32b" : "64b"; }
// "32b"/"64b" (also "32"/"64", "f32"/"f64", "float"/"double"); InputError otherwise.
Precision parse_precision(const std::string& s);

inline std::int64_t numel(const Shape& s) {
    return std::accumulate(s.begin(), s.end(), std::int64_t{1}, std::multiplies<>());
}
std::string shape_str(const Shape& s);

class Backend;
class PluginBackend;
class Storage;  // a plugin's memory (hfcore/plugin/storage.hpp)

class Tensor {
public:
    Tensor() = default;  // undefined: no backend, no memory

    bool defined() const { return backend_ != nullptr; }
    Backend& backend() const { return *backend_; }
    Backend* backend_ptr() const { return backend_; }
    DType dtype() const { return dtype_; }
    const Shape& shape() const { return shape_; }
    int ndim() const { return static_cast<int>(shape_.size()); }
    std::int64_t size() const { return numel(shape_); }
    std::int64_t dim(int i) const { return shape_.at(i < 0 ? i + ndim() : i); }

    // Same memory, another shape with the same number of elements. One dimension may be -1.
    Tensor reshape(Shape shape) const;

private:
    friend class PluginBackend;  // wraps a plugin's storage in a tensor and hands the storage back to kernels
    Tensor(Backend* backend, std::shared_ptr<Storage> storage, DType dtype, Shape shape)
        : backend_(backend), storage_(std::move(storage)), dtype_(dtype), shape_(std::move(shape)) {}

    Backend* backend_ = nullptr;
    std::shared_ptr<Storage> storage_;
    DType dtype_ = DType::f64;
    Shape shape_;
};

}  // namespace hf
