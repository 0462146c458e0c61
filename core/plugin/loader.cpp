// Finding, loading and checking backend plugins (Boost.DLL). Loaded libraries are kept for the life of the
// process: unloading GPU runtimes crashes on Linux, and tensors may outlive any handle we hold.
#include <dlfcn.h>

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "hfcore/loader.hpp"
#include "hfcore/plugin/abi.hpp"

// Set by core/CMakeLists.txt: the plugin folder relative to libhfcore's own folder (any install prefix), and
// the same folder under the configured prefix.
#ifndef HFCORE_PLUGIN_DIR_FROM_LIB
#define HFCORE_PLUGIN_DIR_FROM_LIB "hfcore/plugins"
#endif
#ifndef HFCORE_INSTALL_PLUGIN_DIR
#define HFCORE_INSTALL_PLUGIN_DIR "/usr/local/lib/hfcore/plugins"
#endif

namespace fs = std::filesystem;

namespace hf {

namespace {

const char* kPrefix = "libhfcore-backend-";
const char* kSuffix = ".so";

bool tracing() {
    const char* t = std::getenv("HFCORE_TRACE_PLUGINS");
    return t && *t && std::string(t) != "0";
}

void trace(const std::string& msg) {
    if (tracing()) std::cerr << "hfcore: plugins: " << msg << "\n";
}

std::string file_name_for(const std::string& name) { return kPrefix + name + kSuffix; }

struct LoadedPlugin {
    std::string path;
    std::uint32_t abi_version = 0;
    const PluginInterface* iface = nullptr;
};

// Libraries stay loaded until the process exits; the map itself is intentionally leaked so that no static
// destructor unloads a plugin while its objects are alive.
std::mutex& registry_mutex() {
    static std::mutex m;
    return m;
}
std::map<std::string, boost::dll::shared_library>& libraries() {
    static auto* libs = new std::map<std::string, boost::dll::shared_library>();
    return *libs;
}

std::string dlerror_text(const std::string& path) {
    // Boost.DLL reports only a generic error code; dlopen again to recover the loader's own explanation.
    void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) return "loads with dlopen but not with Boost.DLL";
    const char* e = ::dlerror();
    return e ? e : "unknown dlopen error";
}

// Loads the file and checks its ABI before calling anything else in it. Throws PluginError naming the file.
LoadedPlugin load_file(const std::string& path) {
    std::lock_guard<std::mutex> lock(registry_mutex());
    auto& libs = libraries();
    auto it = libs.find(path);
    if (it == libs.end()) {
        trace("loading " + path);
        boost::dll::shared_library lib;
        try {
            lib.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
        } catch (const std::exception&) {
            throw PluginError(path + ": cannot load: " + dlerror_text(path));
        }
        it = libs.emplace(path, std::move(lib)).first;
    }
    auto& lib = it->second;
    for (const char* sym : {"hfcore_plugin_abi_version", "hfcore_plugin_interface_size", "hfcore_plugin_interface"})
        if (!lib.has(sym)) throw PluginError(path + ": not an hfcore plugin: missing entry point " + sym + "()");
    LoadedPlugin p;
    p.path = path;
    p.abi_version = lib.get<std::uint32_t()>("hfcore_plugin_abi_version")();
    if (p.abi_version != HFCORE_PLUGIN_ABI_VERSION)
        throw PluginError(path + ": plugin ABI version " + std::to_string(p.abi_version) +
                          ", this libhfcore needs " + std::to_string(HFCORE_PLUGIN_ABI_VERSION) +
                          " (rebuild the plugin against this hfcore)");
    std::uint32_t size = lib.get<std::uint32_t()>("hfcore_plugin_interface_size")();
    if (size != sizeof(PluginInterface))
        throw PluginError(path + ": plugin interface size " + std::to_string(size) + " bytes, this libhfcore has " +
                          std::to_string(sizeof(PluginInterface)) + " (built against other headers)");
    p.iface = lib.get<const PluginInterface*()>("hfcore_plugin_interface")();
    if (!p.iface || !p.iface->name || !p.iface->probe || !p.iface->create)
        throw PluginError(path + ": plugin interface incomplete (null name, probe or create)");
    trace(path + ": ABI " + std::to_string(p.abi_version) + ", plugin '" + p.iface->name + "'");
    return p;
}

PluginProbe run_probe(const LoadedPlugin& p) {
    try {
        return p.iface->probe();
    } catch (const std::exception& e) {
        PluginProbe probe;
        probe.usable = false;
        probe.reason = std::string("probe failed: ") + e.what();
        return probe;
    }
}

bool is_path(const std::string& name) { return name.find('/') != std::string::npos; }

// The file for a plugin name, searched in order; PluginError listing every folder tried when absent.
std::string find_plugin_file(const std::string& name, const std::string& explicit_path) {
    std::vector<std::string> tried;
    auto try_file = [&](const fs::path& f) {
        std::error_code ec;
        bool ok = fs::is_regular_file(f, ec);
        trace("trying " + f.string() + (ok ? ": found" : ": not found"));
        tried.push_back(f.string());
        return ok;
    };
    if (!explicit_path.empty() && try_file(explicit_path)) return explicit_path;
    if (is_path(name)) {
        if (try_file(name)) return name;
        throw PluginError("plugin file " + name + " not found");
    }
    for (const auto& dir : plugin_search_path()) {
        fs::path f = fs::path(dir) / file_name_for(name);
        if (try_file(f)) return f.string();
    }
    // Built piecewise: GCC 12 warns falsely (-Wrestrict) on chains of operator+ with a literal first.
    std::string msg = "no plugin named '";
    msg += name;
    msg += "' (file ";
    msg += file_name_for(name);
    msg += ") in:";
    for (auto& t : tried) {
        msg += ' ';
        msg += fs::path(t).parent_path().string();
    }
    msg += "; set HFCORE_PLUGIN_PATH or pass a path";
    throw PluginError(msg);
}

BackendPtr create_from(const LoadedPlugin& p, const std::string& name, const LoadOptions& options) {
    PluginProbe probe = run_probe(p);
    if (!probe.usable) throw PluginError(name + ": unavailable: " + probe.reason + " (" + p.path + ")");
    BackendOptions bo;
    bo.precision = options.precision;
    bo.device = options.device;
    bo.platform = options.platform;
    std::unique_ptr<Backend> b;
    try {
        b = p.iface->create(bo);
    } catch (const PluginError&) {
        throw;
    } catch (const std::exception& e) {
        throw PluginError(p.path + ": initialisation failed: " + e.what());
    }
    if (!b) throw PluginError(p.path + ": create() returned no backend");
    trace("created " + b->description());
    return BackendPtr(std::move(b));
}

std::mutex& default_mutex() {
    static std::mutex m;
    return m;
}
BackendPtr& default_slot() {
    static auto* slot = new BackendPtr();  // leaked: backends are never torn down at exit
    return *slot;
}

}  // namespace

