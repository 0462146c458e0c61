// The OpenCL C text of each program, composed from the embedded kernel files (plugins/opencl/kernels) and
// the shared C99 headers (plugins/shared): templates are instantiated per dtype by #define-ing T and SFX.
#pragma once

#include <string>

#include "cl_device.hpp"

namespace hf::ocl {

std::string program_source(ProgramId id, bool fp64);

// OpenCL C type and kernel-name suffix of a dtype ("double", "f64").
const char* cl_type_name(DType t);
const char* dtype_suffix(DType t);

}  // namespace hf::ocl
