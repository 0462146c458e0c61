// lumi: the luminosity scale of a sample (pyhf's lumi), one Gaussian-constrained parameter that must be named
// "lumi" and whose init, bounds, auxdata and sigma come from the measurement alone.
#include "hfcore/errors.hpp"
#include "modifiers/modifier.hpp"
#include "modifiers/registry.hpp"
#include "workspace/schema_check.hpp"

namespace hf::detail {

namespace {

class Lumi final : public ModifierKind {
public:
    ModifierType type() const override { return ModifierType::lumi; }
    const char* name() const override { return "lumi"; }

    void check_json_name(const SchemaCheck& check, const json::Value& name, const std::string& path) const override {
        check.constant(name, path, "lumi", " (a lumi modifier must be named lumi)");
    }
    void check_json_data(const SchemaCheck& check, const json::Value& data, const std::string& path) const override {
        check.null(data, path);
    }

    Constraint constraint() const override { return Constraint::normal; }
    ConfigAttrs configurable() const override { return {.auxdata = true, .sigmas = true}; }
    std::vector<std::string> required_config() const override { return {"inits", "bounds", "auxdata", "sigmas"}; }
    void collect(const ModifierSpec& m, const SampleSpec&, std::int64_t, ParamCollector& c) const override {
        if (m.name != name())
            throw InputError(c.source(), m.json_path + ".name",
                             "a lumi modifier must be named 'lumi', not '" + m.name + "'");
        Requirement r;
        r.type = type();
        r.json_path = m.json_path;
        r.constraint = constraint();
        r.fixed = {false};
        r.defines = configurable();  // no defaults: the measurement must give them
        c.add(type(), m.name, std::move(r));
    }

    void lower(const ModifierSpec&, const Element& e, PackedBuilder& out) const override {
        out.add_factor(e.parameter.offset, kFactorLinear);
    }
};

}  // namespace

const ModifierKind& lumi_kind() {
    static const Lumi kind;
    return kind;
}

}  // namespace hf::detail
