// normfactor: a free scale factor of a sample (pyhf's normfactor), one unconstrained parameter, init 1,
// bounds [0, 10].
#include "modifiers/modifier.hpp"
#include "modifiers/registry.hpp"
#include "workspace/schema_check.hpp"

namespace hf::detail {

namespace {

class Normfactor final : public ModifierKind {
public:
    ModifierType type() const override { return ModifierType::normfactor; }
    const char* name() const override { return "normfactor"; }

    void check_json_data(const SchemaCheck& check, const json::Value& data, const std::string& path) const override {
        check.null(data, path);
    }

    Constraint constraint() const override { return Constraint::none; }
    ConfigAttrs configurable() const override { return {}; }
    void collect(const ModifierSpec& m, const SampleSpec&, std::int64_t, ParamCollector& c) const override {
        c.add(type(), m.name, free_requirement(*this, m, 1));
    }

    void lower(const ModifierSpec&, const Element& e, PackedBuilder& out) const override {
        out.add_factor(e.parameter.offset, kFactorLinear);
    }
};

}  // namespace

const ModifierKind& normfactor_kind() {
    static const Normfactor kind;
    return kind;
}

}  // namespace hf::detail
