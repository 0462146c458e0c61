// hf::run::host_vector_level (hfcore/threads.hpp): the level the host kernels of lanes.cpp were chosen at.
#include <string>

#include "hfcore/plugin/vector_level.hpp"
#include "hfcore/threads.hpp"
#include "numerics/lanes.hpp"

namespace hf::run {

std::string host_vector_level() {
    const vector_level::Choice c = vector_level::choose_from_environment();
    std::string d = std::string("vector level: ") + numerics::lanes::level_name();
    if (!c.problem.empty()) return d + " (" + c.problem + ")";
    if (c.capped) d += std::string(" (HFCORE_CPU_SIMD; the CPU has ") + vector_level::name_of(c.cpu) + ")";
    return d;
}

}  // namespace hf::run
