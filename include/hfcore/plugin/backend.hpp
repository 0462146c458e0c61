// What a backend plugin implements: the Tier 1 kernels behind hf::Backend's checked operations, and
// optionally Tier 2, a fused likelihood (hfcore/plugin/likelihood.hpp).
//
// hf::Backend's public methods (in libhfcore) have checked the operands (same backend, dtypes, shapes),
// allocated the output and worked out broadcasting before a kernel runs, so a kernel only computes over
// contiguous row-major memory and never re-derives shapes.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "hfcore/backend.hpp"
#include "hfcore/plugin/storage.hpp"

namespace hf {

// What a plugin's create() is asked for (hfcore/plugin/abi.hpp).
struct BackendOptions {
    Precision precision = Precision::f64;
    int device = 0;
    int platform = 0;  // OpenCL platform index
};

enum class RandomDist : std::int32_t { uniform, normal, poisson };

// Element strides of an operand over the output's dimensions: 0 where the operand is broadcast.
// Dimensions are already collapsed where contiguous, so ndim is small (at most 8).
struct BroadcastPlan {
    static constexpr int kMaxDims = 8;
    int ndim = 0;
    std::array<std::int64_t, kMaxDims> out_shape{};
    std::array<std::array<std::int64_t, kMaxDims>, 3> strides{};  // for up to 3 operands
    bool trivial = false;  // every operand is the same shape as the output: a flat loop will do
};

struct PackedLikelihood;
class FusedLikelihood;

class PluginBackend : public Backend {
public:
    // For plugin code that moves data between host and device on its own (masked_select's count, a fused
    // likelihood downloading its results): every transfer is counted.
    void count_upload(std::uint64_t bytes) { uploads_++; upload_bytes_ += bytes; }
    void count_download(std::uint64_t bytes) { downloads_++; download_bytes_ += bytes; }

    // A tensor of this backend over storage the plugin allocated.
    Tensor make_tensor(std::shared_ptr<Storage> storage, DType dtype, Shape shape) {
        return Tensor(this, std::move(storage), dtype, std::move(shape));
    }
    // The plugin's own storage of one of its tensors.
    template <class S>
    static S& storage_as(const Tensor& t) { return *static_cast<S*>(t.storage_.get()); }

    // Whether one call of K points costs much less than K calls of one point: a call's fixed cost (a device's
    // kernel launches, transfers and synchronisation) is large next to a small model's work per point. The core
    // then batches work it would otherwise call point by point (the held fits' basin searches in lockstep:
    // core/infer/minimize/lockstep.hpp). False where a point costs about the same alone or in a batch (the cpu
    // plugin's host loops).
    bool batched_calls_pay() const { return k_batched_calls_pay(); }

protected:
    explicit PluginBackend(Precision precision) : Backend(precision) {}

    // The virtual functions keep the order they had in ABI version 1 (when they were all in Backend): Tier 2
    // first, then the Tier 1 kernels. Reorder them and HFCORE_PLUGIN_ABI_VERSION must change.

    // ---- Tier 2, optional: fused likelihood kernels for a packed likelihood; nullptr when the plugin has
    // none (the core then composes the likelihood from Tier 1). Reached through hf::compile_likelihood.
    virtual std::unique_ptr<FusedLikelihood> k_compile_likelihood(const PackedLikelihood& packed);

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

    // ---- Added in ABI version 3, at the end of the vtable ----
    // What batched_calls_pay() reports; a plugin whose device pays a fixed cost per call returns true.
    virtual bool k_batched_calls_pay() const { return false; }

private:
    friend class Backend;  // its checked operations call the kernels
    friend std::unique_ptr<FusedLikelihood> compile_likelihood(Backend& backend, const PackedLikelihood& packed);
};

// batched_calls_pay() of any backend (every Backend is a PluginBackend).
inline bool batched_calls_pay(const Backend& backend) {
    return static_cast<const PluginBackend&>(backend).batched_calls_pay();
}

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
