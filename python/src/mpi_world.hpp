// The ranks a Python call shares its work with, through libhfcore's own MPI (hfcore/executor.hpp), so Python
// needs no mpi4py: `mpirun -n 4 python script.py` makes four ranks of one scan, as it does for `hfcore scan`.
#pragma once

#include <nanobind/nanobind.h>

#include <optional>

#include "hfcore/executor.hpp"

namespace hfpy {

namespace nb = nanobind;

// `mpi`: true = the MPI world (an error where MPI is not built into libhfcore or the process was not started by
// mpirun/mpiexec/srun), false = this process alone, nullopt = the MPI world exactly where both hold. MPI is
// initialised on first use (MPI_THREAD_SERIALIZED) and finalised at the interpreter's exit, unless it was
// initialised before (mpi4py), whose owner finalises it. Call with the GIL held.
hf::run::Communicator python_world(std::optional<bool> mpi);

// _core.mpi_compiled_in(), mpi_description(), launched_by_mpi(), mpi_world(mpi) -> (rank, size).
void bind_mpi(nb::module_& m);

}  // namespace hfpy
