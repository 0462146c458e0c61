// Backends as the Python module holds them: the backend, how it was loaded (so scans can load one more per
// thread), and a mutex. Backends are not required to be thread-safe (an OpenCL kernel's arguments, transfer
// counters), so every evaluation, fit or scan on a backend holds its mutex with the GIL released: Python
// threads may share models safely, and work on different backends runs in parallel.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "hfcore/loader.hpp"

namespace hfpy {

struct BackendHandle {
    hf::BackendPtr backend;
    std::string name;        // as asked ("cpu", "opencl", a plugin path)
    hf::LoadOptions options;
    std::mutex mutex;
};
using BackendRef = std::shared_ptr<BackendHandle>;

// Loads a new instance (PluginError when it cannot).
BackendRef load_backend_handle(const std::string& name, const hf::LoadOptions& options);
// The module's default backend (cpu at 64b until set_default_backend), and a counter that changes with it so
// models built on the default can follow a later set_backend() as pyhf's models do.
BackendRef default_backend_handle();
void set_default_backend(BackendRef backend);
std::uint64_t default_generation();

}  // namespace hfpy
