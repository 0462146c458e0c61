// pyhf's interpolation codes: their names, parsed in this one place, and the settings of the modifier types
// that interpolate (each kind says which codes it accepts).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "common/names.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/spec.hpp"
#include "modifiers/registry.hpp"

namespace hf {

namespace {

const detail::Names<InterpCode, 5> kNames{{{{InterpCode::code0, "code0"}, {InterpCode::code1, "code1"},
                                             {InterpCode::code2, "code2"}, {InterpCode::code4, "code4"},
                                             {InterpCode::code4p, "code4p"}}}};

}  // namespace

InterpCode parse_interpcode(const std::string& name) {
    return kNames.parse(name, "", "interpcode", "'" + name + "' is not an interpolation code; use " + kNames.list());
}

const char* interpcode_name(InterpCode code) { return kNames.name(code); }

namespace {

void check_allowed(const detail::ModifierKind& kind, InterpCode code, const std::string& file, const std::string& path) {
    const auto allowed = kind.interp_codes();
    if (std::find(allowed.begin(), allowed.end(), code) != allowed.end()) return;
    std::vector<std::string> names;
    for (InterpCode c : allowed) names.emplace_back(interpcode_name(c));
    throw InputError(file, path, "'" + std::string(interpcode_name(code)) + "' is not allowed for " + kind.name() +
                                     "; use " + detail::join_or(names));
}

std::vector<const detail::ModifierKind*> interpolated() {
    std::vector<const detail::ModifierKind*> out;
    for (const auto* k : detail::modifier_kinds())
        if (k->interp_setting()) out.push_back(k);
    return out;
}

}  // namespace

void ModifierSettings::set(const std::string& modifier_type, InterpCode code) {
    for (const auto* kind : interpolated())
        if (modifier_type == kind->name()) {
            check_allowed(*kind, code, "", "modifier_settings." + modifier_type + ".interpcode");
            this->*kind->interp_setting() = code;
            return;
        }
    std::vector<std::string> names;
    for (const auto* kind : interpolated()) names.emplace_back(kind->name());
    throw InputError("", "modifier_settings." + modifier_type,
                     "only " + detail::join_and(names) + " have interpolation codes, not '" + modifier_type + "'");
}

namespace detail {

void check_modifier_settings(const ModifierSettings& settings, const std::string& source) {
    for (const auto* kind : interpolated())
        check_allowed(*kind, settings.*kind->interp_setting(), source,
                      std::string("modifier_settings.") + kind->name() + ".interpcode");
}

}  // namespace detail
}  // namespace hf
