// histosys: a shape uncertainty (pyhf's histosys): per bin, the nominal moves towards the down or up template
// (lo_data, hi_data) by the interpolation code0 (linear), code2 (quadratic inside, linear outside) or code4p
// (polynomial inside, linear outside). One Gaussian-constrained parameter, which normsys modifiers may share.
#include "modifiers/modifier.hpp"
#include "modifiers/registry.hpp"
#include "workspace/schema_check.hpp"

namespace hf::detail {

namespace {

class Histosys final : public ModifierKind {
public:
    ModifierType type() const override { return ModifierType::histosys; }
    const char* name() const override { return "histosys"; }

    void check_json_data(const SchemaCheck& check, const json::Value& data, const std::string& path) const override {
        const auto& d = check.object(data, path, {"lo_data", "hi_data"}, {"lo_data", "hi_data"});
        check.numbers(d.at("lo_data"), json::path_key(path, "lo_data"));
        check.numbers(d.at("hi_data"), json::path_key(path, "hi_data"));
    }
    void read_data(const json::Value& data, ModifierSpec& out) const override {
        out.hi_data = numbers_of(data["hi_data"]);
        out.lo_data = numbers_of(data["lo_data"]);
    }

    void check_data(const ModifierSpec& m, const SampleSpec& s, const Fail& fail) const override {
        const std::string path = json::path_key(m.json_path, "data");
        check_length(m.hi_data, s, json::path_key(path, "hi_data"), fail);
        check_length(m.lo_data, s, json::path_key(path, "lo_data"), fail);
    }
    bool shares_parameter_with(ModifierType other) const override {
        return other == type() || other == ModifierType::normsys;
    }

    Constraint constraint() const override { return Constraint::normal; }
    ConfigAttrs configurable() const override { return {.auxdata = true}; }
    void collect(const ModifierSpec& m, const SampleSpec&, std::int64_t, ParamCollector& c) const override {
        c.add(type(), m.name, nuisance_requirement(*this, m));
    }

    InterpCode ModifierSettings::*interp_setting() const override { return &ModifierSettings::histosys_interpcode; }
    std::vector<InterpCode> interp_codes() const override {
        return {InterpCode::code0, InterpCode::code2, InterpCode::code4p};
    }

    void lower(const ModifierSpec& m, const Element& e, PackedBuilder& out) const override {
        const double nom = e.sample.data[e.bin], lo = m.lo_data[e.bin], hi = m.hi_data[e.bin];
        // A bin whose three templates agree adds exactly zero under every interpolation code; in published
        // models that is about half of all histosys bins, so it is left out.
        if (lo == nom && hi == nom) return;
        const InterpCode code = e.settings.histosys_interpcode;
        const DeltaKind kind = code == InterpCode::code0 ? kDeltaCode0 : code == InterpCode::code2 ? kDeltaCode2
                                                                                                 : kDeltaCode4p;
        out.add_delta(e.parameter.offset, kind, lo, nom, hi);
    }
};

}  // namespace

const ModifierKind& histosys_kind() {
    static const Histosys kind;
    return kind;
}

}  // namespace hf::detail
