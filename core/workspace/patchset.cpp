// pyhf's PatchSet: schema, unique names and values, lookup, digest verification, application.
#include "checks.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/patch.hpp"
#include "hfcore/workspace.hpp"

namespace hf {

using json::Value;

namespace {

// Python tuple equality of patch values: numbers by value, strings by content, never across kinds.
bool same_values(const std::vector<Value>& a, const std::vector<Value>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i])) return false;
    return true;
}

std::string show_values(const std::vector<Value>& v) {
    std::string s = "(";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + json::dump(v[i]);
    return s + ")";
}

}  // namespace

PatchSet::PatchSet(json::Value doc, std::string source) : doc_(std::move(doc)), source_(std::move(source)) {
    detail::check_patchset_schema(doc_, source_);
    const std::size_t n_labels = doc_["metadata"]["labels"].as_array().size();
    const auto& patches = doc_["patches"].as_array();
    for (std::size_t i = 0; i < patches.size(); ++i) {
        Patch p;
        p.json_path = json::path_index("patches", i);
        p.metadata = patches[i]["metadata"];
        p.name = p.metadata["name"].as_string();
        p.values = p.metadata["values"].as_array();
        const std::string mp = json::path_key(p.json_path, "metadata");
        if (const Patch* other = find(p.name))
            throw InputError(source_, json::path_key(mp, "name"),
                             "Multiple patches were defined by name '" + p.name + "' (also at " + other->json_path + ")");
        if (const Patch* other = find(p.values))
            throw InputError(source_, json::path_key(mp, "values"),
                             "Multiple patches were defined by values " + show_values(p.values) + " (also at " +
                                 other->json_path + ")");
        if (p.values.size() != n_labels)
            throw InputError(source_, json::path_key(mp, "values"),
                             "Incompatible number of values (" + std::to_string(p.values.size()) +
                                 ") in patchset. Expected " + std::to_string(n_labels) + ", one per label.");
        p.patch = JsonPatch(patches[i]["patch"], source_, json::path_key(p.json_path, "patch"));
        patches_.push_back(std::move(p));
    }
}

PatchSet PatchSet::load_file(const std::string& path) {
    return PatchSet(json::parse_file(path), path == "-" ? "<stdin>" : path);
}

PatchSet PatchSet::load_string(std::string_view text, const std::string& source) {
    return PatchSet(json::parse(text, source), source);
}

const json::Value& PatchSet::metadata() const { return doc_["metadata"]; }
const std::string& PatchSet::description() const { return metadata()["description"].as_string(); }
const std::string& PatchSet::version() const { return doc_["version"].as_string(); }

std::vector<std::string> PatchSet::labels() const {
    std::vector<std::string> out;
    for (const auto& l : metadata()["labels"].as_array()) out.push_back(l.as_string());
    return out;
}

std::vector<std::pair<std::string, std::string>> PatchSet::digests() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& [alg, hex] : metadata()["digests"].as_object()) out.emplace_back(alg, hex.as_string());
    return out;
}

const PatchSet::Patch* PatchSet::find(const std::string& name) const {
    for (const auto& p : patches_)
        if (p.name == name) return &p;
    return nullptr;
}

const PatchSet::Patch* PatchSet::find(const std::vector<json::Value>& values) const {
    for (const auto& p : patches_)
        if (same_values(p.values, values)) return &p;
    return nullptr;
}

const PatchSet::Patch& PatchSet::operator[](const std::string& name) const {
    if (const Patch* p = find(name)) return *p;
    std::string known;
    for (std::size_t i = 0; i < patches_.size() && i < 10; ++i) known += (i ? ", " : "") + patches_[i].name;
    if (patches_.size() > 10) known += ", ...";
    throw InputError(source_, "patches", "No patch associated with \"" + name + "\" is defined in patchset (patches: " +
                                             known + ")");
}

const PatchSet::Patch& PatchSet::operator[](const std::vector<json::Value>& values) const {
    if (const Patch* p = find(values)) return *p;
    throw InputError(source_, "patches",
                     "No patch associated with values " + show_values(values) + " is defined in patchset");
}

void PatchSet::verify(const Workspace& ws) const {
    for (const auto& [alg, expected] : digests()) {
        const std::string got = ws.digest(alg);
        if (got != expected)
            throw InputError(source_, json::path_key("metadata.digests", alg),
                             "The digest verification failed for hash algorithm '" + alg + "'. Expected: " + expected +
                                 ". Got: " + got + " (the digest of " + ws.source() + ")");
    }
}

Workspace PatchSet::apply(const Workspace& ws, const std::string& name) const {
    verify(ws);
    const Patch& p = (*this)[name];
    return Workspace(p.patch.apply(ws.json()), ws.source() + " + patch '" + name + "' of " + source_);
}

}  // namespace hf
