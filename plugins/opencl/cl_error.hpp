// OpenCL status codes to hfcore errors: allocation failures become hf::OutOfMemory (the process and the
// backend survive), everything else hf::PluginError naming the call and the code.
#pragma once

#include <CL/cl.h>

#include <string>

namespace hf::ocl {

const char* cl_error_name(cl_int code);

// True for the codes a device returns when memory or resources ran out.
bool is_out_of_memory(cl_int code);

[[noreturn]] void throw_cl(cl_int code, const std::string& what);

inline void check(cl_int code, const char* what) {
    if (code != CL_SUCCESS) throw_cl(code, what);
}
inline void check(cl_int code, const std::string& what) {
    if (code != CL_SUCCESS) throw_cl(code, what);
}

}  // namespace hf::ocl
