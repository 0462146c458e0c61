// The abstract Backend: every tensor operation hfcore needs, implemented by a plugin.
//
// Public methods (non-virtual, implemented in libhfcore) check operands: same backend (else BackendMismatch),
// dtypes, shapes; they work out result shapes and broadcasting, allocate the output, count transfers, and then
// call the protected kernels (k_*) that a plugin implements. A plugin therefore only writes kernels over
// contiguous row-major memory and never re-derives shapes.
//
// Tier 1: the k_* primitives below, required of every plugin.
// Tier 2: compile_likelihood(), optional fused likelihood kernels (see likelihood.hpp); core has a fallback.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
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

enum class RandomDist : std::int32_t { uniform, normal, poisson };

const char* op_name(UnaryOp);
const char* op_name(BinaryOp);
const char* op_name(ReduceOp);

// Element strides of an operand over the output's dimensions: 0 where the operand is broadcast.
// Dimensions are already collapsed where contiguous, so ndim is small (at most 8).
struct BroadcastPlan {
    static constexpr int kMaxDims = 8;
    int ndim = 0;
    std::array<std::int64_t, kMaxDims> out_shape{};
    std::array<std::array<std::int64_t, kMaxDims>, 3> strides{};  // for up to 3 operands
    bool trivial = false;  // every operand is the same shape as the output: a flat loop will do
};

struct TransferCounters {
    std::uint64_t uploads = 0, downloads = 0;
    std::uint64_t upload_bytes = 0, download_bytes = 0;
};

struct BackendOptions {
    Precision precision = Precision::f64;
    int device = 0;
    int platform = 0;  // OpenCL platform index
};

struct PackedLikelihood;
class FusedLikelihood;

class Backend {
public:
    virtual ~Backend() = default;

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

    // ---- random numbers: Philox-4x32-10, identical on every plugin (plugins/shared/philox.h) ----
    // Element i of the result uses counter (offset + i); the same (seed, offset) gives the same numbers
    // on every backend.
    Tensor random_uniform(const Shape& shape, std::uint64_t seed, std::uint64_t offset = 0);
    Tensor random_normal(const Shape& shape, std::uint64_t seed, std::uint64_t offset = 0);
    Tensor random_poisson(const Tensor& rate, std::uint64_t seed, std::uint64_t offset = 0);

    // ---- bookkeeping ----
    TransferCounters transfers() const;
    void reset_transfers();
    // For plugin code that moves data between host and device on its own (masked_select's count, a fused
    // likelihood downloading its results): every transfer is counted.
    void count_upload(std::uint64_t bytes) { uploads_++; upload_bytes_ += bytes; }
    void count_download(std::uint64_t bytes) { downloads_++; download_bytes_ += bytes; }
    virtual void synchronize() {}

    // ---- Tier 2: fused likelihood kernels; nullptr when the plugin offers none ----
    virtual std::unique_ptr<FusedLikelihood> compile_likelihood(const PackedLikelihood& packed);

    // Checks that x lives on this backend (BackendMismatch otherwise). Public for FusedLikelihood users.
    void check_owner(const Tensor& x, const char* op) const;

protected:
    explicit Backend(Precision precision) : precision_(precision) {}

    // Called by a plugin to wrap its storage in a tensor of this backend.
    Tensor make_tensor(std::shared_ptr<Storage> storage, DType dtype, Shape shape) {
        return Tensor(this, std::move(storage), dtype, std::move(shape));
    }

