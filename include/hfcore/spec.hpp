// Typed, validated description of a pyhf workspace: what the JSON says, nothing derived.
// The workspace layer fills these after schema and semantic validation; the model compiles them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hf {

// The modifier types of pyhf's schema 1.0.0, in pyhf's order (the order of its parameter sets).
enum class ModifierType : std::uint8_t { histosys, lumi, normfactor, normsys, shapefactor, shapesys, staterror };
const char* modifier_type_name(ModifierType type);                 // as the JSON writes it
std::optional<ModifierType> find_modifier_type(std::string_view name);  // nullopt for an unknown name
std::vector<std::string> modifier_type_names();                    // every type, pyhf's order

// One modifier entry of a sample: its name, its type and the data of that type.
struct ModifierSpec {
    std::string name;
    ModifierType type{};
    double hi = 0.0, lo = 0.0;      // normsys
    std::vector<double> hi_data;    // histosys
    std::vector<double> lo_data;    // histosys
    std::vector<double> vals;       // shapesys / staterror: absolute per-bin uncertainties
    std::string json_path;          // e.g. "channels[2].samples[0].modifiers[3]", for error messages
};

struct SampleSpec {
    std::string name;
    std::vector<double> data;
    std::vector<ModifierSpec> modifiers;
    std::string json_path;
};

struct ChannelSpec {
    std::string name;
    std::vector<SampleSpec> samples;
    std::string json_path;
};

// An entry of measurements[i].config.parameters. Absent fields stay empty (pyhf: "not given").
struct ParameterConfig {
    std::string name;
    std::optional<std::vector<double>> inits;
    std::optional<std::vector<std::pair<double, double>>> bounds;
    std::optional<bool> fixed;
    std::optional<std::vector<double>> auxdata;
    std::optional<std::vector<double>> sigmas;
    std::optional<std::vector<double>> factors;
    std::string json_path;
};

struct MeasurementSpec {
    std::string name;
    std::string poi;
    std::vector<ParameterConfig> parameters;
    std::string json_path;
};

struct ObservationSpec {
    std::string name;
    std::vector<double> data;
    std::string json_path;
};

struct WorkspaceSpec {
    std::vector<ChannelSpec> channels;
    std::vector<ObservationSpec> observations;
    std::vector<MeasurementSpec> measurements;
    std::string version;
    std::string source;             // file name (or "<string>", "<stdin>") for error messages
};

// pyhf's interpolation codes (pyhf.interpolators).
enum class InterpCode { code0, code1, code2, code4, code4p };
// "code0", ..., "code4p"; InputError naming the codes otherwise.
InterpCode parse_interpcode(const std::string& name);
const char* interpcode_name(InterpCode code);

// pyhf's modifier_settings: interpolation codes per modifier type.
// Defaults are those of pyhf.Workspace.model / `pyhf cls` (normsys code4, histosys code4p).
struct ModifierSettings {
    InterpCode normsys_interpcode = InterpCode::code4;    // allowed: code1, code4
    InterpCode histosys_interpcode = InterpCode::code4p;  // allowed: code0, code2, code4p

    // pyhf's {type: {"interpcode": code}} entry: sets the code of `modifier_type`. InputError when that type
    // has no interpolation code or does not accept this one.
    void set(const std::string& modifier_type, InterpCode code);
};

// What a Model is compiled from: the channels plus one measurement's configuration.
struct ModelSpec {
    std::vector<ChannelSpec> channels;
    MeasurementSpec measurement;
    ModifierSettings settings;
    std::string source;
};

}  // namespace hf
