// Options shared by the inference subcommands (cls, fit, upper-limit, significance, scan, eval, inspect) with
// pyhf's names: workspace, -p/--patch, --measurement, --backend, --precision, --device, --interpcodes,
// --output-file; and the model/data they build.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hfcore/infer.hpp"
#include "hfcore/json.hpp"
#include "hfcore/model.hpp"
#include "hfcore/workspace.hpp"

namespace hf::cli {

// Which data a command analyses (--data, --asimov-mu, --asimov-np) and what it hides (--blind); declared only on
// the commands that take data (data_options.cpp).
struct DataOptions {
    bool declared = false;
    std::string kind = "observed";   // or "asimov"
    std::optional<double> asimov_mu;  // default: the POI's suggested init
    std::string asimov_np = "nominal";  // or "fitted": to the observed data with the POI held at asimov_mu
    std::vector<std::string> blind;     // channel name patterns (glob)
};

struct ModelOptions {
    std::string workspace = "-";
    std::vector<std::string> patches;
    std::string measurement;
    std::string backend = "cpu";
    std::string precision = "64b";
    int device = 0;
    std::string interpcodes;  // "normsys=code4,histosys=code4p"
    std::string output_file;
    DataOptions data;

    // Declares the options on `sub`; the workspace positional only when `with_workspace`.
    void add_to(CLI::App& sub, bool with_workspace = true);
    // Declares --data, --asimov-mu, --asimov-np and --blind (commands that analyse data).
    void add_data_options(CLI::App& sub);
    BackendPtr make_backend() const;
    ModifierSettings modifier_settings() const;
};

// "normsys=code1,histosys=code0" -> settings; a type not named keeps pyhf cls's default (code4 / code4p).
ModifierSettings parse_interpcodes(const std::string& text);

struct LoadedModel {
    std::unique_ptr<Workspace> workspace;
    ModelSpec spec;
    std::unique_ptr<Model> model;
    std::vector<double> data;  // observations (pyhf channel order) + auxdata, or the Asimov data (--data asimov)
    std::vector<std::string> blinded;  // channels --blind matched
};

// The workspace with the -p patches applied to its model spec (pyhf: ws.model(patches=...)), compiled on
// `backend`, with pyhf's ws.data(model).
LoadedModel load_model(const ModelOptions& options, const BackendPtr& backend);
// Same from an already loaded (e.g. patched) workspace.
LoadedModel build_model(const Workspace& ws, const ModelOptions& options, const BackendPtr& backend,
                        const std::vector<JsonPatch>& patches = {});

// JSON helpers for the outputs.
json::Value to_json(const std::vector<double>& v);
json::Value to_json(const std::array<double, 5>& v);
json::Value to_json(const std::vector<std::string>& v);
// {par set name: [values]} for a full parameter vector.
json::Value parameters_by_name(const Model& model, const std::vector<double>& pars);
// InputError (exit 2) for --asimov-mu / --asimov-np without --data asimov.
void check_data_options(const DataOptions& options);
// The Asimov data set --data asimov asks for, from the model and its observed data (main + aux).
std::vector<double> asimov_from_options(const Model& model, const std::vector<double>& observed,
                                        const DataOptions& options);
// The channels matching the --blind patterns; InputError (exit 2) for a pattern that matches none.
std::vector<std::string> blinded_channels(const std::vector<std::string>& channels, const DataOptions& options);
// Hides the fitted value of the POI `poi` ("" when unknown: the observed results are still hidden) and the data
// of `channels` in a command's JSON result, and says so in a "blinded" entry (blind_json.cpp).
void blind_json(json::Value& v, const std::string& poi, const std::vector<std::string>& channels);
// Adds a "dataset" entry describing Asimov data (--data asimov) to a JSON object result.
// `poi_init`: the POI's suggested init, the default --asimov-mu (nullopt: no POI, or one per model as in scan).
void describe_data(json::Value& v, std::optional<double> poi_init, const DataOptions& options);
// "data: Asimov data set, mu = 1, nuisance parameters nominal" for the tables.
std::string asimov_description(const Model& model, const DataOptions& options);
// A command's result as it is written: with its "dataset" entry and blinded as --blind asks.
json::Value presented(json::Value v, const ModelOptions& options, const LoadedModel& lm);
// Prints pyhf-style JSON to stdout or --output-file.
void emit(const json::Value& v, const ModelOptions& options);
// Prints text (tables) as it is to stdout or --output-file (written atomically, like the JSON).
void emit_text(const std::string& text, const ModelOptions& options);
// "hfcore: warning: ..." on stderr.
void warn(const std::string& message);
// Prints the warnings a hypotest collected and a line when a fit did not converge.
void report(const infer::HypotestResult& r);

// Adds --test-stat, --calctype, --ntoys, --seed, --toy-batch to `sub`, stored in `o`.
struct InferOptions {
    double test_poi = 1.0;
    std::string test_stat = "qtilde";
    std::string calctype = "asymptotics";
    std::int64_t ntoys = 2000;
    std::uint64_t seed = 0;
    std::int64_t toy_batch = 1000;
    void add_to(CLI::App& sub, bool with_test_poi = true, bool with_test_stat = true);
    infer::HypotestOptions hypotest_options() const;
};

}  // namespace hf::cli
