// OpenCL platforms and devices: enumeration, the choice of one (BackendOptions, HFCORE_OPENCL_DEVICE), and the
// process-wide context of a chosen device with its cache of built programs.
#pragma once

#include <CL/cl.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "hfcore/plugin/backend.hpp"

namespace hf::ocl {

struct PlatformDevices {
    cl_platform_id platform = nullptr;
    std::string name, version;
    std::vector<cl_device_id> devices;
};

// Every platform with its devices (of any type). Empty when no ICD is installed.
std::vector<PlatformDevices> enumerate_platforms();

std::string device_string(cl_device_id device, cl_device_info what);
std::string platform_string(cl_platform_id platform, cl_platform_info what);
bool device_has_fp64(cl_device_id device);

// Platform and device indices to use. HFCORE_OPENCL_DEVICE, when set and non-empty, overrides the options:
// "P:D" chooses device D of platform P, "D" device D of the options' platform.
struct Selection {
    int platform = 0;
    int device = 0;
    bool hide_fp64 = false;  // HFCORE_OPENCL_DISABLE_FP64=1: treat the device as lacking fp64 (for tests)
    std::string source;      // where the choice came from, for messages
};

// HFCORE_OPENCL_DISABLE_FP64 set to anything but "" or "0": the plugin treats every device as lacking
// cl_khr_fp64, so that the 32b-only path of fp64-less GPUs can be tested on any machine.
bool fp64_hidden();
Selection parse_device_env(const std::string& text, int default_platform);  // PluginError when malformed
Selection resolve_selection(const BackendOptions& options);

// Programs are built per device context: one per dtype family, the casts, the size-only copies, and one per
// precision for the kernels written over hf_real (random numbers, fused likelihood).
enum class ProgramId : int { f32, f64, i32, i64, b8, cast, copy, real32, real64, count };
const char* program_name(ProgramId id);

// The process-wide context of one device. Created on first use and never destroyed: backends share it (one
// in-order queue each), programs are built once per process, and no OpenCL object outlives a torn-down ICD at
// exit.
class DeviceContext {
public:
    static DeviceContext& get(const Selection& selection);  // PluginError when it does not exist

    cl_context context() const { return context_; }
    cl_device_id device() const { return device_; }
    int platform_index() const { return platform_index_; }
    int device_index() const { return device_index_; }
    const std::string& name() const { return name_; }
    const std::string& platform_name() const { return platform_name_; }
    bool fp64() const { return fp64_; }
    bool is_pocl() const { return pocl_; }
    std::uint64_t max_alloc() const { return max_alloc_; }
    std::string fp64_note() const;  // " (hidden by HFCORE_OPENCL_DISABLE_FP64)" when that is why fp64 is off

    // The built program; the first call per id builds it (PluginError with the build log on failure).
    cl_program program(ProgramId id);

private:
    DeviceContext(const Selection& selection);

    cl_platform_id platform_ = nullptr;
    cl_device_id device_ = nullptr;
    cl_context context_ = nullptr;
    int platform_index_ = 0, device_index_ = 0;
    std::string name_, platform_name_;
    bool fp64_ = false, fp64_hidden_ = false, pocl_ = false;
    std::uint64_t max_alloc_ = 0;
    std::mutex mutex_;
    std::array<cl_program, static_cast<int>(ProgramId::count)> programs_{};
};

}  // namespace hf::ocl
