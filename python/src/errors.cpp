#include "errors.hpp"

#include <array>

namespace hfpy {

namespace {

constexpr std::array<const char*, static_cast<std::size_t>(Kind::Count)> kNames = {
    "HFCoreError",       "InvalidSpecification", "InvalidModel",        "InvalidMeasurement",
    "InvalidPatchSet",   "InvalidPatchLookup",   "PatchSetVerificationError", "InvalidWorkspaceOperation",
    "InvalidBackend",    "InvalidPdfParameters", "InvalidPdfData",      "InvalidInterpCode",
    "InvalidFitInput",   "FailedMinimization",   "JsonPatchConflict",
};

// Strong references, released never: the classes live as long as the interpreter.
std::array<PyObject*, kNames.size()> g_classes{};

}  // namespace

void set_exception_classes(nb::handle module) {
    for (std::size_t i = 0; i < kNames.size(); ++i) {
        nb::object cls = module.attr(kNames[i]);
        Py_XDECREF(g_classes[i]);
        g_classes[i] = cls.release().ptr();
    }
}

void raise(Kind kind, const std::string& message, const std::string& file, const std::string& path) {
    PyObject* cls = g_classes[static_cast<std::size_t>(kind)];
    if (!cls) cls = PyExc_RuntimeError;  // only before hfcore/__init__.py has registered the classes
    nb::object exc = nb::steal(PyObject_CallOneArg(cls, nb::str(message.c_str(), message.size()).ptr()));
    if (!exc.is_valid()) throw nb::python_error();
    if (!file.empty()) nb::setattr(exc, "file", nb::str(file.c_str()));
    if (!path.empty()) nb::setattr(exc, "path", nb::str(path.c_str()));
    PyErr_SetObject(cls, exc.ptr());
    throw nb::python_error();
}

}  // namespace hfpy
