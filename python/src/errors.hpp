// Python exceptions for hfcore's C++ errors, with pyhf's class names. The classes live in hfcore/exceptions.py;
// the package hands them to the module at import (_core._set_exceptions), so `except pyhf-name` works.
#pragma once

#include <nanobind/nanobind.h>

#include <string>
#include <utility>

#include "hfcore/errors.hpp"
#include "hfcore/schema_error.hpp"

namespace hfpy {

namespace nb = nanobind;

// Which Python class a failure becomes. The same C++ InputError means different things in different calls
// (a bad model spec, a bad patch set, a bad workspace operation), so each binding names its kind.
enum class Kind {
    HFCoreError,  // base class, a RuntimeError
    InvalidSpecification,
    InvalidModel,
    InvalidMeasurement,
    InvalidPatchSet,
    InvalidPatchLookup,
    PatchSetVerificationError,
    InvalidWorkspaceOperation,
    InvalidBackend,
    InvalidPdfParameters,
    InvalidPdfData,
    InvalidInterpCode,
    InvalidFitInput,  // pyhf raises ValueError for bad init/bounds/fixed
    FailedMinimization,
    JsonPatchConflict,  // jsonpatch's name for a patch that does not apply
    Count
};

// Stores the classes of hfcore.exceptions by name.
void set_exception_classes(nb::handle module);

// Raises the Python exception of `kind` with `message` and, when given, the file and JSON path as attributes.
[[noreturn]] void raise(Kind kind, const std::string& message, const std::string& file = "",
                        const std::string& path = "");

// Runs f, turning hfcore's C++ errors into Python exceptions: schema errors into InvalidSpecification, other
// input errors into `input_kind`, plugin errors into InvalidBackend, out-of-memory into MemoryError.
template <class F>
decltype(auto) guarded(Kind input_kind, F&& f) {
    try {
        return std::forward<F>(f)();
    } catch (const hf::SchemaError& e) {
        raise(Kind::InvalidSpecification, e.what(), e.file(), e.json_path());
    } catch (const hf::InputError& e) {
        raise(input_kind, e.what(), e.file(), e.json_path());
    } catch (const hf::PluginError& e) {
        raise(Kind::InvalidBackend, e.what());
    } catch (const hf::OutOfMemory& e) {
        PyErr_SetString(PyExc_MemoryError, e.what());
        throw nb::python_error();
    } catch (const hf::Error& e) {
        raise(Kind::HFCoreError, e.what());
    }
}

}  // namespace hfpy
