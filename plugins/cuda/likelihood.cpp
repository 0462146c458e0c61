// Tier 2 of the cuda plugin: a PackedLikelihood (checked by the core) reorganised for the kernels (elements grouped by
// bin, gradient slots grouped by parameter, an aux-data map) and uploaded once. An evaluation of K points
// enqueues two or three kernels plus the pairwise row sums and returns device tensors: the caller's download
// of the K results (and of the gradient when asked) is the only transfer.
#include <string>
#include <vector>

#include "backend.hpp"
#include "kernels.hpp"
#include "fused_tables.hpp"

namespace hf::cuda {

namespace {

class CudaFusedLikelihood final : public FusedLikelihood {
public:
    CudaFusedLikelihood(CudaBackend& backend, const PackedLikelihood& pk);

    using FusedLikelihood::logpdf;
    Tensor logpdf(const Tensor& pars, const BoundData& bound, Tensor* grad) override;  // default bind
    Tensor expected_main(const Tensor& pars) override;
    Tensor expected_aux(const Tensor& pars) override;
    const char* implementation() const override { return "cuda fused"; }
    // logpdf with its gradient (value, d/d pars), then one kernel for the packed arrays' terms.
    bool input_gradient(const Tensor& pars, const BoundData& bound, PackedGradient* out) override;
    // input_grad_kernel in its cotangent mode, then the gradient slots' sums as logpdf's.
    bool expected_data_vjp(const Tensor& pars, const Tensor& cot_main, const Tensor& cot_aux,
                           PackedGradient* out) override;

private:
    // Uploads a table and returns its device address (nullptr when empty).
    const std::int32_t* ints(const std::vector<std::int32_t>& v);
    const void* reals(const std::vector<double>& v);
    // Checks pars [K, P] (or [P], one point) and returns K.
    std::int64_t points(const Tensor& pars, const char* op) const;
    // Allocates the packed arrays' terms of `out` for K points (data zeroed) and points the kernel's outputs at them.
    InputGradOutputs packed_outputs(std::int64_t K, PackedGradient* out);

