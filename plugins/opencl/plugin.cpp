// The opencl plugin's entry points: probe (every platform and device, with fp64 support) and create.
#include <memory>
#include <string>

#include "cl_device.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/plugin/abi.hpp"
#include "backend.hpp"

namespace hf::ocl {

namespace {

std::string device_type(cl_device_id d) {
    cl_device_type t = 0;
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof(t), &t, nullptr);
    if (t & CL_DEVICE_TYPE_GPU) return "GPU";
    if (t & CL_DEVICE_TYPE_CPU) return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    return "device";
}

PluginProbe probe() {
    PluginProbe probe;
    try {
        const auto platforms = enumerate_platforms();
        if (platforms.empty()) {
            probe.reason = "no OpenCL platform (is an ICD such as pocl-opencl-icd installed?)";
            return probe;
        }
        for (std::size_t p = 0; p < platforms.size(); ++p) {
            for (std::size_t d = 0; d < platforms[p].devices.size(); ++d) {
                cl_device_id id = platforms[p].devices[d];
                cl_ulong mem = 0;
                clGetDeviceInfo(id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(mem), &mem, nullptr);
                DeviceInfo info;
                info.index = static_cast<int>(d);
                info.name = device_string(id, CL_DEVICE_NAME);
                const bool hidden = fp64_hidden() && device_has_fp64(id);
                info.fp64 = device_has_fp64(id) && !hidden;
                info.fp32 = true;
                info.detail = "platform " + std::to_string(p) + " (" + platforms[p].name + ", " + platforms[p].version +
                              "), " + device_type(id) + ", " + device_string(id, CL_DEVICE_VERSION) + ", " +
                              std::to_string(mem >> 20) + " MiB, " +
                              (info.fp64 ? "cl_khr_fp64"
                                         : hidden ? "no cl_khr_fp64 (32b only; hidden by HFCORE_OPENCL_DISABLE_FP64)"
                                                  : "no cl_khr_fp64 (32b only)") +
                              "; select with HFCORE_OPENCL_DEVICE=" + std::to_string(p) + ":" + std::to_string(d);
                probe.devices.push_back(std::move(info));
            }
        }
        if (probe.devices.empty()) {
            probe.reason = std::to_string(platforms.size()) + " OpenCL platform(s) but no device";
            return probe;
        }
        probe.usable = true;
    } catch (const std::exception& e) {
        probe.usable = false;
        probe.reason = e.what();
    }
    return probe;
}

std::unique_ptr<Backend> create(const BackendOptions& options) { return std::make_unique<OpenCLBackend>(options); }

const PluginInterface kInterface = {
    "opencl",
    "OpenCL 1.2 kernels + CLBlast (GPUs; CPUs through PoCL)",
    &probe,
    &create,
};

}  // namespace

}  // namespace hf::ocl

HFCORE_DEFINE_PLUGIN(hf::ocl::kInterface)
