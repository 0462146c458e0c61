// Random numbers from plugins/shared/philox.h compiled into the precision's program: the same (seed, offset)
// gives the CPU plugin's numbers (uniforms bit for bit; normals and Poisson draws up to the last bits of the
// device's log/cos/lgamma).
#include "cl_programs.hpp"
#include "hfcore/errors.hpp"
#include "backend.hpp"

namespace hf::ocl {

void OpenCLBackend::k_random(RandomDist dist, const Tensor& rate, std::uint64_t seed, std::uint64_t offset,
                             Tensor& out) {
    const ProgramId prog = real_program(out.dtype());
    const cl_long n = out.size();
    const cl_ulong s = seed, o = offset;
    switch (dist) {
        case RandomDist::uniform: run(prog, "rng_uniform", n, n, s, o, out); break;
        case RandomDist::normal: run(prog, "rng_normal", n, n, s, o, out); break;
        case RandomDist::poisson:
            if (!rate.defined() || rate.dtype() != out.dtype() || rate.size() != n)
                throw ShapeError("opencl: random_poisson needs a rate of the output's dtype and size");
            run(prog, "rng_poisson", n, n, s, o, rate, out);
            break;
    }
}

}  // namespace hf::ocl
