// Internal: what one modifier type is. Each type is one file in this folder (histosys.cpp, lumi.cpp, ...) with
// its JSON rules and reading, its semantic checks, its parameter-set rule and its lowering into the packed
// likelihood; registry.cpp lists them. The rest of the core loops over the registry and never names a type.
//
// Adding a type: a value in hf::ModifierType (spec.hpp), a file here deriving from ModifierKind, and one line
// in registry.cpp (and, if its JSON data has a new shape, a field in ModifierSpec).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hfcore/json.hpp"
#include "hfcore/spec.hpp"
#include "modifiers/lowering.hpp"
#include "modifiers/parameters.hpp"

namespace hf::detail {

class SchemaCheck;

// Throws InputError(source, path, what): the semantic checks report through it.
struct Fail {
    const std::string& source;
    [[noreturn]] void operator()(const std::string& path, const std::string& what) const;
};

// Rules on every use of one type's parameters within a model's channels, checked in document order (pyhf
// checks them while it builds a model). One object per check of a list of channels.
class UseCheck {
public:
    virtual ~UseCheck() = default;
    virtual void use(const ModifierSpec& m, const SampleSpec& s, const ChannelSpec& c) = 0;
    virtual void finish() {}
};

class ModifierKind {
public:
    virtual ~ModifierKind() = default;
    virtual ModifierType type() const = 0;
    virtual const char* name() const = 0;  // as the JSON writes it

    // ---- JSON ----
    // The schema's rules for a modifier object of this type (keys already checked): its name, then its data.
    void check_json(const SchemaCheck& check, const json::Object& modifier, const std::string& path) const;
    virtual void check_json_name(const SchemaCheck& check, const json::Value& name, const std::string& path) const;
    virtual void check_json_data(const SchemaCheck& check, const json::Value& data, const std::string& path) const = 0;
    // The typed spec's data fields from schema-checked JSON data.
    virtual void read_data(const json::Value& /*data*/, ModifierSpec& /*out*/) const {}

    // ---- semantic checks ----
    // The data against the sample it modifies (lengths of per-bin data).
    virtual void check_data(const ModifierSpec& /*m*/, const SampleSpec& /*s*/, const Fail& /*fail*/) const {}
    // Whether a modifier of type `other` may name the same parameter (pyhf: their requirements agree).
    virtual bool shares_parameter_with(ModifierType other) const { return other == type(); }
    // Rules over all uses of this type's parameters in a model; nullptr when there are none.
    virtual std::unique_ptr<UseCheck> use_check(const Fail& /*fail*/) const { return nullptr; }
    // Components of a parameter first used by `m` on `s`: 1 for scalars.
    virtual std::size_t components(const ModifierSpec& /*m*/, const SampleSpec& /*s*/,
                                   const std::vector<ChannelSpec>& /*channels*/) const {
        return 1;
    }
    // pyhf names the components "name[i]", even a single one.
    virtual bool per_bin() const { return false; }

    // ---- parameter set ----
    virtual Constraint constraint() const = 0;
    // The measurement attributes this type's parameters take beyond inits, bounds and fixed.
    virtual ConfigAttrs configurable() const = 0;
    // The attributes a measurement must give (none: the type has defaults for all).
    virtual std::vector<std::string> required_config() const { return {}; }
    // Called for each use while the model's channels and samples are walked in pyhf's order (sorted channels,
    // sorted samples, each sample's modifiers by (name, type)): adds the use's requirement to `c` (or defers it).
    virtual void collect(const ModifierSpec& m, const SampleSpec& s, std::int64_t channel_offset,
                         ParamCollector& c) const = 0;
    // After the walk: requirements this type deferred (staterror: one per name, from all the samples carrying it).
    virtual void finish(ParamCollector& /*c*/, std::int64_t /*n_main*/) const {}

    // ---- interpolation codes (types without one: no setting, no codes) ----
    virtual InterpCode ModifierSettings::*interp_setting() const { return nullptr; }
    virtual std::vector<InterpCode> interp_codes() const { return {}; }

    // ---- lowering: the factors and deltas of `m` on one (sample, bin) element ----
    virtual void lower(const ModifierSpec& m, const Element& e, PackedBuilder& out) const = 0;
};

// The types whose data is one number per bin of the sample (shapesys, staterror): its JSON, its reading into
// ModifierSpec::vals and its length check; one parameter per bin.
class PerBinDataKind : public ModifierKind {
public:
    void check_json_data(const SchemaCheck& check, const json::Value& data, const std::string& path) const override;
    void read_data(const json::Value& data, ModifierSpec& out) const override;
    void check_data(const ModifierSpec& m, const SampleSpec& s, const Fail& fail) const override;
    bool per_bin() const override { return true; }
};

std::vector<double> numbers_of(const json::Value& array);  // a schema-checked array of numbers
// "N numbers, but sample 'x' has M bins" at `path` when `values` does not have one entry per bin of `s`.
void check_length(const std::vector<double>& values, const SampleSpec& s, const std::string& path, const Fail& fail);
std::string n_items(std::size_t n, const char* what);  // "1 number", "3 numbers"

// Requirements several types share. Unconstrained (normfactor, shapefactor): n components, init 1, bounds
// [0, 10]. A Gaussian-constrained scalar nuisance parameter (normsys, histosys): init 0, bounds [-5, 5], auxdata 0.
Requirement free_requirement(const ModifierKind& kind, const ModifierSpec& m, std::int64_t n);
Requirement nuisance_requirement(const ModifierKind& kind, const ModifierSpec& m);

}  // namespace hf::detail
