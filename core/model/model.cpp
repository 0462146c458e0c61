// Model: pyhf's model config plus evaluation through the backend's fused likelihood (or core's fallback).
#include "hfcore/model.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include "bound_state.hpp"
#include "fallback_likelihood.hpp"
#include "hfcore/backend.hpp"
#include "hfcore/plugin/likelihood.hpp"
#include "modifiers/registry.hpp"
#include "multimodal.hpp"
#include "host_model.hpp"
#include "workspace/checks.hpp"

namespace hf {

struct Model::Impl {
    BackendPtr backend;
    ModifierSettings settings;
    detail::Layout layout;
    std::vector<std::string> par_order;
    std::vector<ParameterSet> sets;
    std::map<std::string, std::size_t> index;
    PackedLikelihood packed;
    std::vector<std::int64_t> multimodal;
    std::unique_ptr<FusedLikelihood> likelihood;
    std::string poi;
    std::int64_t poi_index = -1;
    std::int64_t n_pars = 0;
    std::string source;
    ModelSpec spec;          // what the model was compiled from (clone())
    ModelOptions options;
    std::vector<std::int32_t> elem_sample;  // sample index of every packed element

    // expected_main_by_sample: the packed likelihood with every (sample, bin) its own bin, compiled on first use.
    std::once_flag by_sample_once;
    std::unique_ptr<FusedLikelihood> by_sample;

