// Backends from Python: load one, make it the module's default (hfcore.set_backend), list the plugins.
#include <nanobind/nanobind.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "backend_handle.hpp"
#include "errors.hpp"

namespace hfpy {

namespace nb = nanobind;
using namespace nb::literals;

// A model's backend argument: None (the default, followed), or a Backend object.
BackendRef backend_arg(nb::handle backend) {
    if (backend.is_none()) return nullptr;
    BackendRef b;
    if (!nb::try_cast(backend, b) || !b) raise(Kind::InvalidBackend, "backend: expected an hfcore Backend (hfcore.backend(...)) or None");
    return b;
}

void bind_backend(nb::module_& m) {
    nb::class_<BackendHandle>(m, "Backend", "A loaded backend plugin instance.")
        .def_prop_ro("name", [](const BackendHandle& h) { return h.backend->name(); })
        .def_prop_ro("device_name", [](const BackendHandle& h) { return h.backend->device_name(); })
        .def_prop_ro("precision", [](const BackendHandle& h) { return std::string(hf::precision_name(h.backend->precision())); })
        .def_prop_ro("device", [](const BackendHandle& h) { return h.options.device; })
        .def_prop_ro("description", [](const BackendHandle& h) { return h.backend->description(); })
        .def("__repr__", [](const BackendHandle& h) { return "<hfcore backend " + h.backend->description() + ">"; });

    m.def(
        "load_backend",
        [](const std::string& name, const std::string& precision, int device, int platform, const std::string& plugin_path) {
            hf::LoadOptions o;
            o.precision = hf::parse_precision(precision);
            o.device = device;
            o.platform = platform;
            o.plugin_path = plugin_path;
            return guarded(Kind::InvalidBackend, [&] {
                nb::gil_scoped_release release;  // loading a GPU runtime can take seconds
                return load_backend_handle(name, o);
            });
        },
        "name"_a, "precision"_a = "64b", "device"_a = 0, "platform"_a = 0, "plugin_path"_a = "");
    m.def("set_default_backend", &set_default_backend, "backend"_a);
    m.def("default_backend", []() { return guarded(Kind::InvalidBackend, [] { return default_backend_handle(); }); });
    m.def("plugin_search_path", &hf::plugin_search_path);
    m.def("list_plugins", []() {
        std::vector<hf::PluginListing> found = guarded(Kind::InvalidBackend, [] {
            nb::gil_scoped_release release;
            return hf::list_plugins();
        });
        nb::list out;
        for (const auto& p : found) {
            nb::dict d;
            d["name"] = p.name;
            d["path"] = p.path;
            d["abi_version"] = p.abi_version;
            d["loaded"] = p.loaded;
            d["load_error"] = p.load_error;
            d["usable"] = p.loaded && p.probe.usable;
            d["reason"] = p.probe.reason;
            d["description"] = p.description;
            nb::list devices;
            for (const auto& dev : p.probe.devices) {
                nb::dict x;
                x["index"] = dev.index;
                x["name"] = dev.name;
                x["fp64"] = dev.fp64;
                x["fp32"] = dev.fp32;
                x["detail"] = dev.detail;
                devices.append(x);
            }
            d["devices"] = devices;
            out.append(d);
        }
        return out;
    });
}

}  // namespace hfpy
