// shapesys: an uncorrelated per-bin uncertainty of one sample (pyhf's shapesys), given as absolute
// uncertainties. One Poisson-constrained parameter per bin with tau = (nominal / uncertainty)^2; bins without an
// uncertainty (or without events) are fixed. A shapesys parameter belongs to one sample.
#include <map>
#include <utility>

#include "hfcore/errors.hpp"
#include "modifiers/modifier.hpp"
#include "modifiers/registry.hpp"

namespace hf::detail {

namespace {

class OneSampleOnly final : public UseCheck {
public:
    explicit OneSampleOnly(const Fail& fail) : fail_(fail) {}
    void use(const ModifierSpec& m, const SampleSpec& s, const ChannelSpec& c) override {
        if (auto [it, fresh] = first_.try_emplace(m.name, &c, &s); !fresh)
            fail_(m.json_path, "shapesys '" + m.name + "' is already used by sample '" + it->second.second->name +
                                   "' in channel '" + it->second.first->name + "' (" + it->second.second->json_path +
                                   "); a shapesys parameter cannot be shared between samples");
    }

private:
    const Fail& fail_;
    std::map<std::string, std::pair<const ChannelSpec*, const SampleSpec*>> first_;
};

class Shapesys final : public PerBinDataKind {
public:
    ModifierType type() const override { return ModifierType::shapesys; }
    const char* name() const override { return "shapesys"; }

    std::unique_ptr<UseCheck> use_check(const Fail& fail) const override {
        return std::make_unique<OneSampleOnly>(fail);
    }
    std::size_t components(const ModifierSpec&, const SampleSpec& s, const std::vector<ChannelSpec>&) const override {
        return s.data.size();
    }

    Constraint constraint() const override { return Constraint::poisson; }
    ConfigAttrs configurable() const override { return {.auxdata = true, .factors = true}; }
    void collect(const ModifierSpec& m, const SampleSpec& s, std::int64_t, ParamCollector& c) const override {
        if (c.has(type(), m.name))
            throw InputError(c.source(), m.json_path,
                             "shapesys '" + m.name + "' is already used by another sample (at " +
                                 c.requirement(type(), m.name).json_path + "); shapesys names cannot be shared");
        const std::size_t nb = s.data.size();
        Requirement r;
        r.type = type();
        r.json_path = m.json_path;
        r.constraint = constraint();
        r.n = static_cast<std::int64_t>(nb);
        r.is_scalar = false;
        r.inits = std::vector<double>(nb, 1.0);
        r.bounds = std::vector<std::pair<double, double>>(nb, {1e-10, 10.0});
        std::vector<double> factors(nb);
        r.fixed.resize(nb);
        for (std::size_t b = 0; b < nb; ++b) {
            const double nom = s.data[b], unc = m.vals[b];
            const bool valid = nom > 0 && unc > 0;
            factors[b] = valid ? nom * nom / (unc * unc) : 1.0;
            r.fixed[b] = !valid;
        }
        r.defines = configurable();
        r.auxdata = factors;
        r.factors = factors;
        c.add(type(), m.name, std::move(r));
    }

    void lower(const ModifierSpec&, const Element& e, PackedBuilder& out) const override {
        out.add_factor(e.parameter.offset + static_cast<std::int64_t>(e.bin), kFactorLinear);
    }
};

}  // namespace

const ModifierKind& shapesys_kind() {
    static const Shapesys kind;
    return kind;
}

}  // namespace hf::detail