    CudaBackend& b_;
    DType dt_;
    LikelihoodView v_;
    std::int64_t n_elem_ = 0, n_factors_ = 0, n_deltas_ = 0;
    std::vector<Tensor> tables_;  // keeps the uploaded tables alive
};

const std::int32_t* CudaFusedLikelihood::ints(const std::vector<std::int32_t>& v) {
    if (v.empty()) return nullptr;
    tables_.push_back(b_.upload_table(DType::i32, v.data(), static_cast<std::int64_t>(v.size())));
    return dev_ptr_as<std::int32_t>(tables_.back());
}

const void* CudaFusedLikelihood::reals(const std::vector<double>& v) {
    if (v.empty()) return nullptr;
    if (dt_ == DType::f64) {
        tables_.push_back(b_.upload_table(DType::f64, v.data(), static_cast<std::int64_t>(v.size())));
    } else {
        std::vector<float> f(v.begin(), v.end());
        tables_.push_back(b_.upload_table(DType::f32, f.data(), static_cast<std::int64_t>(f.size())));
    }
    return dev_ptr(tables_.back());
}

CudaFusedLikelihood::CudaFusedLikelihood(CudaBackend& backend, const PackedLikelihood& pk)
    : b_(backend), dt_(backend.float_dtype()) {
    const std::int64_t P = pk.n_pars, N = pk.n_main, A = pk.n_aux;
    // Checked by the core (check_packed_likelihood) before it reaches a plugin.
    const std::int64_t F = static_cast<std::int64_t>(pk.factor_par.size());
    const std::int64_t D = static_cast<std::int64_t>(pk.delta_par.size());
    const std::int64_t G = static_cast<std::int64_t>(pk.gauss_par.size());
    const std::int64_t Q = static_cast<std::int64_t>(pk.pois_par.size());
    const std::vector<double>& coef = pk.factor_coef;

    // Elements grouped by bin, each group in element order.
    std::vector<std::int32_t> bin_offsets, bin_elems;
    fused_tables::group_by(pk.elem_bin, N, bin_offsets, bin_elems);

    // Gradient slots grouped by parameter: factors, deltas, Gaussian then Poisson constraints of each.
    std::vector<std::int32_t> par_offsets(static_cast<std::size_t>(P + 1), 0);
    for (auto p : pk.factor_par) par_offsets[p + 1]++;
    for (auto p : pk.delta_par) par_offsets[p + 1]++;
    for (auto p : pk.gauss_par) par_offsets[p + 1]++;
    for (auto p : pk.pois_par) par_offsets[p + 1]++;
    for (std::int64_t p = 0; p < P; ++p) par_offsets[p + 1] += par_offsets[p];
    std::vector<std::int32_t> next(par_offsets.begin(), par_offsets.end() - 1);
    auto slots = [&](const std::vector<std::int32_t>& par) {
        std::vector<std::int32_t> s(par.size());
        for (std::size_t i = 0; i < par.size(); ++i) s[i] = next[par[i]]++;
        return s;
    };
    std::vector<std::int32_t> factor_slot = slots(pk.factor_par), delta_slot = slots(pk.delta_par);
    std::vector<std::int32_t> gauss_slot = slots(pk.gauss_par), pois_slot = slots(pk.pois_par);

    // Expected aux data: the constrained parameter of each aux entry, times tau for Poisson constraints.
    const fused_tables::AuxMap aux = fused_tables::aux_map(pk);
    const std::vector<std::int32_t>& aux_par = aux.aux_par;
    const std::vector<double>& aux_scale = aux.aux_scale;

    n_elem_ = pk.n_elements(), n_factors_ = F, n_deltas_ = D;
    v_.n_pars = P;
    v_.n_main = N;
    v_.n_aux = A;
    v_.n_gauss = G;
    v_.n_pois = Q;
    v_.n_slots = F + D + G + Q;
    v_.bin_offsets = ints(bin_offsets);
    v_.bin_elems = ints(bin_elems);
    v_.elem_nominal = reals(pk.elem_nominal);
    v_.factor_offsets = ints(pk.factor_offsets);
    v_.delta_offsets = ints(pk.delta_offsets);
    v_.factor_par = ints(pk.factor_par);
    v_.factor_kind = ints(pk.factor_kind);
    v_.factor_lo = reals(pk.factor_lo);
    v_.factor_hi = reals(pk.factor_hi);
    v_.factor_coef = reals(coef);
    v_.delta_par = ints(pk.delta_par);
    v_.delta_kind = ints(pk.delta_kind);
    v_.delta_lo = reals(pk.delta_lo);
    v_.delta_nom = reals(pk.delta_nom);
    v_.delta_hi = reals(pk.delta_hi);
    v_.gauss_par = ints(pk.gauss_par);
    v_.gauss_aux = ints(pk.gauss_aux);
    v_.gauss_sigma = reals(pk.gauss_sigma);
    v_.pois_par = ints(pk.pois_par);
    v_.pois_aux = ints(pk.pois_aux);
    v_.pois_tau = reals(pk.pois_tau);
    v_.factor_slot = ints(factor_slot);
    v_.delta_slot = ints(delta_slot);
    v_.gauss_slot = ints(gauss_slot);
    v_.pois_slot = ints(pois_slot);
    v_.par_offsets = ints(par_offsets);
    v_.aux_par = ints(aux_par);
    v_.aux_scale = reals(aux_scale);
}

std::int64_t CudaFusedLikelihood::points(const Tensor& pars, const char* op) const {
    b_.check_owner(pars, op);
    if (pars.dtype() != dt_)
        throw ShapeError(std::string("cuda: ") + op + ": parameters must be " + dtype_name(dt_) + ", got " +
                         dtype_name(pars.dtype()));
    const bool ok = (pars.ndim() == 2 && pars.dim(1) == v_.n_pars) || (pars.ndim() == 1 && pars.dim(0) == v_.n_pars);
    if (!ok)
        throw ShapeError(std::string("cuda: ") + op + ": parameters " + shape_str(pars.shape()) + ", expected [K, " +
                         std::to_string(v_.n_pars) + "]");
    return pars.ndim() == 2 ? pars.dim(0) : 1;
}

Tensor CudaFusedLikelihood::logpdf(const Tensor& pars, const BoundData& bound, Tensor* grad) {
    // The kernels take the data-only terms with the rest: the default bind (the tensor alone) is all they need.
    const Tensor& data = bound.data();
    const std::int64_t K = points(pars, "logpdf");
    b_.check_owner(data, "logpdf");
    const std::int64_t width = v_.n_main + v_.n_aux;
    if (data.dtype() != dt_)
        throw ShapeError(std::string("cuda: logpdf: data must be ") + dtype_name(dt_) + ", got " +
                         dtype_name(data.dtype()));
    std::int64_t stride;
    if (data.ndim() == 1 && data.dim(0) == width) stride = 0;
    else if (data.ndim() == 2 && data.dim(0) == K && data.dim(1) == width) stride = width;
    else
        throw ShapeError("cuda: logpdf: data " + shape_str(data.shape()) + ", expected [" + std::to_string(width) +
                         "] or [" + std::to_string(K) + ", " + std::to_string(width) + "]");

    b_.activate();
    const std::int64_t J = v_.n_main + v_.n_gauss + v_.n_pois;
    Tensor terms = b_.empty(dt_, Shape{K, J});
    Tensor contrib;
    if (grad) contrib = b_.empty(dt_, Shape{K, v_.n_slots});
    launch_likelihood_terms(b_.stream(), static_cast<int>(dt_), v_, dev_ptr(pars), K, dev_ptr(data), stride,
                            dev_ptr(terms), grad ? dev_ptr(contrib) : nullptr);
    b_.check_launch("logpdf");
    Tensor out = b_.empty(dt_, Shape{K});
    if (K > 0) b_.reduce_into(ReduceOp::sum, dt_, dev_ptr(terms), K, J, 1, dev_ptr(out));
    if (grad) {
        Tensor g = b_.empty(dt_, Shape{K, v_.n_pars});
        launch_likelihood_grad(b_.stream(), static_cast<int>(dt_), v_, K, dev_ptr(contrib), dev_ptr(g));
        b_.check_launch("logpdf gradient");
        *grad = g;
    }
    return out;
}

InputGradOutputs CudaFusedLikelihood::packed_outputs(std::int64_t K, PackedGradient* out) {
    auto make = [&](std::int64_t n) { return b_.empty(dt_, Shape{K, n}); };
    out->elem_nominal = make(n_elem_), out->factor_lo = make(n_factors_), out->factor_hi = make(n_factors_);
    out->factor_coef = make(6 * n_factors_), out->delta_lo = make(n_deltas_), out->delta_nom = make(n_deltas_);
    out->delta_hi = make(n_deltas_), out->gauss_sigma = make(v_.n_gauss), out->pois_tau = make(v_.n_pois);
    out->data = b_.full(Shape{K, v_.n_main + v_.n_aux}, 0.0, dt_);
    InputGradOutputs o;
    o.n_elem = n_elem_, o.n_factors = n_factors_, o.n_deltas = n_deltas_;
    o.elem_nominal = dev_ptr(out->elem_nominal), o.factor_lo = dev_ptr(out->factor_lo);
    o.factor_hi = dev_ptr(out->factor_hi), o.factor_coef = dev_ptr(out->factor_coef);
    o.delta_lo = dev_ptr(out->delta_lo), o.delta_nom = dev_ptr(out->delta_nom), o.delta_hi = dev_ptr(out->delta_hi);
    o.gauss_sigma = dev_ptr(out->gauss_sigma), o.pois_tau = dev_ptr(out->pois_tau), o.data = dev_ptr(out->data);
    return o;
}

bool CudaFusedLikelihood::input_gradient(const Tensor& pars, const BoundData& bound, PackedGradient* out) {
    out->value = logpdf(pars, bound, &out->pars);  // checks pars and data
    const Tensor& data = bound.data();
    const std::int64_t K = points(pars, "input_gradient"), W = v_.n_main + v_.n_aux;
    const InputGradOutputs o = packed_outputs(K, out);
    b_.activate();
    launch_likelihood_input_grad(b_.stream(), static_cast<int>(dt_), v_, dev_ptr(pars), K, dev_ptr(data),
                                 data.ndim() == 1 ? 0 : W, o);
    b_.check_launch("input_gradient");
    return true;
}

bool CudaFusedLikelihood::expected_data_vjp(const Tensor& pars, const Tensor& cot_main, const Tensor& cot_aux,
                                            PackedGradient* out) {
    const std::int64_t K = points(pars, "expected_data_vjp");
    b_.check_owner(cot_main, "expected_data_vjp");
    b_.check_owner(cot_aux, "expected_data_vjp");
    if (cot_main.shape() != Shape{K, v_.n_main} || cot_aux.shape() != Shape{K, v_.n_aux} || cot_main.dtype() != dt_ ||
        cot_aux.dtype() != dt_)
        throw ShapeError("cuda: expected_data_vjp: the cotangents must be " + std::string(dtype_name(dt_)) + " [" +
                         std::to_string(K) + ", " + std::to_string(v_.n_main) + "] and [" + std::to_string(K) + ", " +
                         std::to_string(v_.n_aux) + "]");
    out->value = Tensor();
    out->pars = b_.empty(dt_, Shape{K, v_.n_pars});
    const InputGradOutputs o = packed_outputs(K, out);
    Tensor contrib = b_.empty(dt_, Shape{K, v_.n_slots});
    b_.activate();
    launch_likelihood_input_grad(b_.stream(), static_cast<int>(dt_), v_, dev_ptr(pars), K, nullptr, 0, o,
                                 dev_ptr(cot_main), dev_ptr(cot_aux), dev_ptr(contrib));
    launch_likelihood_grad(b_.stream(), static_cast<int>(dt_), v_, K, dev_ptr(contrib), dev_ptr(out->pars));
    b_.check_launch("expected_data_vjp");
    return true;
}

Tensor CudaFusedLikelihood::expected_main(const Tensor& pars) {
    const std::int64_t K = points(pars, "expected_main");
    b_.activate();
    Tensor out = b_.empty(dt_, Shape{K, v_.n_main});
    launch_expected_main(b_.stream(), static_cast<int>(dt_), v_, dev_ptr(pars), K, dev_ptr(out));
    b_.check_launch("expected_main");
    return out;
}

Tensor CudaFusedLikelihood::expected_aux(const Tensor& pars) {
    const std::int64_t K = points(pars, "expected_aux");
    b_.activate();
    Tensor out = b_.empty(dt_, Shape{K, v_.n_aux});
    launch_expected_aux(b_.stream(), static_cast<int>(dt_), v_, dev_ptr(pars), K, dev_ptr(out));
    b_.check_launch("expected_aux");
    return out;
}

}  // namespace

std::unique_ptr<FusedLikelihood> CudaBackend::k_compile_likelihood(const PackedLikelihood& packed) {
    activate();
    return std::make_unique<CudaFusedLikelihood>(*this, packed);
}

}  // namespace hf::cuda
