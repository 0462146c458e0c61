// A pyhf workspace (schema 1.0.0): loaded, validated (schema and pyhf's semantic rules), and turned into
// typed specs for the model. Also pyhf's workspace operations: combine, prune, rename, sorted, digest.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hfcore/json.hpp"
#include "hfcore/patch.hpp"
#include "hfcore/spec.hpp"

namespace hf {

// What Workspace::model_spec builds (pyhf.Workspace.model's arguments).
struct ModelRequest {
    std::optional<std::string> measurement_name;   // default: the first measurement
    std::optional<std::size_t> measurement_index;  // used when no name is given
    std::vector<JsonPatch> patches;                // applied in order to {channels, parameters} first
    ModifierSettings settings;
    std::optional<std::string> poi;                // overrides the measurement's POI; "" for a POI-less model
};

// pyhf.Workspace.combine's join operations.
enum class Join { None, Outer, LeftOuter, RightOuter };
Join parse_join(const std::string& name);  // "none", "outer", "left outer", "right outer"
const char* join_name(Join join);

struct PruneOptions {
    std::vector<std::string> modifiers, modifier_types, samples, channels, measurements;
};
struct RenameOptions {
    std::vector<std::pair<std::string, std::string>> modifiers, samples, channels, measurements;  // old -> new
};

class Workspace {
public:
    // Errors are hf::InputError naming the file and the JSON path.
    static Workspace load_file(const std::string& path);  // "-" reads standard input
    static Workspace load_string(std::string_view text, const std::string& source = "<string>");
    static Workspace load_stdin();
    Workspace(json::Value doc, std::string source);

    const json::Value& json() const { return doc_; }  // the document as read (key order, number forms kept)
    const WorkspaceSpec& spec() const { return spec_; }
    const std::string& source() const { return spec_.source; }

    // pyhf's summaries: unique names, sorted.
    std::vector<std::string> channel_names() const;
    std::vector<std::string> sample_names() const;
    std::vector<std::pair<std::string, std::string>> modifiers() const;  // (name, type)
    std::vector<std::string> measurement_names() const;                 // document order
    std::size_t channel_nbins(const std::string& channel) const;        // InputError if unknown

    // pyhf.Workspace.get_measurement: by name, else by index, else the first.
    const MeasurementSpec& measurement(const std::optional<std::string>& name = std::nullopt,
                                       const std::optional<std::size_t>& index = std::nullopt) const;

    // pyhf.Workspace.model(...).spec with the measurement's parameter configs, fully validated (including the
    // rules that need the measurement: parameter configs and POI). Patches are applied to
    // {"channels", "parameters"} like pyhf; paths in errors then refer to that patched document.
    ModelSpec model_spec(const ModelRequest& request = {}) const;
    ModelSpec model_spec(const std::string& measurement_name, const std::vector<JsonPatch>& patches = {},
                         const ModifierSettings& settings = {},
                         const std::optional<std::string>& poi = std::nullopt) const;

    // Observed main data of a channel, and pyhf.Workspace.data(model, include_auxdata=False): the
    // observations of the spec's channels in pyhf's (sorted) channel order.
    const std::vector<double>& observations(const std::string& channel) const;
    std::vector<double> observed_main_data(const ModelSpec& spec) const;

    // pyhf.utils.digest: hash of json.dumps(ws, sort_keys=True, ensure_ascii=False). Algorithms: md5, sha1,
    // sha224, sha256, sha384, sha512, sha3_224, sha3_256, sha3_384, sha3_512, blake2b, blake2s.
    std::string digest(const std::string& algorithm = "sha256") const;

    // pyhf's workspace operations; each result is validated like a loaded workspace.
    Workspace prune(const PruneOptions& options) const;
    Workspace rename(const RenameOptions& options) const;
    Workspace sorted() const;
    static Workspace combine(const Workspace& left, const Workspace& right, Join join = Join::None,
                             bool merge_channels = false);

    // This workspace with a JSON patch applied (PatchSet::apply without the digest check).
    Workspace patched(const JsonPatch& patch) const;

private:
    json::Value doc_;
    WorkspaceSpec spec_;
};

// Hex digest of `algorithm` (Python hashlib names, see Workspace::digest) over `bytes`, with OpenSSL.
// hf::Error for an unknown algorithm.
std::string hash_hex(const std::string& algorithm, std::string_view bytes);
// pyhf.utils.digest of any JSON value.
std::string digest(const json::Value& value, const std::string& algorithm = "sha256");

// Validates a model spec in pyhf.Model's format ({"channels": [...], "parameters": [...]}) and returns the
// typed ModelSpec (measurement name "", POI `poi`).
ModelSpec model_spec_from_json(const json::Value& model, const std::string& source, const std::string& poi = "",
                               const ModifierSettings& settings = {});

}  // namespace hf
