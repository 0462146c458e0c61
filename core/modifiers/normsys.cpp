// normsys: a normalisation uncertainty (pyhf's normsys): the sample scaled by the interpolation between its
// down and up factors lo and hi, code1 (exponential) or code4 (polynomial inside |alpha| < 1, exponential
// outside). One Gaussian-constrained parameter, which histosys modifiers may share.
#include <cmath>

#include "modifiers/code4.hpp"
#include "modifiers/modifier.hpp"
#include "modifiers/registry.hpp"
#include "workspace/schema_check.hpp"

namespace hf::detail {

namespace {

class Normsys final : public ModifierKind {
public:
    ModifierType type() const override { return ModifierType::normsys; }
    const char* name() const override { return "normsys"; }

    void check_json_data(const SchemaCheck& check, const json::Value& data, const std::string& path) const override {
        const auto& d = check.object(data, path, {"lo", "hi"}, {"lo", "hi"});
        check.number(d.at("lo"), json::path_key(path, "lo"));
        check.number(d.at("hi"), json::path_key(path, "hi"));
    }
    void read_data(const json::Value& data, ModifierSpec& out) const override {
        out.hi = data["hi"].as_double();
        out.lo = data["lo"].as_double();
    }

    bool shares_parameter_with(ModifierType other) const override {
        return other == type() || other == ModifierType::histosys;
    }

    Constraint constraint() const override { return Constraint::normal; }
    ConfigAttrs configurable() const override { return {.auxdata = true}; }
    void collect(const ModifierSpec& m, const SampleSpec&, std::int64_t, ParamCollector& c) const override {
        c.add(type(), m.name, nuisance_requirement(*this, m));
    }

    InterpCode ModifierSettings::*interp_setting() const override { return &ModifierSettings::normsys_interpcode; }
    std::vector<InterpCode> interp_codes() const override { return {InterpCode::code1, InterpCode::code4}; }

    void lower(const ModifierSpec& m, const Element& e, PackedBuilder& out) const override {
        if (e.settings.normsys_interpcode == InterpCode::code1) {
            out.add_factor(e.parameter.offset, kFactorNormsysCode1, m.lo, m.hi);
            return;
        }
        double coef[6];
        code4_coefficients(m.lo, m.hi, coef);
        out.add_factor(e.parameter.offset, kFactorNormsysCode4, m.lo, m.hi, coef);
    }
};

}  // namespace

const ModifierKind& normsys_kind() {
    static const Normsys kind;
    return kind;
}

}  // namespace hf::detail
