// The bookkeeping half of Backend: allocation, uploads and downloads, transfer counting, op names; the checked
// ops are in backend_ops.cpp, and the plugin's kernels (PluginBackend) do the arithmetic.
#include "hfcore/backend.hpp"

#include <algorithm>

#include "hfcore/plugin/backend.hpp"
#include "hfcore/plugin/likelihood.hpp"

namespace hf {

const char* op_name(UnaryOp op) {
    static const char* names[] = {"neg",    "abs", "exp",    "log",        "sqrt",       "square",   "sign",
                                  "floor",  "lgamma", "erf", "erfinv", "normal_cdf", "normal_ppf", "isfinite",
                                  "logical_not"};
    return names[static_cast<int>(op)];
}
const char* op_name(BinaryOp op) {
    static const char* names[] = {"add", "sub", "mul", "div", "pow", "minimum", "maximum", "xlogy", "lt",
                                  "le",  "gt",  "ge",  "eq",  "ne",  "logical_and", "logical_or"};
    return names[static_cast<int>(op)];
}
const char* op_name(ReduceOp op) {
    static const char* names[] = {"sum", "prod", "max", "min"};
    return names[static_cast<int>(op)];
}

PluginBackend& Backend::kernels() { return static_cast<PluginBackend&>(*this); }

std::string Backend::description() const {
    return name() + " (" + device_name() + ", " + precision_name(precision_) + ")";
}

void Backend::check_owner(const Tensor& x, const char* op) const {
    if (!x.defined()) throw ShapeError(std::string(op) + ": undefined tensor");
    if (x.backend_ptr() != this)
        throw BackendMismatch(std::string(op) + ": operands live on different backends: " + description() +
                              " and " + x.backend().description() +
                              " (tensors are never copied between backends implicitly)");
}

Tensor Backend::empty(DType dtype, const Shape& shape) {
    for (auto d : shape)
        if (d < 0) throw ShapeError("empty: negative dimension in " + shape_str(shape));
    return kernels().make_tensor(kernels().k_alloc(dtype, numel(shape)), dtype, shape);
}

Tensor Backend::from_host(DType dtype, const Shape& shape, const void* data) {
    Tensor t = empty(dtype, shape);
    if (t.size() > 0) kernels().k_upload(t, data);
    kernels().count_upload(static_cast<std::uint64_t>(t.size()) * dtype_size(dtype));
    return t;
}

Tensor Backend::from_host(const std::vector<double>& values, const Shape& shape) {
    if (numel(shape) != static_cast<std::int64_t>(values.size()))
        throw ShapeError("from_host: " + std::to_string(values.size()) + " values for shape " + shape_str(shape));
    if (precision_ == Precision::f64) return from_host(DType::f64, shape, values.data());
    std::vector<float> f(values.begin(), values.end());
    return from_host(DType::f32, shape, f.data());
}

Tensor Backend::from_host(const std::vector<double>& values) {
    return from_host(values, Shape{static_cast<std::int64_t>(values.size())});
}

Tensor Backend::from_host_index(const std::vector<std::int64_t>& values) {
    return from_host(DType::i64, Shape{static_cast<std::int64_t>(values.size())}, values.data());
}

void Backend::to_host(const Tensor& x, void* out) {
    check_owner(x, "to_host");
    if (x.size() > 0) kernels().k_download(x, out);
    kernels().count_download(static_cast<std::uint64_t>(x.size()) * dtype_size(x.dtype()));
}

std::vector<double> Backend::to_host_double(const Tensor& x) {
    check_owner(x, "to_host");
    std::vector<double> out(static_cast<std::size_t>(x.size()));
    switch (x.dtype()) {
        case DType::f64: to_host(x, out.data()); break;
        case DType::f32: {
            std::vector<float> v(out.size());
            to_host(x, v.data());
            std::copy(v.begin(), v.end(), out.begin());
            break;
        }
        case DType::i32: {
            std::vector<std::int32_t> v(out.size());
            to_host(x, v.data());
            std::copy(v.begin(), v.end(), out.begin());
            break;
        }
        case DType::i64: {
            std::vector<std::int64_t> v(out.size());
            to_host(x, v.data());
            std::transform(v.begin(), v.end(), out.begin(), [](std::int64_t i) { return double(i); });
            break;
        }
        case DType::boolean: {
            std::vector<std::uint8_t> v(out.size());
            to_host(x, v.data());
            std::copy(v.begin(), v.end(), out.begin());
            break;
        }
    }
    return out;
}

Tensor Backend::full(const Shape& shape, double value, DType dtype) {
    Tensor t = empty(dtype, shape);
    if (t.size() > 0) kernels().k_fill(t, value);
    return t;
}

Tensor Backend::arange(std::int64_t n, DType dtype) {
    Tensor t = empty(dtype, Shape{n});
    if (n > 0) kernels().k_arange(t);
    return t;
}

Tensor Backend::cast(const Tensor& x, DType dtype) {
    check_owner(x, "cast");
    if (x.dtype() == dtype) return x;
    Tensor out = empty(dtype, x.shape());
    if (out.size() > 0) kernels().k_cast(x, out);
    return out;
}

TransferCounters Backend::transfers() const {
    TransferCounters c;
    c.uploads = uploads_;
    c.downloads = downloads_;
    c.upload_bytes = upload_bytes_;
    c.download_bytes = download_bytes_;
    return c;
}

void Backend::reset_transfers() {
    uploads_ = 0;
    downloads_ = 0;
    upload_bytes_ = 0;
    download_bytes_ = 0;
}

std::unique_ptr<FusedLikelihood> PluginBackend::k_compile_likelihood(const PackedLikelihood&) { return nullptr; }

std::unique_ptr<FusedLikelihood> compile_likelihood(Backend& backend, const PackedLikelihood& packed) {
    check_packed_likelihood(packed);
    return static_cast<PluginBackend&>(backend).k_compile_likelihood(packed);
}

}  // namespace hf
