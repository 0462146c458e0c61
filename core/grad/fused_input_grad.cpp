// The fused route of the input gradient (fused_input_grad.hpp). The plugin returns d lp / d (every number of the
// packed likelihood, as if each were independent); each came from the spec's inputs in a known way, so
//   d lp / d y_i = sum over the packed numbers x computed from y_i of d lp / d x * d x / d y_i:
// a nominal, a histosys template or a normsys lo/hi is an input itself; code4 coefficients are functions of the
// normsys lo and hi (core/modifiers/code4.hpp); a staterror width is sqrt(sum vals^2) / sum nominals; a shapesys
// tau is (nominal / uncertainty)^2, and so is its aux datum. Histosys bins whose templates all equal the nominal
// are left out of the packed likelihood (they add 0 at every alpha), yet their templates have a gradient:
// d lp / d nominal of the element (w_b F_e, which the plugin returns) times the interpolation's partials.
#include "grad/fused_input_grad.hpp"

#include <cmath>
#include <memory>
#include <optional>

#include "grad/autodiff.hpp"
#include "grad/evaluate.hpp"
#include "hfcore/plugin/likelihood.hpp"
#include "modifiers/code4.hpp"

namespace hf::grad_detail {

namespace {

using i32 = std::int32_t;
using i64 = std::int64_t;

struct MatchedDelta {
    i32 lo, hi, nominal;
};
struct SkippedDelta {
    i64 elem;  // the packed element
    Delta d;
    double value;  // its lo = nominal = hi
    i32 nominal;
};
struct NormsysLink {
    i64 f;
    i32 lo, hi;
    bool code4;
    double dcoef_hi[6], dcoef_lo[6];
};
struct StatLink {
    i64 g;
    std::vector<i32> inputs;    // the carriers' vals, then their nominals
    std::vector<double> dsigma;  // d sigma / d each
};
struct TauLink {
    i64 q;
    i32 nominal, unc, aux;
    bool aux_is_tau;
    double dtau_dnom, dtau_dunc;
};

}  // namespace

// Which spec input each packed number came from (FusedInputGradient's).
struct PackedMap {
    std::vector<std::int32_t> elem_nominal;  // [E]
    std::vector<MatchedDelta> deltas;  // [D]
    std::vector<SkippedDelta> skipped;
    std::vector<NormsysLink> normsys;
    std::vector<StatLink> stat;
    std::vector<TauLink> tau;
};

namespace {

i32 factor_kind_of(FactorForm f) {
    return f == FactorForm::linear ? kFactorLinear : f == FactorForm::normsys_code1 ? kFactorNormsysCode1 : kFactorNormsysCode4;
}
i32 delta_kind_of(DeltaForm f) {
    return f == DeltaForm::code0 ? kDeltaCode0 : f == DeltaForm::code2 ? kDeltaCode2 : kDeltaCode4p;
}

// Whether packed element pe is structure element el (same bin, nominal, factors, and deltas up to those the packer
// leaves out); fills `deltas` and `skipped` with its deltas' links when it is.
bool lines_up(const PackedLikelihood& pk, i64 pe, const Element& el, const std::vector<double>& y, PackedMap& m,
              std::vector<SkippedDelta>& skipped) {
    if (pk.elem_bin[pe] != el.bin || pk.elem_nominal[pe] != y[el.nominal]) return false;
    const i32 f0 = pk.factor_offsets[pe];
    if (pk.factor_offsets[pe + 1] - f0 != static_cast<i32>(el.factors.size())) return false;
    for (std::size_t r = 0; r < el.factors.size(); ++r) {
        const Factor& f = el.factors[r];
        const auto pf = static_cast<std::size_t>(f0) + r;
        if (pk.factor_par[pf] != f.par || pk.factor_kind[pf] != factor_kind_of(f.form)) return false;
        if (f.form != FactorForm::linear && (pk.factor_lo[pf] != y[f.lo] || pk.factor_hi[pf] != y[f.hi])) return false;
    }
    i32 pd = pk.delta_offsets[pe];
    const i32 d1 = pk.delta_offsets[pe + 1];
    const double nom = y[el.nominal];
    for (const Delta& d : el.deltas) {
        if (y[d.lo] == nom && y[d.hi] == nom) {  // left out by the packer (core/modifiers/histosys.cpp)
            skipped.push_back({pe, d, nom, el.nominal});
            continue;
        }
        if (pd == d1 || pk.delta_par[pd] != d.par || pk.delta_kind[pd] != delta_kind_of(d.form) ||
            pk.delta_lo[pd] != y[d.lo] || pk.delta_hi[pd] != y[d.hi] || pk.delta_nom[pd] != nom)
            return false;
        m.deltas[static_cast<std::size_t>(pd++)] = {d.lo, d.hi, el.nominal};
    }
    return pd == d1;
}

// The map, or null when the packed arrays do not line up with `s` (then the Tier 1 route runs). Elements are
// matched within their bin (the packer orders samples by name, the spec as written); two that line up with the
// same packed element are equal in every number the gradient depends on, so either assignment gives it.
std::unique_ptr<PackedMap> map_packed(const PackedLikelihood& pk, const Structure& s, const std::vector<double>& y) {
    auto m = std::make_unique<PackedMap>();
    const i64 E = pk.n_elements();
    if (E != static_cast<i64>(s.elements.size()) || pk.n_main != s.n_main || pk.n_aux != s.n_aux ||
        pk.gauss_par.size() != s.gauss.size() || pk.pois_par.size() != s.pois.size())
        return nullptr;
    std::vector<std::vector<i64>> by_bin(static_cast<std::size_t>(s.n_main));
    for (i64 e = 0; e < E; ++e) by_bin[static_cast<std::size_t>(pk.elem_bin[e])].push_back(e);
    m->elem_nominal.assign(static_cast<std::size_t>(E), -1);
    m->deltas.resize(pk.delta_par.size());
    for (const Element& el : s.elements) {
        bool found = false;
        for (i64 pe : by_bin[static_cast<std::size_t>(el.bin)]) {
            std::vector<SkippedDelta> skipped;
            if (m->elem_nominal[static_cast<std::size_t>(pe)] >= 0 || !lines_up(pk, pe, el, y, *m, skipped)) continue;
            m->elem_nominal[static_cast<std::size_t>(pe)] = el.nominal;
            m->skipped.insert(m->skipped.end(), skipped.begin(), skipped.end());
            for (std::size_t r = 0; r < el.factors.size(); ++r) {
                const Factor& f = el.factors[r];
                if (f.form == FactorForm::linear) continue;
                NormsysLink n{pk.factor_offsets[pe] + static_cast<i64>(r), f.lo, f.hi, f.form == FactorForm::normsys_code4, {}, {}};
                Dual<double> c_hi[6], c_lo[6];
                hf::detail::code4_coefficients(Dual<double>(y[f.lo], 0.0), Dual<double>(y[f.hi], 1.0), c_hi);
                hf::detail::code4_coefficients(Dual<double>(y[f.lo], 1.0), Dual<double>(y[f.hi], 0.0), c_lo);
                for (int c = 0; c < 6; ++c) n.dcoef_hi[c] = c_hi[c].d, n.dcoef_lo[c] = c_lo[c].d;
                m->normsys.push_back(n);
            }
            found = true;
            break;
        }
        if (!found) return nullptr;
    }
    for (std::size_t i = 0; i < s.gauss.size(); ++i) {
        const Gauss& g = s.gauss[i];
        if (pk.gauss_par[i] != g.par || pk.gauss_aux[i] != g.aux) return nullptr;
        if (g.stat_vals.empty()) continue;
        double nomsum = 0, sumsq = 0;
        for (i32 k : g.stat_noms) nomsum += y[k];
        for (i32 k : g.stat_vals) sumsq += y[k] * y[k];
        const double root = std::sqrt(sumsq), sigma = root / nomsum;
        StatLink l{static_cast<i64>(i), {}, {}};
        for (i32 k : g.stat_vals) l.inputs.push_back(k), l.dsigma.push_back(y[k] / (root * nomsum));
        for (i32 k : g.stat_noms) l.inputs.push_back(k), l.dsigma.push_back(-sigma / nomsum);
        m->stat.push_back(std::move(l));
    }
    for (std::size_t i = 0; i < s.pois.size(); ++i) {
        const Poisson& q = s.pois[i];
        if (pk.pois_par[i] != q.par || pk.pois_aux[i] != q.aux) return nullptr;
        if (q.nominal < 0) continue;
        const double tau = poisson_tau(q, y.data());
        m->tau.push_back({static_cast<i64>(i), q.nominal, q.unc, q.aux, q.aux_is_tau, 2.0 * tau / y[q.nominal],
                          -2.0 * tau / y[q.unc]});
    }
    return m;
}

// d delta / d (lo, hi) of a histosys bin at alpha (d / d nominal is minus their sum: delta depends on hi - nominal
// and nominal - lo only).
std::pair<double, double> delta_partials(const SkippedDelta& sd, double alpha) {
    Delta d = sd.d;
    d.lo = 0, d.hi = 1;
    const Dual<double> lo_seed[2] = {Dual<double>(sd.value, 1.0), Dual<double>(sd.value)};
    const Dual<double> hi_seed[2] = {Dual<double>(sd.value), Dual<double>(sd.value, 1.0)};
    const Dual<double> nom(sd.value), a(alpha);
    return {delta_value(d, lo_seed, nom, a).d, delta_value(d, hi_seed, nom, a).d};
}

}  // namespace

namespace {

// The plugin's PackedGradient on the host, in double.
struct HostPacked {
    std::vector<double> value, par, nom, flo, fhi, coef, dlo, dnom, dhi, sigma, tau, data;
};

HostPacked download(Backend& b, const PackedGradient& pg) {
    auto host = [&](const Tensor& t) { return t.defined() ? b.to_host_double(t) : std::vector<double>(); };
    return {host(pg.value), host(pg.pars),      host(pg.elem_nominal), host(pg.factor_lo),
            host(pg.factor_hi), host(pg.factor_coef), host(pg.delta_lo),  host(pg.delta_nom),
            host(pg.delta_hi),  host(pg.gauss_sigma), host(pg.pois_tau),  host(pg.data)};
}

// d / d inputs of point k (its parameters `pars`) from the packed partials, added into di. `own_aux`: the aux data
// were the model's own, so a shapesys aux datum is its tau and takes the chain rule too; otherwise they were
// given, constants here.
void map_point(const PackedMap& m, const Structure& s, const PackedLikelihood& pk, const HostPacked& h,
               std::size_t k, const double* pars, bool own_aux, double* di) {
    const std::size_t N = static_cast<std::size_t>(s.n_main), E = m.elem_nominal.size(), D = m.deltas.size();
    const std::size_t F = pk.factor_par.size(), G = s.gauss.size(), Q = s.pois.size();
    const std::size_t W = N + static_cast<std::size_t>(s.n_aux);
    const double* gn = h.nom.data() + k * E;
    for (std::size_t e = 0; e < E; ++e) di[m.elem_nominal[e]] += gn[e];
    for (std::size_t d = 0; d < D; ++d) {
        const MatchedDelta& md = m.deltas[d];
        di[md.lo] += h.dlo[k * D + d], di[md.hi] += h.dhi[k * D + d], di[md.nominal] += h.dnom[k * D + d];
    }
    for (const SkippedDelta& sd : m.skipped) {
        const auto [dlo, dhi] = delta_partials(sd, pars[sd.d.par]);
        const double g = gn[sd.elem];
        di[sd.d.lo] += g * dlo, di[sd.d.hi] += g * dhi, di[sd.nominal] -= g * (dlo + dhi);
    }
    for (const NormsysLink& n : m.normsys) {
        const std::size_t f = k * F + static_cast<std::size_t>(n.f);
        double hi = h.fhi[f], lo = h.flo[f];
        if (n.code4)
            for (std::size_t c = 0; c < 6; ++c) {
                hi += h.coef[6 * f + c] * n.dcoef_hi[c];
                lo += h.coef[6 * f + c] * n.dcoef_lo[c];
            }
        di[n.hi] += hi, di[n.lo] += lo;
    }
    for (const StatLink& l : m.stat)
        for (std::size_t j = 0; j < l.inputs.size(); ++j)
            di[l.inputs[j]] += h.sigma[k * G + static_cast<std::size_t>(l.g)] * l.dsigma[j];
    for (const TauLink& t : m.tau) {
        const double g = h.tau[k * Q + static_cast<std::size_t>(t.q)] +
                         (own_aux && t.aux_is_tau ? h.data[k * W + N + static_cast<std::size_t>(t.aux)] : 0.0);
        di[t.nominal] += g * t.dtau_dnom, di[t.unc] += g * t.dtau_dunc;
    }
}

// The fused route's result scaled by `scale` (-2: twice_nll from logpdf), K points: value (when given), d/d
// inputs, d/d pars, d/d main data, and d/d aux data when `aux_given`.
BackendGradients mapped(const PackedMap& m, const Structure& s, const PackedLikelihood& pk, const HostPacked& h,
                        const std::vector<double>& pars, std::int64_t K, bool own_aux, bool aux_given, double scale) {
    const std::size_t P = static_cast<std::size_t>(s.n_pars), N = static_cast<std::size_t>(s.n_main);
    const std::size_t A = static_cast<std::size_t>(s.n_aux), W = N + A;
    const std::size_t n_in = static_cast<std::size_t>(s.n_inputs), nk = static_cast<std::size_t>(K);
    BackendGradients out;
    out.d_inputs.assign(nk * n_in, 0.0);
    out.d_pars.resize(nk * P);
    out.d_main.resize(nk * N);
    if (aux_given) out.d_aux.resize(nk * A);
    for (std::size_t k = 0; k < nk; ++k) {
        double* di = out.d_inputs.data() + k * n_in;
        map_point(m, s, pk, h, k, pars.data() + k * P, own_aux, di);
        for (std::size_t i = 0; i < n_in; ++i) di[i] *= scale;
        if (!h.value.empty()) out.value.push_back(scale * h.value[k]);
        for (std::size_t p = 0; p < P; ++p) out.d_pars[k * P + p] = scale * h.par[k * P + p];
        for (std::size_t b = 0; b < N; ++b) out.d_main[k * N + b] = scale * h.data[k * W + b];
        if (aux_given)
            for (std::size_t a = 0; a < A; ++a) out.d_aux[k * A + a] = scale * h.data[k * W + N + a];
    }
    return out;
}

}  // namespace

FusedInputGradient::FusedInputGradient(const Model& model, const Structure& s, const std::vector<double>& y)
    : model_(model), s_(s), y_(y), lik_(fused_likelihood(model)), pk_(packed_likelihood(model)),
      map_(map_packed(pk_, s, y)), route_(std::string("fused: ") + lik_.implementation()) {}

FusedInputGradient::~FusedInputGradient() = default;

std::optional<BackendGradients> FusedInputGradient::twice_nll(const std::vector<double>& pars, std::int64_t K,
                                                              const std::vector<double>& main_data) const {
    std::vector<double> data = main_data;
    const auto aux = model_aux(s_, y_.data());
    data.insert(data.end(), aux.begin(), aux.end());
    return evaluate(pars, K, data, true);
}

std::optional<BackendGradients> FusedInputGradient::at_data(const std::vector<double>& pars, std::int64_t K,
                                                            const std::vector<double>& data) const {
    return evaluate(pars, K, data, false);
}

std::optional<BackendGradients> FusedInputGradient::evaluate(const std::vector<double>& pars, std::int64_t K,
                                                             const std::vector<double>& data, bool own_aux) const {
    Backend& b = *model_.backend();
    PackedGradient pg;
    if (!map_ || !lik_.input_gradient(b.from_host(pars, {K, s_.n_pars}), *lik_.bind(b.from_host(data)), &pg))
        return std::nullopt;
    return mapped(*map_, s_, pk_, download(b, pg), pars, K, own_aux, !own_aux, -2.0);
}

std::optional<BackendGradients> FusedInputGradient::expected_data_vjp(const std::vector<double>& pars,
                                                                      const std::vector<double>& cot_main,
                                                                      const std::vector<double>& cot_aux) const {
    Backend& b = *model_.backend();
    PackedGradient pg;
    if (!map_ || !lik_.expected_data_vjp(b.from_host(pars, {1, s_.n_pars}), b.from_host(cot_main, {1, s_.n_main}),
                                         b.from_host(cot_aux, {1, s_.n_aux}), &pg))
        return std::nullopt;
    BackendGradients r = mapped(*map_, s_, pk_, download(b, pg), pars, 1, false, false, 1.0);
    r.d_main.clear();
    return r;
}

BackendGradients backend_twice_nll(const Model& model, const Structure& s, const std::vector<double>& y,
                                   const std::vector<double>& pars, std::int64_t K,
                                   const std::vector<double>& main_data, std::string* route,
                                   const FusedInputGradient* fused) {
    std::optional<FusedInputGradient> own;
    if (!fused) fused = &own.emplace(model, s, y);
    if (auto r = fused->twice_nll(pars, K, main_data)) {
        if (route) *route = fused->route();
        return std::move(*r);
    }
    if (route) *route = "tier-1 ops";
    return BackendInputGradient(*model.backend(), s, y).twice_nll(pars, K, main_data);
}

}  // namespace hf::grad_detail
