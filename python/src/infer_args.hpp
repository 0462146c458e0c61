// The arguments the inference bindings share: pyhf's init_pars / par_bounds / fixed_params and the data, read
// and checked for a model (InvalidFitInput / InvalidPdfData on bad ones).
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hfcore/infer.hpp"

namespace hfpy {

namespace nb = nanobind;

hf::infer::FitConfig fit_config(const hf::Model& m, nb::handle init, nb::handle bounds, nb::handle fixed);
std::vector<double> read_data(const hf::Model& m, nb::handle data);

// The test statistic, calculator and toy settings of hfcore's hypotest arguments (HFPY_TEST_ARGS) into `o`
// (HFCoreError naming an unknown name).
void set_test_options(hf::infer::HypotestOptions& o, const std::string& test_stat, const std::string& calctype,
                      const std::string& base_dist, std::int64_t ntoys, std::uint64_t seed, std::int64_t toy_batch);

// A progress callback for the C++ calls that calls a Python callable(done, total, label) with the GIL held,
// from whichever thread reports; None gives none. An exception in the callable is reported as unraisable and
// dropped: a progress display never stops the computation.
hf::infer::ProgressFn python_progress(nb::handle callback);

// pyhf's fit arguments and hfcore's hypotest arguments, in the bindings' order (with nb::literals in scope).
#define HFPY_FIT_ARGS "init_pars"_a.none() = nb::none(), "par_bounds"_a.none() = nb::none(), "fixed_params"_a.none() = nb::none()
#define HFPY_TEST_ARGS "test_stat"_a = "qtilde", "calctype"_a = "asymptotics", "calc_base_dist"_a = "normal", \
                       "ntoys"_a = 2000, "seed"_a = 0, "toy_batch"_a = 1000, "progress"_a.none() = nb::none()

}  // namespace hfpy
