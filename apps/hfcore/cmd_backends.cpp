// `hfcore backends [--json]`: every plugin found on the search path, its devices, and why an unusable one is
// unusable (e.g. "cuda  unavailable: no CUDA driver").
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "command.hpp"
#include "hfcore/loader.hpp"
#include "hfcore/executor.hpp"
#include "hfcore/json.hpp"

namespace cmd_backends {
namespace {

std::string status_of(const hf::PluginListing& l) {
    if (!l.loaded) return "broken";
    return l.probe.usable ? "usable" : "unavailable";
}

hf::json::Value to_json(const std::vector<hf::PluginListing>& plugins) {
    hf::json::Array list;
    for (const auto& l : plugins) {
        hf::json::Object o;
        o.set("name", l.name);
        o.set("path", l.path);
        o.set("status", status_of(l));
        o.set("abi_version", static_cast<std::int64_t>(l.abi_version));
        o.set("description", l.description);
        if (!l.loaded) o.set("reason", l.load_error);
        else if (!l.probe.usable) o.set("reason", l.probe.reason);
        hf::json::Array devices;
        for (const auto& d : l.probe.devices) {
            hf::json::Object dev;
            dev.set("index", d.index);
            dev.set("name", d.name);
            dev.set("fp64", d.fp64);
            dev.set("fp32", d.fp32);
            dev.set("detail", d.detail);
            devices.push_back(hf::json::Value(std::move(dev)));
        }
        o.set("devices", hf::json::Value(std::move(devices)));
        list.push_back(hf::json::Value(std::move(o)));
    }
    hf::json::Array path;
    for (const auto& dir : hf::plugin_search_path()) path.push_back(hf::json::Value(dir));
    hf::json::Object root;
    root.set("plugins", hf::json::Value(std::move(list)));
    root.set("search_path", hf::json::Value(std::move(path)));
    hf::json::Object mpi;
    mpi.set("compiled_in", hf::json::Value(hf::run::mpi_compiled_in()));
    mpi.set("description", hf::json::Value(hf::run::mpi_description()));
    root.set("mpi", hf::json::Value(std::move(mpi)));
    root.set("host_kernels", hf::json::Value(hf::run::host_vector_level()));
    return hf::json::Value(std::move(root));
}

void print_text(const std::vector<hf::PluginListing>& plugins) {
    std::size_t width = 4;
    for (const auto& l : plugins) width = std::max(width, l.name.size());
    for (const auto& l : plugins) {
        std::cout << std::left << std::setw(static_cast<int>(width)) << l.name << "  ";
        if (!l.loaded) {
            std::cout << "broken: " << l.load_error << "\n";
            continue;
        }
        if (!l.probe.usable) std::cout << "unavailable: " << l.probe.reason;
        else std::cout << "usable";
        std::cout << "  (ABI " << l.abi_version << ", " << l.path << ")\n";
        for (const auto& d : l.probe.devices) {
            std::cout << std::string(width + 2, ' ') << "device " << d.index << ": " << d.name
                      << "  fp64: " << (d.fp64 ? "yes" : "no") << ", fp32: " << (d.fp32 ? "yes" : "no");
            if (!d.detail.empty()) std::cout << "  [" << d.detail << "]";
            std::cout << "\n";
        }
    }
}

const hf::cli::Register reg(
    "backends", "List the backend plugins found (name, path, ABI, devices with fp64/fp32) and why any is unusable.",
    [](CLI::App& sub) {
        auto json = std::make_shared<bool>(false);
        sub.add_flag("--json", *json, "Print the listing as JSON");
        return [json]() {
            const auto plugins = hf::list_plugins();
            if (*json) {
                std::cout << hf::json::dump_pretty(to_json(plugins)) << "\n";
                return 0;
            }
            if (plugins.empty()) {
                std::cout << "no plugins found in:";
                for (const auto& dir : hf::plugin_search_path()) std::cout << " " << dir;
                std::cout << "\n(set HFCORE_PLUGIN_PATH to a folder holding libhfcore-backend-<name>.so)\n";
                return 1;
            }
            print_text(plugins);
            std::cout << "host kernels (libhfcore): " << hf::run::host_vector_level() << "\n";
            std::cout << hf::run::mpi_description() << "\n";
            return 0;
        };
    });

}  // namespace
}  // namespace cmd_backends
