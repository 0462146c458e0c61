// Workspaces, JSON patches and patch sets: validation and pyhf's workspace operations in C++, the documents
// themselves stay Python dicts (hfcore.Workspace is a dict, like pyhf's).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <nanobind/stl/pair.h>

#include "errors.hpp"
#include "json_convert.hpp"
#include "hfcore/patch.hpp"
#include "hfcore/schema_check.hpp"
#include "hfcore/workspace.hpp"

namespace hfpy {

namespace nb = nanobind;
using namespace nb::literals;

namespace {

std::vector<std::string> strings(nb::handle seq) {
    std::vector<std::string> out;
    if (seq.is_none()) return out;
    for (nb::handle x : seq) out.push_back(py_str(x));
    return out;
}

std::vector<std::pair<std::string, std::string>> renames(nb::handle mapping) {
    std::vector<std::pair<std::string, std::string>> out;
    if (mapping.is_none()) return out;
    if (!PyDict_Check(mapping.ptr())) raise(Kind::InvalidWorkspaceOperation, "rename: expected a dict {old: new}");
    for (auto [k, v] : nb::borrow<nb::dict>(mapping)) out.emplace_back(py_str(k), py_str(v));
    return out;
}

}  // namespace

void bind_workspace(nb::module_& m) {
    nb::class_<hf::Workspace>(m, "Workspace", "A validated workspace (use hfcore.Workspace).")
        .def(
            "__init__",
            [](hf::Workspace* self, nb::handle doc, const std::string& source) {
                hf::json::Value v = to_json(doc);
                guarded(Kind::InvalidModel, [&] { new (self) hf::Workspace(std::move(v), source); });
            },
            "spec"_a, "source"_a = "<workspace>")
        .def_prop_ro("source", &hf::Workspace::source)
        .def("prune",
             [](const hf::Workspace& ws, nb::handle modifiers, nb::handle modifier_types, nb::handle samples,
                nb::handle channels, nb::handle measurements) {
                 hf::PruneOptions o;
                 o.modifiers = strings(modifiers);
                 o.modifier_types = strings(modifier_types);
                 o.samples = strings(samples);
                 o.channels = strings(channels);
                 o.measurements = strings(measurements);
                 return from_json(guarded(Kind::InvalidWorkspaceOperation, [&] { return ws.prune(o).json(); }));
             },
             "modifiers"_a.none(), "modifier_types"_a.none(), "samples"_a.none(), "channels"_a.none(), "measurements"_a.none())
        .def("rename",
             [](const hf::Workspace& ws, nb::handle modifiers, nb::handle samples, nb::handle channels,
                nb::handle measurements) {
                 hf::RenameOptions o;
                 o.modifiers = renames(modifiers);
                 o.samples = renames(samples);
                 o.channels = renames(channels);
                 o.measurements = renames(measurements);
                 return from_json(guarded(Kind::InvalidWorkspaceOperation, [&] { return ws.rename(o).json(); }));
             },
             "modifiers"_a.none(), "samples"_a.none(), "channels"_a.none(), "measurements"_a.none())
        .def("sorted", [](const hf::Workspace& ws) {
            return from_json(guarded(Kind::InvalidWorkspaceOperation, [&] { return ws.sorted().json(); }));
        })
        .def_static(
            "combine",
            [](const hf::Workspace& left, const hf::Workspace& right, const std::string& join, bool merge_channels) {
                return from_json(guarded(Kind::InvalidWorkspaceOperation, [&] {
                    return hf::Workspace::combine(left, right, hf::parse_join(join), merge_channels).json();
                }));
            },
            "left"_a, "right"_a, "join"_a = "none", "merge_channels"_a = false);

    m.def(
        "apply_patch",
        [](nb::handle ops, nb::handle doc, const std::string& source) {
            hf::json::Value o = to_json(ops), d = to_json(doc);
            hf::JsonPatch patch = guarded(Kind::InvalidSpecification, [&] { return hf::JsonPatch(std::move(o), source); });
            return from_json(guarded(Kind::JsonPatchConflict, [&] { return patch.apply(d); }));
        },
        "ops"_a, "doc"_a, "source"_a = "<patch>", "A patched copy of doc (RFC 6902, as the jsonpatch package applies it).");

    m.def(
        "check_patchset",
        [](nb::handle doc, const std::string& source) {
            hf::json::Value v = to_json(doc);
            guarded(Kind::InvalidPatchSet, [&] { hf::PatchSet(std::move(v), source); });
        },
        "spec"_a, "source"_a = "<patchset>",
        "Validates a patch set: InvalidSpecification for the schema, InvalidPatchSet for pyhf's rules.");

    m.def(
        "check_schema",
        [](const std::string& schema_name, nb::handle doc, const std::string& source) {
            hf::json::Value v = to_json(doc);
            guarded(Kind::InvalidSpecification, [&] { hf::check_schema(schema_name, v, source); });
        },
        "schema_name"_a, "doc"_a, "source"_a = "<document>",
        "Checks doc against pyhf's schema schema_name (workspace.json, model.json, measurement.json, patchset.json, "
        "jsonpatch.json): InvalidSpecification with the JSON path where it does not follow it.");
}

}  // namespace hfpy
