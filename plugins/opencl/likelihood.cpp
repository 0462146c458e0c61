#include "likelihood.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "fused_tables.hpp"
#include "hfcore/errors.hpp"

namespace hf::ocl {

#include "kernels/fused_layout.h"

namespace {

[[noreturn]] void bad(const std::string& what) { throw ShapeError("opencl: compile_likelihood: " + what); }

}  // namespace

OpenCLFusedLikelihood::OpenCLFusedLikelihood(OpenCLBackend& backend, const PackedLikelihood& pk)
    : be_(backend), prog_(backend.real_program(backend.float_dtype())) {
    const std::int64_t P = pk.n_pars, N = pk.n_main, A = pk.n_aux, E = pk.n_elements();
    // Checked by the core (check_packed_likelihood) before it reaches a plugin.
    const std::size_t F = pk.factor_par.size(), D = pk.delta_par.size();
    const std::size_t G = pk.gauss_par.size(), Q = pk.pois_par.size();
    if (E + static_cast<std::int64_t>(F + D + G + Q) * 2 + N + P * 4 + A > INT32_MAX) bad("model too large");

    // Derived tables: the element of each factor / delta, elements grouped by bin, and per parameter the
    // factors, deltas and constraints that read it.
    std::vector<std::int32_t> fac_elem(F), del_elem(D);
    for (std::int64_t e = 0; e < E; ++e) {
        for (auto t = pk.factor_offsets[e]; t < pk.factor_offsets[e + 1]; ++t) fac_elem[t] = static_cast<std::int32_t>(e);
        for (auto t = pk.delta_offsets[e]; t < pk.delta_offsets[e + 1]; ++t) del_elem[t] = static_cast<std::int32_t>(e);
    }
    std::vector<std::int32_t> bin_off, bin_elems, par_fac_off, par_fac, par_del_off, par_del, par_gauss_off,
        par_gauss, par_pois_off, par_pois;
    fused_tables::group_by(pk.elem_bin, N, bin_off, bin_elems);
    fused_tables::group_by(pk.factor_par, P, par_fac_off, par_fac);
    fused_tables::group_by(pk.delta_par, P, par_del_off, par_del);
    fused_tables::group_by(pk.gauss_par, P, par_gauss_off, par_gauss);
    fused_tables::group_by(pk.pois_par, P, par_pois_off, par_pois);
    const fused_tables::AuxMap aux = fused_tables::aux_map(pk);
    const std::vector<std::int32_t>& aux_par = aux.aux_par;
    const std::vector<double>& aux_scale = aux.aux_scale;

    std::vector<std::int32_t> meta(HF_META_COUNT, 0), itab;
    std::vector<double> rtab;
    auto put_i = [&](int slot, const std::vector<std::int32_t>& v) {
        meta[HF_META_INT + slot] = static_cast<std::int32_t>(itab.size());
        itab.insert(itab.end(), v.begin(), v.end());
    };
    auto put_r = [&](int slot, const std::vector<double>& v) {
        meta[HF_META_REAL + slot] = static_cast<std::int32_t>(rtab.size());
        rtab.insert(rtab.end(), v.begin(), v.end());
    };
    put_i(HF_I_BIN_OFF, bin_off);
    put_i(HF_I_BIN_ELEMS, bin_elems);
    put_i(HF_I_ELEM_BIN, pk.elem_bin);
    put_i(HF_I_FAC_OFF, pk.factor_offsets);
    put_i(HF_I_DEL_OFF, pk.delta_offsets);
    put_i(HF_I_FAC_PAR, pk.factor_par);
    put_i(HF_I_FAC_KIND, pk.factor_kind);
    put_i(HF_I_FAC_ELEM, fac_elem);
    put_i(HF_I_DEL_PAR, pk.delta_par);
    put_i(HF_I_DEL_KIND, pk.delta_kind);
    put_i(HF_I_DEL_ELEM, del_elem);
    put_i(HF_I_GAUSS_PAR, pk.gauss_par);
    put_i(HF_I_GAUSS_AUX, pk.gauss_aux);
    put_i(HF_I_POIS_PAR, pk.pois_par);
    put_i(HF_I_POIS_AUX, pk.pois_aux);
    put_i(HF_I_PAR_FAC_OFF, par_fac_off);
    put_i(HF_I_PAR_FAC, par_fac);
    put_i(HF_I_PAR_DEL_OFF, par_del_off);
    put_i(HF_I_PAR_DEL, par_del);
    put_i(HF_I_PAR_GAUSS_OFF, par_gauss_off);
    put_i(HF_I_PAR_GAUSS, par_gauss);
    put_i(HF_I_PAR_POIS_OFF, par_pois_off);
    put_i(HF_I_PAR_POIS, par_pois);
    put_i(HF_I_AUX_PAR, aux_par);
    put_r(HF_R_NOMINAL, pk.elem_nominal);
    put_r(HF_R_FAC_LO, pk.factor_lo);
    put_r(HF_R_FAC_HI, pk.factor_hi);
    put_r(HF_R_FAC_COEF, pk.factor_coef);
    put_r(HF_R_DEL_LO, pk.delta_lo);
    put_r(HF_R_DEL_NOM, pk.delta_nom);
    put_r(HF_R_DEL_HI, pk.delta_hi);
    put_r(HF_R_GAUSS_SIGMA, pk.gauss_sigma);
    put_r(HF_R_POIS_TAU, pk.pois_tau);
    put_r(HF_R_AUX_SCALE, aux_scale);
    meta[HF_META_N] = static_cast<std::int32_t>(N);
    meta[HF_META_E] = static_cast<std::int32_t>(E);
    meta[HF_META_P] = static_cast<std::int32_t>(P);
    meta[HF_META_A] = static_cast<std::int32_t>(A);
    meta[HF_META_G] = static_cast<std::int32_t>(G);
    meta[HF_META_Q] = static_cast<std::int32_t>(Q);

    n_main_ = N;
    n_elem_ = E;
    n_fac_ = static_cast<std::int64_t>(F), n_del_ = static_cast<std::int64_t>(D);
    n_gauss_ = static_cast<std::int64_t>(G), n_pois_ = static_cast<std::int64_t>(Q);
    n_pars_ = P;
    n_aux_ = A;
    // Three uploads, once per model (counted by the core like any from_host).
    meta_ = be_.from_host(DType::i32, {static_cast<std::int64_t>(meta.size())}, meta.data());
    itab_ = be_.from_host(DType::i32, {static_cast<std::int64_t>(itab.size())}, itab.data());
    rtab_ = be_.from_host(rtab, {static_cast<std::int64_t>(rtab.size())});
    // Power-of-two groups for the in-kernel trees; building the program here keeps the first evaluation fast.
    local_logpdf_ = be_.group_size(prog_, "hf_logpdf", 128);
    local_grad_ = be_.group_size(prog_, "hf_grad", 64);
}

std::int64_t OpenCLFusedLikelihood::points(const Tensor& pars, const char* op) const {
    be_.check_owner(pars, op);
    if (pars.dtype() != be_.float_dtype())
        throw ShapeError(std::string("opencl: ") + op + ": pars must be " + dtype_name(be_.float_dtype()) + ", got " +
                         dtype_name(pars.dtype()));
    const bool ok = (pars.ndim() == 2 && pars.dim(1) == n_pars_) || (pars.ndim() == 1 && pars.dim(0) == n_pars_);
    if (!ok)
        throw ShapeError(std::string("opencl: ") + op + ": pars must be [K, " + std::to_string(n_pars_) + "], got " +
                         shape_str(pars.shape()));
    return pars.ndim() == 2 ? pars.dim(0) : 1;
}

cl_long OpenCLFusedLikelihood::data_stride(const Tensor& data, std::int64_t K, const char* op) const {
    be_.check_owner(data, op);
    const std::int64_t width = n_main_ + n_aux_;
    if (data.dtype() != be_.float_dtype())
        throw ShapeError(std::string("opencl: ") + op + ": data must be " + dtype_name(be_.float_dtype()));
    if (data.ndim() == 1 && data.dim(0) == width) return 0;
    if (data.ndim() == 2 && data.dim(1) == width && (data.dim(0) == K || data.dim(0) == 1))
        return data.dim(0) == 1 ? 0 : width;
    throw ShapeError(std::string("opencl: ") + op + ": data must be [" + std::to_string(width) + "] or [" +
                     std::to_string(K) + ", " + std::to_string(width) + "], got " + shape_str(data.shape()));
}

Tensor OpenCLFusedLikelihood::logpdf(const Tensor& pars, const BoundData& bound, Tensor* grad) {
    // The kernels take the data-only terms with the rest: the default bind (the tensor alone) is all they need.
    const Tensor& data = bound.data();
    const std::int64_t K = points(pars, "logpdf");
    const cl_long stride = data_stride(data, K, "logpdf");
    const DType rt = be_.float_dtype();
    Tensor out = be_.empty(rt, {K});
    const bool want = grad != nullptr;
    // Per-evaluation scratch for the gradient (d logpdf / d rate per bin; per element its additive base, the
    // product of its nonzero factors and its count of zero factors). One-element stand-ins otherwise.
    const std::int64_t kn = want ? K * n_main_ : 1, ke = want ? K * n_elem_ : 1;
    Tensor w = be_.empty(rt, {kn}), base = be_.empty(rt, {ke}), pnz = be_.empty(rt, {ke});
    Tensor zc = be_.empty(DType::i32, {ke});
    // Local scratch holds hf_wide partial sums: double when the device has it, else the precision's type.
    const std::size_t rsize = be_.device().fp64() ? 8 : dtype_size(rt);
    be_.run_groups(prog_, "hf_logpdf", static_cast<std::size_t>(K), local_logpdf_, static_cast<cl_long>(K), meta_,
                   itab_, rtab_, pars, data, stride, out, static_cast<cl_int>(want ? 1 : 0), w, base, pnz, zc,
                   LocalMem{local_logpdf_ * rsize}, LocalMem{local_logpdf_ * rsize});
    if (want) {
        *grad = be_.empty(rt, {K, n_pars_});
        be_.run_groups(prog_, "hf_grad", static_cast<std::size_t>(K * n_pars_), local_grad_, static_cast<cl_long>(K),
                       meta_, itab_, rtab_, pars, data, stride, w, base, pnz, zc, *grad,
                       LocalMem{local_grad_ * rsize}, LocalMem{local_grad_ * rsize});
    }
    return out;
}

bool OpenCLFusedLikelihood::input_gradient(const Tensor& pars, const BoundData& bound, PackedGradient* out) {
    const Tensor& data = bound.data();
    const std::int64_t K = points(pars, "input_gradient");
    const cl_long stride = data_stride(data, K, "input_gradient");
    const DType rt = be_.float_dtype();
    const std::int64_t W = n_main_ + n_aux_;
    Tensor w = be_.empty(rt, {std::max<std::int64_t>(K * n_main_, 1)});
    Tensor base = be_.empty(rt, {std::max<std::int64_t>(K * n_elem_, 1)}), pnz = be_.empty(rt, base.shape());
    Tensor zc = be_.empty(DType::i32, base.shape());
    const std::size_t rsize = be_.device().fp64() ? 8 : dtype_size(rt);
    out->value = be_.empty(rt, {K});
    out->pars = be_.empty(rt, {K, n_pars_});
    be_.run_groups(prog_, "hf_logpdf", static_cast<std::size_t>(K), local_logpdf_, static_cast<cl_long>(K), meta_,
                   itab_, rtab_, pars, data, stride, out->value, static_cast<cl_int>(1), w, base, pnz, zc,
                   LocalMem{local_logpdf_ * rsize}, LocalMem{local_logpdf_ * rsize});
    be_.run_groups(prog_, "hf_grad", static_cast<std::size_t>(K * n_pars_), local_grad_, static_cast<cl_long>(K), meta_,
                   itab_, rtab_, pars, data, stride, w, base, pnz, zc, out->pars, LocalMem{local_grad_ * rsize},
                   LocalMem{local_grad_ * rsize});
    // Every output at least one element long: a kernel argument cannot be an empty buffer.
    auto make = [&](std::int64_t n) { return be_.empty(rt, {K, n}); };
    auto arg = [](const Tensor& t, const Tensor& stand_in) -> const Tensor& { return t.size() > 0 ? t : stand_in; };
    const Tensor one = be_.empty(rt, {1});
    out->elem_nominal = make(n_elem_), out->factor_lo = make(n_fac_), out->factor_hi = make(n_fac_);
    out->factor_coef = make(6 * n_fac_), out->delta_lo = make(n_del_), out->delta_nom = make(n_del_);
    out->delta_hi = make(n_del_), out->gauss_sigma = make(n_gauss_), out->pois_tau = make(n_pois_);
    out->data = be_.full({K, W}, 0.0, rt);
    be_.run(prog_, "hf_input_grad_elements", static_cast<std::size_t>(K * n_elem_), static_cast<cl_long>(K), meta_,
            itab_, rtab_, pars, w, base, pnz, zc, arg(out->elem_nominal, one), arg(out->factor_lo, one),
            arg(out->factor_hi, one), arg(out->factor_coef, one), arg(out->delta_lo, one), arg(out->delta_nom, one),
            arg(out->delta_hi, one));
    be_.run(prog_, "hf_input_grad_data", static_cast<std::size_t>(K * (n_main_ + n_gauss_ + n_pois_)),
            static_cast<cl_long>(K), meta_, itab_, rtab_, pars, data, stride, base, pnz, zc,
            arg(out->gauss_sigma, one), arg(out->pois_tau, one), arg(out->data, one));
    return true;
}

bool OpenCLFusedLikelihood::expected_data_vjp(const Tensor& pars, const Tensor& cot_main, const Tensor& cot_aux,
                                              PackedGradient* out) {
    const std::int64_t K = points(pars, "expected_data_vjp");
    if (cot_main.shape() != Shape{K, n_main_} || cot_aux.shape() != Shape{K, n_aux_})
        throw ShapeError("opencl: expected_data_vjp: the cotangents must be [" + std::to_string(K) + ", " +
                         std::to_string(n_main_) + "] and [" + std::to_string(K) + ", " + std::to_string(n_aux_) +
                         "], got " + shape_str(cot_main.shape()) + " and " + shape_str(cot_aux.shape()));
    const DType rt = be_.float_dtype();
    auto make = [&](std::int64_t n) { return be_.empty(rt, {K, n}); };
    auto arg = [](const Tensor& t, const Tensor& stand_in) -> const Tensor& { return t.size() > 0 ? t : stand_in; };
    const Tensor one = be_.empty(rt, {1});
    const Tensor cm = arg(be_.cast(cot_main, rt), one), ca = arg(be_.cast(cot_aux, rt), one);
    Tensor base = be_.empty(rt, {std::max<std::int64_t>(K * n_elem_, 1)}), pnz = be_.empty(rt, base.shape());
    Tensor zc = be_.empty(DType::i32, base.shape());
    out->value = Tensor();
    out->pars = make(n_pars_);
    out->elem_nominal = make(n_elem_), out->factor_lo = make(n_fac_), out->factor_hi = make(n_fac_);
    out->factor_coef = make(6 * n_fac_), out->delta_lo = make(n_del_), out->delta_nom = make(n_del_);
    out->delta_hi = make(n_del_), out->pois_tau = make(n_pois_);
    out->gauss_sigma = n_gauss_ > 0 ? be_.full({K, n_gauss_}, 0.0, rt) : make(0);
    out->data = be_.full({K, n_main_ + n_aux_}, 0.0, rt);
    be_.run(prog_, "hf_vjp_elements", static_cast<std::size_t>(K * n_elem_), static_cast<cl_long>(K), meta_, itab_,
            rtab_, pars, base, pnz, zc);
    be_.run(prog_, "hf_input_grad_elements", static_cast<std::size_t>(K * n_elem_), static_cast<cl_long>(K), meta_,
            itab_, rtab_, pars, cm, base, pnz, zc, arg(out->elem_nominal, one), arg(out->factor_lo, one),
            arg(out->factor_hi, one), arg(out->factor_coef, one), arg(out->delta_lo, one), arg(out->delta_nom, one),
            arg(out->delta_hi, one));
    be_.run(prog_, "hf_vjp_pars", static_cast<std::size_t>(K * n_pars_), static_cast<cl_long>(K), meta_, itab_, rtab_,
            pars, cm, ca, base, pnz, zc, arg(out->pars, one));
    be_.run(prog_, "hf_vjp_tau", static_cast<std::size_t>(K * n_pois_), static_cast<cl_long>(K), meta_, itab_, rtab_,
            pars, ca, arg(out->pois_tau, one));
    return true;
}

Tensor OpenCLFusedLikelihood::expected_main(const Tensor& pars) {
    const std::int64_t K = points(pars, "expected_main");
    Tensor out = be_.empty(be_.float_dtype(), {K, n_main_});
    be_.run(prog_, "hf_expected_main", static_cast<std::size_t>(K * n_main_), static_cast<cl_long>(K), meta_, itab_,
            rtab_, pars, out);
    return out;
}

Tensor OpenCLFusedLikelihood::expected_aux(const Tensor& pars) {
    const std::int64_t K = points(pars, "expected_aux");
    Tensor out = be_.empty(be_.float_dtype(), {K, n_aux_});
    be_.run(prog_, "hf_expected_aux", static_cast<std::size_t>(K * n_aux_), static_cast<cl_long>(K), meta_, itab_,
            rtab_, pars, out);
    return out;
}

}  // namespace hf::ocl
