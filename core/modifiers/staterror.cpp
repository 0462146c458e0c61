// staterror: the Monte Carlo statistical uncertainty of the samples that carry it (pyhf's staterror). One
// Gaussian-constrained parameter per bin of the channels where it appears, shared by every sample carrying it
// there, with sigma = sqrt(sum of the samples' uncertainties^2) / sum of their nominals; bins with no
// uncertainty are fixed. Its parameter sets are made after all others of the walk, in sorted name order.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "modifiers/modifier.hpp"
#include "modifiers/registry.hpp"

namespace hf::detail {

namespace {

// pyhf derives one staterror mask per parameter from the samples carrying it; they must agree.
class SameChannelsForEverySample final : public UseCheck {
public:
    explicit SameChannelsForEverySample(const Fail& fail) : fail_(fail) {}
    void use(const ModifierSpec& m, const SampleSpec& s, const ChannelSpec& c) override {
        cover_[m.name][s.name].insert(c.name);
        first_.try_emplace(m.name, &m);
    }
    void finish() override {
        for (const auto& [name, per_sample] : cover_) {
            const auto& [first_sample, first_channels] = *per_sample.begin();
            for (const auto& [sample, channels] : per_sample)
                if (channels != first_channels)
                    fail_(first_.at(name)->json_path,
                          "staterror '" + name + "' is carried by sample '" + first_sample + "' in channels " +
                              list(first_channels) + " but by sample '" + sample + "' in channels " + list(channels) +
                              "; every sample with this staterror must carry it in the same channels");
        }
    }

private:
    static std::string list(const std::set<std::string>& s) {
        std::string out;
        for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
        return "{" + out + "}";
    }
    const Fail& fail_;
    std::map<std::string, std::map<std::string, std::set<std::string>>> cover_;  // name -> sample -> channels
    std::map<std::string, const ModifierSpec*> first_;
};

class Staterror final : public PerBinDataKind {
public:
    ModifierType type() const override { return ModifierType::staterror; }
    const char* name() const override { return "staterror"; }

    std::unique_ptr<UseCheck> use_check(const Fail& fail) const override {
        return std::make_unique<SameChannelsForEverySample>(fail);
    }
    // The bins of every channel where a sample carries it.
    std::size_t components(const ModifierSpec& m, const SampleSpec&,
                           const std::vector<ChannelSpec>& channels) const override {
        std::size_t n = 0;
        for (const auto& c : channels) {
            bool carried = false;
            for (const auto& s : c.samples)
                for (const auto& x : s.modifiers) carried = carried || (x.type == type() && x.name == m.name);
            if (carried) n += c.samples[0].data.size();
        }
        return n;
    }

    Constraint constraint() const override { return Constraint::normal; }
    ConfigAttrs configurable() const override { return {.auxdata = true, .sigmas = true}; }
    void collect(const ModifierSpec& m, const SampleSpec& s, std::int64_t channel_offset,
                 ParamCollector& c) const override {
        c.defer(type(), DeferredUse{&m, &s, channel_offset});
    }
    // Per global bin: sigma = sqrt(sum over carrying samples of delta^2) / sum of their nominals.
    void finish(ParamCollector& c, std::int64_t n_main) const override {
        for (const auto& [name, uses] : c.deferred(type())) {
            std::vector<double> nomsum(static_cast<std::size_t>(n_main), 0.0), relsq(nomsum.size(), 0.0);
            std::vector<char> mask(nomsum.size(), 0);
            for (const auto& u : uses)
                for (std::size_t b = 0; b < u.sample->data.size(); ++b) {
                    const std::size_t g = static_cast<std::size_t>(u.channel_offset) + b;
                    nomsum[g] += u.sample->data[b];
                    mask[g] = 1;
                }
            for (const auto& u : uses)
                for (std::size_t b = 0; b < u.modifier->vals.size(); ++b) {
                    const std::size_t g = static_cast<std::size_t>(u.channel_offset) + b;
                    if (nomsum[g] > 0) relsq[g] += (u.modifier->vals[b] / nomsum[g]) * (u.modifier->vals[b] / nomsum[g]);
                }
            Requirement r;
            r.type = type();
            r.json_path = uses.front().modifier->json_path;
            r.constraint = constraint();
            r.is_scalar = false;
            std::vector<double> sigmas;
            std::vector<std::int64_t>& bins = c.component_bins[name];
            for (std::size_t g = 0; g < nomsum.size(); ++g) {
                if (!mask[g]) continue;
                const double sigma = std::sqrt(relsq[g]);
                const bool fixed = sigma == 0.0;
                sigmas.push_back(fixed ? 1.0 : sigma);
                r.fixed.push_back(fixed);
                bins.push_back(static_cast<std::int64_t>(g));
            }
            r.n = static_cast<std::int64_t>(sigmas.size());
            r.inits = std::vector<double>(sigmas.size(), 1.0);
            r.bounds = std::vector<std::pair<double, double>>(sigmas.size(), {1e-10, 10.0});
            r.defines = configurable();
            r.auxdata = std::vector<double>(sigmas.size(), 1.0);
            r.sigmas = std::move(sigmas);
            c.add(type(), name, std::move(r));
        }
    }

    // The parameter of this element's global bin among the bins the staterror covers.
    void lower(const ModifierSpec& m, const Element& e, PackedBuilder& out) const override {
        const auto& bins = e.component_bins.at(m.name);
        auto it = std::lower_bound(bins.begin(), bins.end(), e.global_bin);
        out.add_factor(e.parameter.offset + (it - bins.begin()), kFactorLinear);
    }
};

}  // namespace

const ModifierKind& staterror_kind() {
    static const Staterror kind;
    return kind;
}

}  // namespace hf::detail
