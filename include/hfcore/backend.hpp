// A Backend: one plugin's device at one precision, and every tensor operation hfcore needs on it.
//
// The methods here are implemented in libhfcore: they check operands (same backend, else BackendMismatch;
// dtypes; shapes), work out result shapes and numpy broadcasting, allocate the output and count transfers,
// then hand contiguous row-major memory to the plugin's kernels (hfcore/plugin/backend.hpp). Backends come
// from hf::load_backend (hfcore/loader.hpp); pyhf's tensorlib vocabulary over them is hfcore/tensorlib.hpp.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "hfcore/tensor.hpp"

namespace hf {

enum class UnaryOp : std::int32_t {
    neg, abs, exp, log, sqrt, square, sign, floor,
    lgamma,       // log |Gamma(x)|
    erf, erfinv,
    normal_cdf,   // standard normal CDF
    normal_ppf,   // its inverse
    isfinite,     // -> bool
    logical_not,  // bool -> bool
};

enum class BinaryOp : std::int32_t {
    add, sub, mul, div, pow, minimum, maximum,
    xlogy,        // x*log(y), 0 where x == 0
    lt, le, gt, ge, eq, ne,     // -> bool
    logical_and, logical_or,    // bool, bool -> bool
};

enum class ReduceOp : std::int32_t { sum, prod, max, min };

const char* op_name(UnaryOp);
const char* op_name(BinaryOp);
const char* op_name(ReduceOp);

struct TransferCounters {
    std::uint64_t uploads = 0, downloads = 0;
    std::uint64_t upload_bytes = 0, download_bytes = 0;
};

class Backend {
public:
    virtual ~Backend() = default;
    Backend(const Backend&) = delete;
    Backend& operator=(const Backend&) = delete;

    // ---- identity ----
    virtual std::string name() const = 0;         // plugin name, e.g. "cpu"
    virtual std::string device_name() const = 0;  // e.g. "x86_64 (2 threads)"
    Precision precision() const { return precision_; }
    DType float_dtype() const { return hf::float_dtype(precision_); }
    std::string description() const;             // "cpu (x86_64, 64b)"

    // ---- memory and transfers (each from_host / to_host counts one transfer) ----
    Tensor empty(DType dtype, const Shape& shape);
    Tensor from_host(DType dtype, const Shape& shape, const void* data);
    Tensor from_host(const std::vector<double>& values, const Shape& shape);  // -> float_dtype()
    Tensor from_host(const std::vector<double>& values);                      // 1-D
    Tensor from_host_index(const std::vector<std::int64_t>& values);          // 1-D i64
    void to_host(const Tensor& x, void* out);
    std::vector<double> to_host_double(const Tensor& x);                       // any dtype, as doubles
    Tensor full(const Shape& shape, double value, DType dtype);
    Tensor full(const Shape& shape, double value) { return full(shape, value, float_dtype()); }
    Tensor arange(std::int64_t n, DType dtype = DType::i64);
    Tensor cast(const Tensor& x, DType dtype);

    // ---- elementwise, with numpy broadcasting ----
    Tensor unary(UnaryOp op, const Tensor& x);
    Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b);
    Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

    // ---- reductions ----
    Tensor reduce(ReduceOp op, const Tensor& x, int axis, bool keepdims = false);
    Tensor reduce_all(ReduceOp op, const Tensor& x);  // 0-d result

    // ---- shape and indexing ----
    Tensor transpose(const Tensor& x, const std::vector<int>& perm);
    Tensor concat(const std::vector<Tensor>& xs, int axis);
    Tensor stack(const std::vector<Tensor>& xs, int axis);
    Tensor gather(const Tensor& x, const Tensor& index, int axis);  // index: 1-D i64, take along axis
    Tensor masked_select(const Tensor& x, const Tensor& mask);      // same shape, bool mask -> 1-D
    Tensor sort(const Tensor& x, int axis = -1);                   // ascending along axis

    // ---- linear algebra ----
    // a [..., m, k] x b [..., k, n]; leading dims broadcast when one side has none or they are equal.
    Tensor matmul(const Tensor& a, const Tensor& b);

    // ---- random numbers: Philox-4x32-10, identical on every plugin ----
    // Element i of the result uses counter (offset + i); the same (seed, offset) gives the same numbers
    // on every backend.
    Tensor random_uniform(const Shape& shape, std::uint64_t seed, std::uint64_t offset = 0);
    Tensor random_normal(const Shape& shape, std::uint64_t seed, std::uint64_t offset = 0);
    Tensor random_poisson(const Tensor& rate, std::uint64_t seed, std::uint64_t offset = 0);

    // ---- bookkeeping ----
    TransferCounters transfers() const;
    void reset_transfers();
    virtual void synchronize() {}

    // Checks that x lives on this backend (BackendMismatch otherwise, ShapeError when undefined).
    void check_owner(const Tensor& x, const char* op) const;

private:
    // Every Backend is a PluginBackend: the operations above end in its kernels.
    friend class PluginBackend;
    explicit Backend(Precision precision) : precision_(precision) {}
    PluginBackend& kernels();

    Precision precision_;
    std::atomic<std::uint64_t> uploads_{0}, downloads_{0}, upload_bytes_{0}, download_bytes_{0};
};

}  // namespace hf