std::vector<std::string> plugin_search_path() {
    std::vector<std::string> dirs;
    std::set<std::string> seen;
    auto add = [&](const std::string& d) {
        if (d.empty()) return;
        std::error_code ec;
        std::string key = fs::weakly_canonical(d, ec).string();
        if (key.empty()) key = d;
        if (seen.insert(key).second) dirs.push_back(d);
    };
    if (const char* env = std::getenv("HFCORE_PLUGIN_PATH")) {
        std::stringstream ss(env);
        std::string d;
        while (std::getline(ss, d, ':')) add(d);
    }
    try {
        // Beside libhfcore (the build tree), then the install's plugin folder relative to it, so that an
        // install moved to another prefix still finds its own plugins.
        const fs::path lib_dir = fs::path(boost::dll::this_line_location().parent_path().string()).lexically_normal();
        add(lib_dir.string());
        add((lib_dir / HFCORE_PLUGIN_DIR_FROM_LIB).lexically_normal().string());
    } catch (const std::exception&) {
    }
    add(HFCORE_INSTALL_PLUGIN_DIR);
    return dirs;
}

BackendPtr load_backend(const std::string& name, const LoadOptions& options) {
    if (name == "auto") {
        std::string why;
        for (const char* candidate : {"cuda", "opencl", "cpu"}) {
            try {
                auto b = load_backend(candidate, options);
                std::cerr << "hfcore: backend auto: chose " << b->description() << "\n";
                return b;
            } catch (const PluginError& e) {
                why += std::string("\n  ") + e.what();
                trace(std::string("auto: skipping ") + candidate + ": " + e.what());
            }
        }
        throw PluginError("backend auto: no usable backend:" + why);
    }
    std::string path = find_plugin_file(name, options.plugin_path);
    LoadedPlugin p = load_file(path);
    return create_from(p, is_path(name) ? p.iface->name : name, options);
}

BackendPtr set_backend(const std::string& name, const LoadOptions& options) {
    BackendPtr b = load_backend(name, options);
    std::lock_guard<std::mutex> lock(default_mutex());
    default_slot() = b;
    return b;
}

BackendPtr default_backend() {
    std::lock_guard<std::mutex> lock(default_mutex());
    if (!default_slot()) default_slot() = load_backend("cpu");
    return default_slot();
}

std::vector<PluginListing> list_plugins() {
    std::vector<PluginListing> out;
    std::set<std::string> names;
    for (const auto& dir : plugin_search_path()) {
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) continue;
        std::vector<fs::path> files;
        for (auto& entry : fs::directory_iterator(dir, ec)) {
            std::string fn = entry.path().filename().string();
            if (fn.rfind(kPrefix, 0) == 0 && fn.size() > std::strlen(kPrefix) + 3 &&
                fn.compare(fn.size() - 3, 3, kSuffix) == 0)
                files.push_back(entry.path());
        }
        std::sort(files.begin(), files.end());
        for (auto& f : files) {
            std::string fn = f.filename().string();
            std::string name = fn.substr(std::strlen(kPrefix), fn.size() - std::strlen(kPrefix) - 3);
            if (!names.insert(name).second) continue;  // an earlier folder's plugin of that name wins
            PluginListing l;
            l.name = name;
            l.path = f.string();
            try {
                LoadedPlugin p = load_file(l.path);
                l.loaded = true;
                l.abi_version = p.abi_version;
                l.description = p.iface->description ? p.iface->description : "";
                l.probe = run_probe(p);
            } catch (const std::exception& e) {
                l.loaded = false;
                l.load_error = e.what();
            }
            out.push_back(std::move(l));
        }
    }
    return out;
}

}  // namespace hf
