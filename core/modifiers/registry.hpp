// Internal: the modifier types the core knows, in pyhf's order, each a ModifierKind (modifier.hpp).
#pragma once

#include <string>
#include <vector>

#include "modifiers/modifier.hpp"

namespace hf::detail {

const ModifierKind& modifier_kind(ModifierType type);
// Every kind, in pyhf's type order (histosys, lumi, normfactor, normsys, shapefactor, shapesys, staterror).
const std::vector<const ModifierKind*>& modifier_kinds();

// "histosys, lumi, ..." for messages.
std::string modifier_type_list();

// InputError (file `source`, path modifier_settings.TYPE.interpcode) for a code a modifier type does not accept.
void check_modifier_settings(const ModifierSettings& settings, const std::string& source);

// The kinds, one per file; registry.cpp lists them.
const ModifierKind& histosys_kind();
const ModifierKind& lumi_kind();
const ModifierKind& normfactor_kind();
const ModifierKind& normsys_kind();
const ModifierKind& shapefactor_kind();
const ModifierKind& shapesys_kind();
const ModifierKind& staterror_kind();

}  // namespace hf::detail
