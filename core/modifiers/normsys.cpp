// normsys: a normalisation uncertainty (pyhf's normsys): the sample scaled by the interpolation between its
// down and up factors lo and hi, code1 (exponential) or code4 (polynomial inside |alpha| < 1, exponential
// outside). One Gaussian-constrained parameter, which histosys modifiers may share.
#include <cmath>

#include "modifiers/modifier.hpp"
#include "modifiers/registry.hpp"
#include "workspace/schema_check.hpp"

namespace hf::detail {

namespace {

// pyhf's code4 polynomial coefficients (alpha0 = 1): x = A^-1 b, the polynomial 1 + sum a_i alpha^i that matches
// value, slope and curvature of the exponential branches at alpha = +-1 (pyhf's interpolators/code4.py).
void code4_coefficients(double lo, double hi, double coef[6]) {
    static const double Ainv[6][6] = {
        {15.0 / 16, -15.0 / 16, -7.0 / 16, -7.0 / 16, 1.0 / 16, -1.0 / 16},
        {3.0 / 2, 3.0 / 2, -9.0 / 16, 9.0 / 16, 1.0 / 16, 1.0 / 16},
        {-5.0 / 8, 5.0 / 8, 5.0 / 8, 5.0 / 8, -1.0 / 8, 1.0 / 8},
        {-3.0 / 2, -3.0 / 2, 7.0 / 8, -7.0 / 8, -1.0 / 8, -1.0 / 8},
        {3.0 / 16, -3.0 / 16, -3.0 / 16, -3.0 / 16, 1.0 / 16, -1.0 / 16},
        {1.0 / 2, 1.0 / 2, -5.0 / 16, 5.0 / 16, 1.0 / 16, 1.0 / 16},
    };
    const double lhi = std::log(hi), llo = std::log(lo);
    const double b[6] = {hi - 1.0, lo - 1.0, lhi * hi, -llo * lo, lhi * lhi * hi, llo * llo * lo};
    for (int r = 0; r < 6; ++r) {
        double s = 0;
        for (int c = 0; c < 6; ++c) s += Ainv[r][c] * b[c];
        coef[r] = s;
    }
}

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
