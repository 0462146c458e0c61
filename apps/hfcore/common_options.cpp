#include "common_options.hpp"

#include <unistd.h>

#include <cmath>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include "cmd_workspace_io.hpp"
#include "option_checks.hpp"
#include "hfcore/loader.hpp"
#include "hfcore/executor.hpp"
#include "hfcore/observed_data.hpp"

namespace hf::cli {

namespace {
// The ModelOptions whose --device was given on the command line.
std::set<const ModelOptions*>& explicit_device() {
    static std::set<const ModelOptions*> s;
    return s;
}
}  // namespace

void ModelOptions::add_to(CLI::App& sub, bool with_workspace) {
    if (with_workspace)
        sub.add_option("workspace", workspace, "Workspace JSON file ('-' for standard input)")->capture_default_str();
    sub.add_option("-p,--patch", patches, "RFC 6902 JSON patch applied to the model spec (repeatable)");
    sub.add_option("--measurement", measurement, "Measurement name (default: the first)");
    sub.add_option("--backend", backend, "Backend plugin: cpu, opencl, cuda, auto, or a plugin file")
        ->capture_default_str();
    sub.add_option("--precision", precision, "32b or 64b")->capture_default_str()->check(
        CLI::IsMember({"32b", "64b", "32", "64"}));
    sub.add_option("--device", device,
                   "Device index for the backend (under mpirun default: the rank's local rank, one GPU per rank)")
        ->capture_default_str()
        ->check(kNonNegative)
        ->each([this](const std::string&) { explicit_device().insert(this); });
    sub.add_option("--interpcodes", interpcodes,
                   "Interpolation codes, e.g. normsys=code1,histosys=code0 (default normsys=code4,histosys=code4p)");
    sub.add_option("--output-file", output_file, "Write the JSON result here instead of standard output");
}

BackendPtr ModelOptions::make_backend() const {
    LoadOptions lo;
    lo.precision = parse_precision(precision);
    lo.device = device;
    // Under mpirun each rank of a node takes its own GPU unless --device says otherwise.
    if (!explicit_device().count(this) && run::launched_by_mpi() && backend != "cpu") lo.device = run::local_rank();
    return load_backend(backend, lo);
}

ModifierSettings ModelOptions::modifier_settings() const { return parse_interpcodes(interpcodes); }

ModifierSettings parse_interpcodes(const std::string& text) {
    ModifierSettings s;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.empty()) continue;
        auto eq = item.find('=');
        if (eq == std::string::npos)
            throw InputError("--interpcodes", item, "expected TYPE=CODE, e.g. normsys=code1");
        try {
            s.set(item.substr(0, eq), parse_interpcode(item.substr(eq + 1)));
        } catch (const InputError& e) {
            throw InputError("--interpcodes", item, e.detail());
        }
    }
    return s;
}

LoadedModel build_model(const Workspace& ws, const ModelOptions& options, const BackendPtr& backend,
                        const std::vector<JsonPatch>& patches) {
    LoadedModel out;
    ModelRequest req;
    if (!options.measurement.empty()) req.measurement_name = options.measurement;
    req.patches = patches;
    for (const auto& p : options.patches) req.patches.push_back(JsonPatch::load_file(p));
    req.settings = options.modifier_settings();
    out.spec = ws.model_spec(req);
    out.model = std::make_unique<Model>(out.spec, backend);
    out.data = out.model->data_from_observations(ws.spec().observations, true, ws.source());
    check_observed_data(*out.model, out.data, ws.source());  // as the inference API and Python check it
    if (options.data.declared) {
        check_data_options(options.data);
        out.blinded = blinded_channels(out.model->channels(), options.data);
        if (options.data.kind == "asimov") out.data = asimov_from_options(*out.model, out.data, options.data);
    }
    return out;
}

LoadedModel load_model(const ModelOptions& options, const BackendPtr& backend) {
    auto ws = std::make_unique<Workspace>(Workspace::load_file(options.workspace));
    auto out = build_model(*ws, options, backend);
    out.workspace = std::move(ws);
    return out;
}

json::Value to_json(const std::vector<double>& v) {
    json::Array a;
    a.reserve(v.size());
    for (double x : v) a.emplace_back(x);
    return a;
}

json::Value to_json(const std::array<double, 5>& v) { return to_json(std::vector<double>(v.begin(), v.end())); }

