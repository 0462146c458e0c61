// RFC 6902 JSON Patch (as the Python jsonpatch package applies it) and pyhf's PatchSet format.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hfcore/json.hpp"

namespace hf {

class Workspace;

// A list of operations: add, remove, replace, move, copy, test. Paths are JSON Pointers (RFC 6901).
class JsonPatch {
public:
    JsonPatch() = default;
    // `ops` is checked against pyhf's jsonpatch schema; `path` is where it sits in `source` (for messages).
    JsonPatch(json::Value ops, std::string source, std::string path = "");
    static JsonPatch load_file(const std::string& path);  // "-" reads standard input
    static JsonPatch load_string(std::string_view text, const std::string& source = "<string>");

    // Returns a patched copy. Errors (InputError) name the patch source, the operation (e.g. "[3].path") and
    // what failed ("channels has 4 items, index 7 is out of range").
    json::Value apply(const json::Value& doc) const;
    void apply_in_place(json::Value& doc) const;

    const json::Value& json() const { return ops_; }
    const std::string& source() const { return source_; }
    std::size_t size() const { return ops_.is_array() ? ops_.as_array().size() : 0; }

private:
    json::Value ops_ = json::Array{};
    std::string source_ = "<patch>";
    std::string path_;
};

// pyhf's PatchSet: metadata (description, references, digests of the background-only workspace, labels)
// and named patches, each with one value per label.
class PatchSet {
public:
    struct Patch {
        std::string name;
        std::vector<json::Value> values;  // numbers or strings, one per label
        json::Value metadata;             // the patch's metadata object as written
        JsonPatch patch;
        std::string json_path;            // "patches[3]"
    };

    // Schema check, then pyhf's rules: unique names, unique values, one value per label.
    PatchSet(json::Value doc, std::string source);
    static PatchSet load_file(const std::string& path);
    static PatchSet load_string(std::string_view text, const std::string& source = "<string>");

    const json::Value& json() const { return doc_; }
    const std::string& source() const { return source_; }
    const json::Value& metadata() const;
    const std::string& description() const;
    const std::string& version() const;
    std::vector<std::string> labels() const;
    std::vector<std::pair<std::string, std::string>> digests() const;  // (algorithm, hex) as written
    const std::vector<Patch>& patches() const { return patches_; }

    // Lookup; InputError naming the patchset when absent. Values compare like Python tuples (2100 == 2100.0).
    const Patch& operator[](const std::string& name) const;
    const Patch& operator[](const std::vector<json::Value>& values) const;
    const Patch* find(const std::string& name) const;
    const Patch* find(const std::vector<json::Value>& values) const;

    // Every digest in the metadata must match the workspace's (pyhf PatchSetVerificationError otherwise).
    void verify(const Workspace& background_only) const;
    // verify, then apply the named patch; the result is validated as a workspace.
    Workspace apply(const Workspace& background_only, const std::string& name) const;

private:
    json::Value doc_;
    std::string source_;
    std::vector<Patch> patches_;
};

}  // namespace hf
