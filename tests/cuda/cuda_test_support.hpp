// Helpers of the cuda suite: find the plugin, create its backend or skip with the reason (no driver, no
// device, plugin not built), and reach the plugin's test-only entry points.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hfcore/loader.hpp"
#include "hfcore/errors.hpp"
#include "test_support.hpp"

namespace hf::test {

inline std::optional<hf::PluginListing> find_plugin(const std::string& name) {
    static std::mutex m;
    static std::map<std::string, std::optional<hf::PluginListing>> cache;
    std::lock_guard<std::mutex> lock(m);
    auto it = cache.find(name);
    if (it != cache.end()) return it->second;
    std::optional<hf::PluginListing> found;
    for (auto& l : hf::list_plugins())
        if (l.name == name) found = l;
    cache[name] = found;
    return found;
}

// The backend of a usable plugin, created once per (plugin, precision); else nullptr and why.
inline hf::BackendPtr backend_or_reason(const std::string& plugin, const std::string& precision, std::string* why) {
    auto l = find_plugin(plugin);
    if (!l) {
        *why = plugin + " plugin not built (libhfcore-backend-" + plugin + ".so is not on the plugin path)";
        return nullptr;
    }
    if (!l->loaded) {
        *why = plugin + " plugin does not load: " + l->load_error;
        return nullptr;
    }
    if (!l->probe.usable) {
        *why = plugin + " unavailable on this machine: " + l->probe.reason;
        return nullptr;
    }
    static std::mutex m;
    static std::map<std::string, hf::BackendPtr> cache;
    std::lock_guard<std::mutex> lock(m);
    auto& slot = cache[plugin + "/" + precision];
    if (!slot) {
        hf::LoadOptions o;
        o.precision = hf::parse_precision(precision);
        slot = hf::load_backend(plugin, o);
    }
    return slot;
}

// The plugin's own handle (it is already loaded by the core: RTLD_NOLOAD only looks it up).
inline void* plugin_handle(const std::string& plugin) {
    auto l = find_plugin(plugin);
    if (!l || !l->loaded) return nullptr;
    return ::dlopen(l->path.c_str(), RTLD_NOW | RTLD_NOLOAD);
}

inline bool close_rel(double a, double b, double rel, double abs_tol = 0.0) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    if (std::isinf(a) || std::isinf(b)) return a == b;
    return std::fabs(a - b) <= abs_tol + rel * std::max(std::fabs(a), std::fabs(b));
}

}  // namespace hf::test

// Declares `var`, the cuda backend at `precision`, or skips the test with the reason.
#define HF_CUDA_BACKEND_OR_SKIP(var, precision)                                          \
    std::string var##_why;                                                               \
    hf::BackendPtr var = ::hf::test::backend_or_reason("cuda", precision, &var##_why);   \
    if (!var) GTEST_SKIP() << "skipped: " << var##_why

// As above for the cpu plugin, the reference the cuda results are compared with.
#define HF_CPU_BACKEND_OR_SKIP(var, precision)                                           \
    std::string var##_why;                                                               \
    hf::BackendPtr var = ::hf::test::backend_or_reason("cpu", precision, &var##_why);    \
    if (!var) GTEST_SKIP() << "skipped: " << var##_why
