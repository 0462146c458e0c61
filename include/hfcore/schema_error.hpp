// The error for input that breaks the JSON schema of a workspace, model, patch or patch set (pyhf's
// InvalidSpecification), as opposed to pyhf's semantic rules (plain InputError). Callers that need to tell the
// two apart (the Python module) catch it first.
#pragma once

#include "hfcore/errors.hpp"

namespace hf {

class SchemaError : public InputError {
public:
    using InputError::InputError;
};

}  // namespace hf
