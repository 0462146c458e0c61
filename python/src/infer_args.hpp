// The arguments the inference bindings share: pyhf's init_pars / par_bounds / fixed_params and the data, read
// and checked for a model (InvalidFitInput / InvalidPdfData on bad ones).
#pragma once

#include <nanobind/nanobind.h>

#include <vector>

#include "hfcore/infer.hpp"

namespace hfpy {

namespace nb = nanobind;

hf::infer::FitConfig fit_config(const hf::Model& m, nb::handle init, nb::handle bounds, nb::handle fixed);
std::vector<double> read_data(const hf::Model& m, nb::handle data);

// A progress callback for the C++ calls that calls a Python callable(done, total, label) with the GIL held,
// from whichever thread reports; None gives none. An exception in the callable is reported as unraisable and
// dropped: a progress display never stops the computation.
hf::infer::ProgressFn python_progress(nb::handle callback);

}  // namespace hfpy
