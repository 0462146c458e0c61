// pyhf's interpolation codes: their names, parsed in this one place, and which modifier accepts which.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "common/names.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/spec.hpp"

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

struct Interpolated {
    const char* type;
    InterpCode ModifierSettings::*setting;
    std::vector<InterpCode> allowed;
};

const std::vector<Interpolated>& interpolated() {
    static const std::vector<Interpolated> list{
        {"normsys", &ModifierSettings::normsys_interpcode, {InterpCode::code1, InterpCode::code4}},
        {"histosys", &ModifierSettings::histosys_interpcode,
         {InterpCode::code0, InterpCode::code2, InterpCode::code4p}},
    };
    return list;
}

std::string allowed_list(const Interpolated& m) {
    std::vector<std::string> names;
    for (InterpCode c : m.allowed) names.emplace_back(interpcode_name(c));
    return detail::join_or(names);
}

void check_allowed(const Interpolated& m, InterpCode code, const std::string& file, const std::string& path) {
    if (std::find(m.allowed.begin(), m.allowed.end(), code) == m.allowed.end())
        throw InputError(file, path, "'" + std::string(interpcode_name(code)) + "' is not allowed for " + m.type +
                                         "; use " + allowed_list(m));
}

}  // namespace

void ModifierSettings::set(const std::string& modifier_type, InterpCode code) {
    for (const auto& m : interpolated())
        if (modifier_type == m.type) {
            check_allowed(m, code, "", "modifier_settings." + modifier_type + ".interpcode");
            this->*m.setting = code;
            return;
        }
    throw InputError("", "modifier_settings." + modifier_type,
                     "only normsys and histosys have interpolation codes, not '" + modifier_type + "'");
}

namespace detail {

void check_modifier_settings(const ModifierSettings& settings, const std::string& source) {
    for (const auto& m : interpolated())
        check_allowed(m, settings.*m.setting, source, std::string("modifier_settings.") + m.type + ".interpcode");
}

}  // namespace detail

}  // namespace hf