    // ---- Tier 1 kernels, implemented by every plugin. Outputs are allocated by the caller. ----
    virtual std::shared_ptr<Storage> k_alloc(DType dtype, std::int64_t n) = 0;
    virtual void k_upload(Tensor& out, const void* host) = 0;
    virtual void k_download(const Tensor& x, void* host) = 0;
    virtual void k_fill(Tensor& out, double value) = 0;
    virtual void k_arange(Tensor& out) = 0;                      // 0, 1, 2, ...
    virtual void k_cast(const Tensor& x, Tensor& out) = 0;        // out has the target dtype
    virtual void k_unary(UnaryOp op, const Tensor& x, Tensor& out) = 0;
    virtual void k_binary(BinaryOp op, const Tensor& a, const Tensor& b, Tensor& out,
                          const BroadcastPlan& plan) = 0;
    virtual void k_where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out,
                         const BroadcastPlan& plan) = 0;
    // x viewed as [outer, n, inner] -> out [outer, inner]. Sums must be accurate (pairwise or compensated).
    virtual void k_reduce(ReduceOp op, const Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner,
                          Tensor& out) = 0;
    virtual void k_transpose(const Tensor& x, const std::vector<int>& perm, Tensor& out) = 0;
    // each xs[i] viewed as [outer, inner_i]; out as [outer, sum(inner_i)]
    virtual void k_concat(const std::vector<Tensor>& xs, std::int64_t outer, Tensor& out) = 0;
    // x viewed as [outer, n, inner], index [m] (i64, checked to lie in [0, n)) -> out [outer, m, inner]
    virtual void k_gather(const Tensor& x, const Tensor& index, std::int64_t outer, std::int64_t n,
                          std::int64_t inner, Tensor& out) = 0;
    // returns the selected elements as a new 1-D tensor (its length is data-dependent)
    virtual Tensor k_masked_select(const Tensor& x, const Tensor& mask) = 0;
    // x viewed as [outer, n, inner]; sort along n
    virtual void k_sort(const Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner, Tensor& out) = 0;
    // a: [batch or 1, m, k], b: [batch or 1, k, n] (a_batched / b_batched say which) -> out [batch, m, n]
    virtual void k_matmul(const Tensor& a, const Tensor& b, std::int64_t batch, std::int64_t m, std::int64_t k,
                          std::int64_t n, bool a_batched, bool b_batched, Tensor& out) = 0;
    // rate is undefined except for poisson (then same shape as out)
    virtual void k_random(RandomDist dist, const Tensor& rate, std::uint64_t seed, std::uint64_t offset,
                          Tensor& out) = 0;

private:
    Precision precision_;
    std::atomic<std::uint64_t> uploads_{0}, downloads_{0}, upload_bytes_{0}, download_bytes_{0};
};

}  // namespace hf

// Declares every Tier 1 kernel as an override, for a plugin's Backend class (inside its class body, under
// `protected:`), so that the list lives in one place with the interface it implements.
#define HFCORE_TIER1_KERNEL_OVERRIDES                                                                               \
    std::shared_ptr<::hf::Storage> k_alloc(::hf::DType dtype, std::int64_t n) override;                             \
    void k_upload(::hf::Tensor& out, const void* host) override;                                                    \
    void k_download(const ::hf::Tensor& x, void* host) override;                                                    \
    void k_fill(::hf::Tensor& out, double value) override;                                                          \
    void k_arange(::hf::Tensor& out) override;                                                                      \
    void k_cast(const ::hf::Tensor& x, ::hf::Tensor& out) override;                                                 \
    void k_unary(::hf::UnaryOp op, const ::hf::Tensor& x, ::hf::Tensor& out) override;                              \
    void k_binary(::hf::BinaryOp op, const ::hf::Tensor& a, const ::hf::Tensor& b, ::hf::Tensor& out,               \
                  const ::hf::BroadcastPlan& plan) override;                                                        \
    void k_where(const ::hf::Tensor& cond, const ::hf::Tensor& a, const ::hf::Tensor& b, ::hf::Tensor& out,         \
                 const ::hf::BroadcastPlan& plan) override;                                                         \
    void k_reduce(::hf::ReduceOp op, const ::hf::Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner, \
                  ::hf::Tensor& out) override;                                                                      \
    void k_transpose(const ::hf::Tensor& x, const std::vector<int>& perm, ::hf::Tensor& out) override;              \
    void k_concat(const std::vector<::hf::Tensor>& xs, std::int64_t outer, ::hf::Tensor& out) override;             \
    void k_gather(const ::hf::Tensor& x, const ::hf::Tensor& index, std::int64_t outer, std::int64_t n,             \
                  std::int64_t inner, ::hf::Tensor& out) override;                                                  \
    ::hf::Tensor k_masked_select(const ::hf::Tensor& x, const ::hf::Tensor& mask) override;                         \
    void k_sort(const ::hf::Tensor& x, std::int64_t outer, std::int64_t n, std::int64_t inner, ::hf::Tensor& out)   \
        override;                                                                                                   \
    void k_matmul(const ::hf::Tensor& a, const ::hf::Tensor& b, std::int64_t batch, std::int64_t m, std::int64_t k, \
                  std::int64_t n, bool a_batched, bool b_batched, ::hf::Tensor& out) override;                      \
    void k_random(::hf::RandomDist dist, const ::hf::Tensor& rate, std::uint64_t seed, std::uint64_t offset,        \
                  ::hf::Tensor& out) override;
