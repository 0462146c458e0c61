// MPI for the Python module (mpi_world.hpp): one session per interpreter, opened by the first call that asks.
#include "mpi_world.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <memory>

#include "errors.hpp"

namespace hfpy {

namespace {

// Finalised by the atexit hook below: at that point no scan runs, and every rank reaches it.
std::unique_ptr<hf::run::MpiSession>& session() {
    static std::unique_ptr<hf::run::MpiSession> s;
    return s;
}

}  // namespace

hf::run::Communicator python_world(std::optional<bool> mpi) {
    if (mpi == false) return hf::run::Communicator();
    const bool built = hf::run::mpi_compiled_in(), launched = hf::run::launched_by_mpi();
    if (mpi == true && !built)
        raise(Kind::HFCoreError, "mpi=True: MPI is not built into this hfcore (" + hf::run::mpi_description() +
                                     "; CMake builds it in where it finds MPI, as pip install does)");
    if (mpi == true && !launched)
        raise(Kind::HFCoreError, "mpi=True: this process was not started by mpirun, mpiexec or srun");
    if (!built || !launched) return hf::run::Communicator();
    if (!session()) {
        // MpiSession leaves an MPI initialised by someone else (mpi4py) alone; Communicator::world() uses it.
        session() = guarded(Kind::HFCoreError, [] { return std::make_unique<hf::run::MpiSession>(nullptr, nullptr); });
        if (session()->active())
            nb::module_::import_("atexit").attr("register")(nb::cpp_function([] { session().reset(); }));
    }
    return hf::run::Communicator::world();
}

void bind_mpi(nb::module_& m) {
    using namespace nb::literals;
    m.def("mpi_compiled_in", &hf::run::mpi_compiled_in);
    m.def("mpi_description", &hf::run::mpi_description);
    m.def("launched_by_mpi", &hf::run::launched_by_mpi);
    m.def(
        "mpi_world",
        [](std::optional<bool> mpi) {
            const hf::run::Communicator c = python_world(mpi);
            return nb::make_tuple(c.rank(), c.size());
        },
        "mpi"_a.none() = nb::none());
}

}  // namespace hfpy
