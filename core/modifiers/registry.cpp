// The registry: one line per modifier type. Everything else about a type is in its own file.
#include "modifiers/registry.hpp"

#include <optional>
#include <string_view>

#include "hfcore/errors.hpp"

namespace hf {

namespace {

const std::vector<const detail::ModifierKind*>& kinds() {
    // pyhf's type order: the order of the parameter sets.
    static const std::vector<const detail::ModifierKind*> list{
        &detail::histosys_kind(),
        &detail::lumi_kind(),
        &detail::normfactor_kind(),
        &detail::normsys_kind(),
        &detail::shapefactor_kind(),
        &detail::shapesys_kind(),
        &detail::staterror_kind(),
    };
    return list;
}

}  // namespace

const char* modifier_type_name(ModifierType type) { return detail::modifier_kind(type).name(); }

std::optional<ModifierType> find_modifier_type(std::string_view name) {
    for (const auto* k : kinds())
        if (name == k->name()) return k->type();
    return std::nullopt;
}

std::vector<std::string> modifier_type_names() {
    std::vector<std::string> out;
    for (const auto* k : kinds()) out.emplace_back(k->name());
    return out;
}

namespace detail {

const ModifierKind& modifier_kind(ModifierType type) {
    for (const auto* k : kinds())
        if (k->type() == type) return *k;
    throw Error("unknown modifier type " + std::to_string(static_cast<int>(type)));
}

const std::vector<const ModifierKind*>& modifier_kinds() { return kinds(); }

std::string modifier_type_list() {
    std::string s;
    for (const auto* k : kinds()) s += (s.empty() ? "" : ", ") + std::string(k->name());
    return s;
}

}  // namespace detail
}  // namespace hf