json::Value to_json(const std::vector<std::string>& v) {
    json::Array a;
    for (const auto& s : v) a.emplace_back(s);
    return a;
}

json::Value parameters_by_name(const Model& model, const std::vector<double>& pars) {
    json::Object o;
    for (const auto& ps : model.parameter_sets()) {
        std::vector<double> v(pars.begin() + ps.offset, pars.begin() + ps.offset + ps.n);
        o.set(ps.name, to_json(v));
    }
    return o;
}

void emit(const json::Value& v, const ModelOptions& options) { write_json_output(v, options.output_file); }

void emit_text(const std::string& text, const ModelOptions& options) {
    if (options.output_file.empty())
        std::cout << text;
    else
        run::write_file_atomic(options.output_file, text);
}

namespace {
// The number the whole of `text` spells, or nullopt (CLI11's own conversion runs after the checks).
std::optional<double> parse_number(const std::string& text) {
    try {
        std::size_t used = 0;
        const double v = std::stod(text, &used);
        if (used == text.size()) return v;
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

CLI::Validator number_check(const char* description, bool (*ok)(double), const char* requirement) {
    return CLI::Validator(
        [ok, requirement](std::string& text) -> std::string {
            const auto v = parse_number(text);
            if (!v) return "'" + text + "' is not a number";
            if (!ok(*v)) return "'" + text + "': " + requirement;
            return "";
        },
        description);
}
}  // namespace

const CLI::Validator kFiniteNumber =
    number_check("FINITE", [](double v) { return std::isfinite(v); }, "must be a finite number");
const CLI::Validator kNonNegative =
    number_check("NONNEGATIVE", [](double v) { return std::isfinite(v) && v >= 0; }, "must be finite and >= 0");
const CLI::Validator kOpenUnitInterval =
    number_check("IN (0, 1)", [](double v) { return v > 0 && v < 1; }, "must lie strictly between 0 and 1");

void check_poi_value(const Model& model, double value, const std::string& option) {
    const auto poi = model.poi_index();
    if (poi < 0) throw InputError(option, "", "the model has no POI (the measurement names none)");
    const auto [lo, hi] = model.suggested_bounds()[static_cast<std::size_t>(poi)];
    if (!(value >= lo && value <= hi)) {
        std::ostringstream os;
        os.precision(17);
        os << value << " lies outside the bounds [" << lo << ", " << hi << "] of the POI '" << model.poi_name()
           << "' (set in the measurement's parameter config)";
        throw InputError(option, "", os.str());
    }
}

void warn(const std::string& message) { std::cerr << "hfcore: warning: " << message << "\n"; }

void report(const infer::HypotestResult& r) {
    for (const auto& w : r.warnings) warn(w);
    if (!r.converged) warn("a fit did not converge; the result may be inaccurate");
    if (r.toy_fits_failed > 0)
        warn(std::to_string(r.toy_fits_failed) + " toy fits did not converge");
}

void InferOptions::add_to(CLI::App& sub, bool with_test_poi, bool with_test_stat) {
    if (with_test_poi)
        sub.add_option("--test-poi", test_poi, "POI value tested")->capture_default_str()->check(kFiniteNumber);
    if (with_test_stat)
        sub.add_option("--test-stat", test_stat, "Test statistic")
            ->capture_default_str()
            ->check(CLI::IsMember({"q", "qtilde"}));
    sub.add_option("--calctype", calctype, "Calculator")
        ->capture_default_str()
        ->check(CLI::IsMember({"asymptotics", "toybased"}));
    // Upper ends: beyond them a run would take days or the toys' device memory would not fit; both are far above
    // what anyone runs (pyhf's default is 2000 toys).
    sub.add_option("--ntoys", ntoys, "Toys per hypothesis (toybased)")
        ->capture_default_str()
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{100000000}));
    sub.add_option("--seed", seed, "Seed of the toys' random numbers (Philox)")
        ->capture_default_str()
        ->check(kNonNegative);
    sub.add_option("--toy-batch", toy_batch, "Toys fitted together in one batch")
        ->capture_default_str()
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{10000000}));
}

infer::HypotestOptions InferOptions::hypotest_options() const {
    infer::HypotestOptions o;
    o.test_stat = infer::parse_test_stat(test_stat);
    o.calctype = infer::parse_calctype(calctype);
    o.ntoys = ntoys;
    o.seed = seed;
    o.toy_batch = toy_batch;
    return o;
}

}  // namespace hf::cli