    // The host entry's last binding. A pyhf-style caller evaluates logpdf(pars, data) again and again with the
    // same data; binding costs an upload and the data-only constants (lgamma of every count: most of a small
    // model's evaluation; docs/decisions/likelihood-bound-to-data.md), so the host entry keeps its last bound
    // likelihood while the data are equal.
    // Fits, toys and hypotests bind explicitly and never come here.
    std::mutex host_bind_mutex;
    std::vector<double> host_data;
    BoundLikelihood host_bound;
};

namespace {

// Expected counts must be Poisson means (>= 0) where every fit starts, the suggested initial parameters: pyhf's
// likelihood is NaN there otherwise and its fits fail without saying why. A negative yield of one sample in a
// bin whose total stays positive is accepted (as pyhf does; e.g. negative Monte Carlo weights).
void check_expected_counts(const Model& model, const ModelSpec& spec, const detail::Layout& layout) {
    // Without a negative number among the yields, histosys templates and initial values every factor and every
    // count is >= 0 at the start: no evaluation is needed (and none is made: a model uploads once, then waits).
    auto negative = [](const std::vector<double>& v) {
        return std::any_of(v.begin(), v.end(), [](double x) { return x < 0; });
    };
    bool any_negative = false;
    for (const auto& c : spec.channels)
        for (const auto& smp : c.samples) {
            any_negative = any_negative || negative(smp.data);
            for (const auto& mod : smp.modifiers) any_negative = any_negative || negative(mod.hi_data) || negative(mod.lo_data);
        }
    for (const auto& p : spec.measurement.parameters)
        any_negative = any_negative || (p.inits && negative(*p.inits));
    if (!any_negative) return;
    const auto rates = model.expected_actualdata(model.suggested_init());
    std::map<std::string, std::size_t> offset;  // channel name -> first bin in the model's (sorted) order
    std::size_t at = 0;
    for (std::size_t ci = 0; ci < layout.channels.size(); ++ci) {
        offset[layout.channels[ci]] = at;
        at += static_cast<std::size_t>(layout.channel_nbins[ci]);
    }
    for (const auto& c : spec.channels) {
        const std::size_t base = offset.at(c.name);
        for (std::size_t b = 0; b < c.samples[0].data.size(); ++b) {
            const double rate = rates[base + b];
            const SampleSpec* most_negative = nullptr;
            for (const auto& smp : c.samples) {
                if (!(smp.data[b] < 0)) continue;
                if (!most_negative || smp.data[b] < most_negative->data[b]) most_negative = &smp;
            }
            if (rate >= 0) continue;
            const std::string what = "the expected count of bin " + std::to_string(b) + " of channel '" + c.name +
                                     "' is " + json::format_double(rate) +
                                     " at the initial parameters; a Poisson mean must be >= 0 (pyhf's likelihood "
                                     "is NaN there and its fits fail)";
            if (most_negative)
                throw InputError(spec.source, json::path_index(json::path_key(most_negative->json_path, "data"), b),
                                 "sample '" + most_negative->name + "' has the yield " +
                                     json::format_double(most_negative->data[b]) + ", and " + what);
            throw InputError(spec.source, c.json_path, what);
        }
    }
}

}  // namespace

Model::Model(const ModelSpec& spec, BackendPtr backend, ModelOptions options) : impl_(std::make_unique<Impl>()) {
    if (!backend) throw PluginError("Model: no backend");
    detail::HostModel host = detail::compile_host_model(spec);
    Impl& m = *impl_;
    m.backend = std::move(backend);
    m.settings = spec.settings;
    m.source = spec.source;
    m.spec = spec;
    m.options = options;
    m.layout = std::move(host.layout);
    m.sets = std::move(host.sets);
    m.index = std::move(host.index);
    m.par_order = std::move(host.par_order);
    m.n_pars = host.n_pars;
    m.poi = spec.measurement.poi;
    m.poi_index = host.poi_index;
    m.packed = std::move(host.packed);
    m.elem_sample = std::move(host.elem_sample);
    m.multimodal = std::move(host.multimodal);
    if (options.prefer_fused) m.likelihood = compile_likelihood(*m.backend, m.packed);
    if (!m.likelihood) m.likelihood = detail::make_fallback_likelihood(*m.backend, m.packed);
    check_expected_counts(*this, spec, m.layout);
}

Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

const BackendPtr& Model::backend() const { return impl_->backend; }
const std::vector<std::string>& Model::channels() const { return impl_->layout.channels; }
const std::vector<std::string>& Model::samples() const { return impl_->layout.samples; }
const std::vector<std::int64_t>& Model::channel_nbins() const { return impl_->layout.channel_nbins; }
const std::vector<std::string>& Model::par_order() const { return impl_->par_order; }
const std::vector<ParameterSet>& Model::parameter_sets() const { return impl_->sets; }

const ParameterSet& Model::parameter_set(const std::string& name) const {
    auto it = impl_->index.find(name);
    if (it == impl_->index.end()) throw InputError(impl_->source, "", "the model has no parameter '" + name + "'");
    return impl_->sets[it->second];
}

std::pair<std::int64_t, std::int64_t> Model::par_slice(const std::string& name) const {
    const ParameterSet& s = parameter_set(name);
    return {s.offset, s.offset + s.n};
}

std::vector<std::string> Model::par_names() const {
    std::vector<std::string> names;
    for (const auto& s : impl_->sets) {
        // pyhf names per-bin parameter sets name[i] even with one bin; scalar sets keep their name.
        if (!detail::modifier_kind(s.modifier_type).per_bin())
            names.push_back(s.name);
        else
            for (std::int64_t i = 0; i < s.n; ++i) names.push_back(s.name + "[" + std::to_string(i) + "]");
    }
    return names;
}

std::int64_t Model::n_pars() const { return impl_->n_pars; }
std::int64_t Model::n_main() const { return impl_->packed.n_main; }
std::int64_t Model::n_aux() const { return impl_->packed.n_aux; }
const std::string& Model::poi_name() const { return impl_->poi; }
std::int64_t Model::poi_index() const { return impl_->poi_index; }
const ModifierSettings& Model::modifier_settings() const { return impl_->settings; }
const PackedLikelihood& packed_likelihood(const Model& model) { return model.impl_->packed; }
FusedLikelihood& fused_likelihood(const Model& model) { return *model.impl_->likelihood; }

std::vector<double> Model::aux_normal_widths() const {
    const auto& packed = impl_->packed;
    std::vector<double> sigma(static_cast<std::size_t>(n_aux()), 0.0);
    for (std::size_t g = 0; g < packed.gauss_aux.size(); ++g)
        sigma[static_cast<std::size_t>(packed.gauss_aux[g])] = packed.gauss_sigma[g];
    return sigma;
}
const std::vector<std::int64_t>& multimodal_parameters(const Model& model) { return model.impl_->multimodal; }
const char* Model::implementation() const { return impl_->likelihood->implementation(); }

std::vector<double> Model::suggested_init() const {
    std::vector<double> v;
    for (const auto& s : impl_->sets) v.insert(v.end(), s.inits.begin(), s.inits.end());
    return v;
}
std::vector<std::pair<double, double>> Model::suggested_bounds() const {
    std::vector<std::pair<double, double>> v;
    for (const auto& s : impl_->sets) v.insert(v.end(), s.bounds.begin(), s.bounds.end());
    return v;
}
std::vector<bool> Model::suggested_fixed() const {
    std::vector<bool> v;
    for (const auto& s : impl_->sets) v.insert(v.end(), s.fixed.begin(), s.fixed.end());
    return v;
}
std::vector<double> Model::auxdata() const {
    std::vector<double> v;
    for (const auto& s : impl_->sets)
        if (s.constrained) v.insert(v.end(), s.auxdata.begin(), s.auxdata.end());
    return v;
}

// The data's identity lives in the BoundLikelihood (one upload, the plugin's data-only constants once): two
// bound likelihoods of one model never see each other's data, from any thread. Only the host entry below keeps
// its last binding, by content, for pyhf-style callers.
BoundLikelihood Model::bind(const Tensor& data) const {
    auto s = std::make_shared<BoundLikelihood::State>();
    s->backend = impl_->backend;
    s->likelihood = impl_->likelihood.get();
    s->data = impl_->likelihood->bind(data);
    s->n_pars = impl_->n_pars;
    s->source = impl_->source;
    return BoundLikelihood(std::move(s));
}

BoundLikelihood Model::bind(const std::vector<double>& data) const {
    if (static_cast<std::int64_t>(data.size()) != n_main() + n_aux())
        throw InputError(impl_->source, "data", std::to_string(data.size()) + " data values, the model needs " +
                                                    std::to_string(n_main() + n_aux()) + " (main + aux)");
    return bind(impl_->backend->from_host(data));
}

Tensor Model::logpdf(const Tensor& pars, const Tensor& data, Tensor* grad) const {
    return impl_->likelihood->logpdf(pars, data, grad);
}

Tensor Model::expected_data(const Tensor& pars, bool include_auxdata) const {
    Tensor main = impl_->likelihood->expected_main(pars);
    if (!include_auxdata || impl_->packed.n_aux == 0) return main;
    Tensor aux = impl_->likelihood->expected_aux(pars);
    return impl_->backend->concat({main, aux}, 1);
}

Tensor Model::expected_main_jacobian(const Tensor& pars) const {
    return impl_->likelihood->expected_main_jacobian(pars);
}

bool Model::native_jacobian() const { return impl_->likelihood->native_jacobian(); }

namespace {
void check_pars(const std::vector<double>& pars, std::int64_t n, const std::string& src) {
    if (static_cast<std::int64_t>(pars.size()) != n)
        throw InputError(src, "pars", std::to_string(pars.size()) + " parameter values, the model has " +
                                          std::to_string(n));
}
}  // namespace

double Model::logpdf(const std::vector<double>& pars, const std::vector<double>& data) const {
    BoundLikelihood bound;
    {
        std::lock_guard<std::mutex> lock(impl_->host_bind_mutex);
        if (!impl_->host_bound.bound() || impl_->host_data != data) {
            impl_->host_bound = bind(data);
            impl_->host_data = data;
        }
        bound = impl_->host_bound;
    }
    return bound.logpdf(pars);
}

std::vector<double> Model::expected_data(const std::vector<double>& pars, bool include_auxdata) const {
    check_pars(pars, n_pars(), impl_->source);
    Backend& b = *impl_->backend;
    return b.to_host_double(expected_data(b.from_host(pars, {1, n_pars()}), include_auxdata));
}
std::vector<double> Model::expected_actualdata(const std::vector<double>& pars) const {
    return expected_data(pars, false);
}
std::vector<double> Model::expected_auxdata(const std::vector<double>& pars) const {
    check_pars(pars, n_pars(), impl_->source);
    Backend& b = *impl_->backend;
    if (n_aux() == 0) return {};
    return b.to_host_double(impl_->likelihood->expected_aux(b.from_host(pars, {1, n_pars()})));
}

std::vector<double> Model::expected_main_by_sample(const std::vector<double>& pars_kp, std::int64_t k) const {
    Impl& m = *impl_;
    if (k < 1 || static_cast<std::int64_t>(pars_kp.size()) != k * n_pars())
        throw InputError(m.source, "pars", std::to_string(pars_kp.size()) + " values for " + std::to_string(k) +
                                               " points of " + std::to_string(n_pars()));
    std::call_once(m.by_sample_once, [&m] {
        PackedLikelihood pk = m.packed;
        for (std::size_t e = 0; e < pk.elem_bin.size(); ++e)
            pk.elem_bin[e] = static_cast<std::int32_t>(m.elem_sample[e] * pk.n_main + pk.elem_bin[e]);
        pk.n_main *= static_cast<std::int64_t>(m.layout.samples.size());
        if (m.options.prefer_fused) m.by_sample = compile_likelihood(*m.backend, pk);
        if (!m.by_sample) m.by_sample = detail::make_fallback_likelihood(*m.backend, pk);
    });
    Backend& b = *m.backend;
    return b.to_host_double(m.by_sample->expected_main(b.from_host(pars_kp, {k, n_pars()})));
}

std::unique_ptr<Model> Model::clone(BackendPtr backend) const {
    if (!backend) {
        LoadOptions o;
        o.precision = impl_->backend->precision();
        backend = load_backend(impl_->backend->name(), o);
    }
    return std::make_unique<Model>(impl_->spec, std::move(backend), impl_->options);
}

std::vector<double> Model::data_from_observations(const std::vector<ObservationSpec>& observations,
                                                  bool include_auxdata, const std::string& source) const {
    const auto& L = impl_->layout;
    std::vector<double> data;
    for (std::size_t ci = 0; ci < L.channels.size(); ++ci) {
        auto it = std::find_if(observations.begin(), observations.end(),
                               [&](const ObservationSpec& o) { return o.name == L.channels[ci]; });
        if (it == observations.end())
            throw InputError(source, "observations", "no observation for channel '" + L.channels[ci] + "'");
        if (static_cast<std::int64_t>(it->data.size()) != L.channel_nbins[ci])
            throw InputError(source, it->json_path + ".data",
                             std::to_string(it->data.size()) + " numbers, channel '" + L.channels[ci] + "' has " +
                                 std::to_string(L.channel_nbins[ci]) + " bins");
        detail::check_observed_counts(*it, source);
        data.insert(data.end(), it->data.begin(), it->data.end());
    }
    if (include_auxdata) {
        auto aux = auxdata();
        data.insert(data.end(), aux.begin(), aux.end());
    }
    return data;
}

}  // namespace hf
