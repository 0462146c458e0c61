#include "backend_handle.hpp"

#include <atomic>

namespace hfpy {

namespace {

std::mutex g_mutex;
BackendRef g_default;
std::atomic<std::uint64_t> g_generation{1};

}  // namespace

BackendRef load_backend_handle(const std::string& name, const hf::LoadOptions& options) {
    auto h = std::make_shared<BackendHandle>();
    h->backend = hf::load_backend(name, options);
    h->name = name;
    h->options = options;
    return h;
}

BackendRef default_backend_handle() {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_default) {
        auto h = std::make_shared<BackendHandle>();
        h->backend = hf::default_backend();
        h->name = h->backend->name();
        h->options.precision = h->backend->precision();
        g_default = h;
    }
    return g_default;
}

void set_default_backend(BackendRef backend) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_default = std::move(backend);
    ++g_generation;
}

std::uint64_t default_generation() { return g_generation.load(); }

}  // namespace hfpy
