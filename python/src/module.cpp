// hfcore._core: the compiled part of the hfcore Python package (nanobind). The package's pure-Python layers
// (python/hfcore/) give it pyhf's names, signatures and return shapes.
#include <nanobind/nanobind.h>

#include <cstdlib>

#include "arrays.hpp"
#include "errors.hpp"
#include "py_model.hpp"

namespace hfpy {
void bind_backend(nb::module_& m);
void bind_workspace(nb::module_& m);
void bind_infer(nb::module_& m);
void bind_diagnostics(nb::module_& m);
void bind_grad(nb::module_& m);
void bind_toys(nb::module_& m);
void bind_scan(nb::module_& m);
void bind_mpi(nb::module_& m);
}  // namespace hfpy

NB_MODULE(_core, m) {
    // Instances still referenced from module globals at interpreter exit are not refcount bugs; the warnings
    // (a debugging aid) are on with HFCORE_NB_LEAK_WARNINGS=1.
    const char* leaks = std::getenv("HFCORE_NB_LEAK_WARNINGS");
    nanobind::set_leak_warnings(leaks && *leaks == '1');
    m.doc() = "hfcore's C++ engine (workspaces, models, fits, hypotests, limits) for the hfcore package";
    hfpy::init_numpy();
    m.def("_set_exceptions", &hfpy::set_exception_classes);
    hfpy::bind_backend(m);
    hfpy::bind_workspace(m);
    hfpy::bind_model(m);
    hfpy::bind_infer(m);
    hfpy::bind_diagnostics(m);
    hfpy::bind_grad(m);
    hfpy::bind_toys(m);
    hfpy::bind_scan(m);
    hfpy::bind_mpi(m);
}
