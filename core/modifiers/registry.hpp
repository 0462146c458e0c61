// Internal: what the core knows about modifier types, in one place.
#pragma once

#include <string>

#include "hfcore/spec.hpp"

namespace hf::detail {

// InputError (file `source`, path modifier_settings.TYPE.interpcode) for a code a modifier type does not accept.
void check_modifier_settings(const ModifierSettings& settings, const std::string& source);

}  // namespace hf::detail
