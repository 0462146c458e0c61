#include "cl_device.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <tuple>

#include "cl_error.hpp"
#include "cl_programs.hpp"
#include "hfcore/errors.hpp"

namespace hf::ocl {

namespace {

constexpr cl_int kPlatformNotFoundKhr = -1001;

std::string trim_nul(std::string s) {
    while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
    return s;
}

int parse_index(const std::string& text, const std::string& whole) {
    if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos)
        throw PluginError("opencl: HFCORE_OPENCL_DEVICE=\"" + whole +
                          "\" is not \"P:D\" or \"D\" (platform and device indices, e.g. \"0:1\")");
    return std::stoi(text);
}

std::string list_devices(const PlatformDevices& p) {
    std::string s;
    for (std::size_t d = 0; d < p.devices.size(); ++d)
        s += (d ? ", " : "") + std::to_string(d) + " = " + device_string(p.devices[d], CL_DEVICE_NAME);
    return s.empty() ? "none" : s;
}

}  // namespace

std::string device_string(cl_device_id device, cl_device_info what) {
    std::size_t n = 0;
    if (clGetDeviceInfo(device, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
    std::string s(n, '\0');
    if (clGetDeviceInfo(device, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
    return trim_nul(s);
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
    std::size_t n = 0;
    if (clGetPlatformInfo(platform, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
    std::string s(n, '\0');
    if (clGetPlatformInfo(platform, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
    return trim_nul(s);
}

bool device_has_fp64(cl_device_id device) {
    // cl_khr_fp64 in the extension list (OpenCL 1.x), or a non-empty double config (3.0 devices may only say so).
    if (device_string(device, CL_DEVICE_EXTENSIONS).find("cl_khr_fp64") != std::string::npos) return true;
    cl_device_fp_config cfg = 0;
    if (clGetDeviceInfo(device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(cfg), &cfg, nullptr) != CL_SUCCESS) return false;
    return cfg != 0;
}

std::vector<PlatformDevices> enumerate_platforms() {
    cl_uint n = 0;
    cl_int err = clGetPlatformIDs(0, nullptr, &n);
    if (err == kPlatformNotFoundKhr || n == 0) return {};
    check(err, "clGetPlatformIDs");
    std::vector<cl_platform_id> ids(n);
    check(clGetPlatformIDs(n, ids.data(), nullptr), "clGetPlatformIDs");
    std::vector<PlatformDevices> out;
    for (cl_platform_id id : ids) {
        PlatformDevices p;
        p.platform = id;
        p.name = platform_string(id, CL_PLATFORM_NAME);
        p.version = platform_string(id, CL_PLATFORM_VERSION);
        cl_uint nd = 0;
        err = clGetDeviceIDs(id, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd);
        if (err == CL_SUCCESS && nd > 0) {
            p.devices.resize(nd);
            if (clGetDeviceIDs(id, CL_DEVICE_TYPE_ALL, nd, p.devices.data(), nullptr) != CL_SUCCESS)
                p.devices.clear();
        }
        out.push_back(std::move(p));
    }
    return out;
}

bool fp64_hidden() {
    const char* v = std::getenv("HFCORE_OPENCL_DISABLE_FP64");
    return v && *v && std::string(v) != "0";
}

Selection parse_device_env(const std::string& text, int default_platform) {
    Selection s;
    s.source = "HFCORE_OPENCL_DEVICE=\"" + text + "\"";
    auto colon = text.find(':');
    if (colon == std::string::npos) {
        s.platform = default_platform;
        s.device = parse_index(text, text);
    } else {
        s.platform = parse_index(text.substr(0, colon), text);
        s.device = parse_index(text.substr(colon + 1), text);
    }
    return s;
}

Selection resolve_selection(const BackendOptions& options) {
    const char* env = std::getenv("HFCORE_OPENCL_DEVICE");
    if (env && *env) {
        Selection s = parse_device_env(env, options.platform);
        s.hide_fp64 = fp64_hidden();
        return s;
    }
    Selection s;
    s.hide_fp64 = fp64_hidden();
    s.platform = options.platform;
    s.device = options.device;
    s.source = "options (platform " + std::to_string(options.platform) + ", device " +
               std::to_string(options.device) + ")";
    if (s.platform < 0 || s.device < 0) throw PluginError("opencl: negative platform or device index in " + s.source);
    return s;
}

const char* program_name(ProgramId id) {
    switch (id) {
        case ProgramId::f32: return "f32";
        case ProgramId::f64: return "f64";
        case ProgramId::i32: return "i32";
        case ProgramId::i64: return "i64";
        case ProgramId::b8: return "bool";
        case ProgramId::cast: return "cast";
        case ProgramId::copy: return "copy";
        case ProgramId::real32: return "real32";
        case ProgramId::real64: return "real64";
        case ProgramId::count: break;
    }
    return "?";
}

DeviceContext& DeviceContext::get(const Selection& selection) {
    static std::mutex mutex;
    // Leaked on purpose (see the class comment).
    static auto* contexts = new std::map<std::tuple<int, int, bool>, DeviceContext*>();
    std::lock_guard<std::mutex> lock(mutex);
    auto key = std::make_tuple(selection.platform, selection.device, selection.hide_fp64);
    auto it = contexts->find(key);
    if (it != contexts->end()) return *it->second;
    auto* ctx = new DeviceContext(selection);
    contexts->emplace(key, ctx);
    return *ctx;
}

DeviceContext::DeviceContext(const Selection& sel) : platform_index_(sel.platform), device_index_(sel.device) {
    auto platforms = enumerate_platforms();
    if (platforms.empty())
        throw PluginError("opencl: no OpenCL platform (is an ICD such as pocl-opencl-icd installed?)");
    if (sel.platform >= static_cast<int>(platforms.size())) {
        std::string names;
        for (std::size_t p = 0; p < platforms.size(); ++p)
            names += (p ? ", " : "") + std::to_string(p) + " = " + platforms[p].name;
        throw PluginError("opencl: platform " + std::to_string(sel.platform) + " (from " + sel.source +
                          ") does not exist; there are " + std::to_string(platforms.size()) +
                          " platform(s): " + names);
    }
    const PlatformDevices& p = platforms[sel.platform];
    if (sel.device >= static_cast<int>(p.devices.size()))
        throw PluginError("opencl: device " + std::to_string(sel.device) + " (from " + sel.source +
                          ") does not exist on platform " + std::to_string(sel.platform) + " (" + p.name +
                          "), which has " + std::to_string(p.devices.size()) + " device(s): " + list_devices(p) +
                          "; choose with HFCORE_OPENCL_DEVICE=P:D");
    platform_ = p.platform;
    device_ = p.devices[sel.device];
    platform_name_ = p.name;
    name_ = device_string(device_, CL_DEVICE_NAME);
    fp64_hidden_ = sel.hide_fp64 && device_has_fp64(device_);
    fp64_ = device_has_fp64(device_) && !fp64_hidden_;
    pocl_ = p.name.find("Portable Computing Language") != std::string::npos ||
            p.version.find("PoCL") != std::string::npos;
    cl_ulong max_alloc = 0;
    clGetDeviceInfo(device_, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(max_alloc), &max_alloc, nullptr);
    max_alloc_ = max_alloc;

    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform_), 0};
    cl_int err = CL_SUCCESS;
    context_ = clCreateContext(props, 1, &device_, nullptr, nullptr, &err);
    check(err, "clCreateContext for device \"" + name_ + "\"");
}

std::string DeviceContext::fp64_note() const {
    return fp64_hidden_ ? " (hidden by HFCORE_OPENCL_DISABLE_FP64)" : "";
}

cl_program DeviceContext::program(ProgramId id) {
    std::lock_guard<std::mutex> lock(mutex_);
    cl_program& slot = programs_[static_cast<int>(id)];
    if (slot) return slot;
    if ((id == ProgramId::f64 || id == ProgramId::real64) && !fp64_)
        throw PluginError("opencl: device \"" + name_ + "\" lacks cl_khr_fp64" + fp64_note() +
                          ", so f64 tensors and 64b are unavailable on it; use 32b");
    const std::string source = program_source(id, fp64_);
    const char* text = source.c_str();
    std::size_t length = source.size();
    cl_int err = CL_SUCCESS;
    cl_program prog = clCreateProgramWithSource(context_, 1, &text, &length, &err);
    check(err, std::string("clCreateProgramWithSource (") + program_name(id) + ")");
    std::string options = "-cl-std=CL1.2";
    if (fp64_) options += " -DHF_HAVE_FP64";
    if (pocl_) options += " -DHF_FAST_POW";
    const auto t0 = std::chrono::steady_clock::now();
    err = clBuildProgram(prog, 1, &device_, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
        std::size_t n = 0;
        clGetProgramBuildInfo(prog, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
        std::string log(n, '\0');
        if (n) clGetProgramBuildInfo(prog, device_, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
        clReleaseProgram(prog);
        if (log.size() > 6000) log = log.substr(0, 6000) + "\n[...]";
        if (is_out_of_memory(err)) throw_cl(err, std::string("clBuildProgram (") + program_name(id) + ")");
        throw PluginError(std::string("opencl: building program \"") + program_name(id) + "\" for device \"" +
                          name_ + "\" failed (" + cl_error_name(err) + "):\n" + trim_nul(log));
    }
    if (std::getenv("HFCORE_TRACE_OPENCL")) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr, "hfcore opencl: built program %s for %s in %.2f s\n", program_name(id), name_.c_str(), s);
        std::size_t n = 0;
        clGetProgramBuildInfo(prog, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
        std::string log(n, '\0');
        if (n) clGetProgramBuildInfo(prog, device_, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
        log = trim_nul(log);
        if (!log.empty()) std::fprintf(stderr, "%s\n", log.c_str());
    }
    slot = prog;
    return slot;
}

}  // namespace hf::ocl
