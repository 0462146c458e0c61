// Internal: parameter sets as the modifiers ask for them (pyhf's required_parset), collected per type while a
// model's channels are walked, then merged by name in pyhf's type order.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hfcore/spec.hpp"

namespace hf::detail {

enum class Constraint { none, normal, poisson };
const char* constraint_name(Constraint c);  // "normal", "poisson", "" (pyhf's paramset types, as ParameterSet says)

// Measurement attributes a parameter set takes beyond inits, bounds and fixed.
struct ConfigAttrs {
    bool auxdata = false, sigmas = false, factors = false;
};

// One modifier's requirement for its parameter set. Absent optionals are "undefined" in pyhf's sense: the type
// does not support configuring that property (the measurement must give it, or it stays empty).
struct Requirement {
    ModifierType type{};    // modifier type that asked
    Constraint constraint = Constraint::none;
    std::int64_t n = 1;
    bool is_scalar = true;
    std::optional<std::vector<double>> inits;
    std::optional<std::vector<std::pair<double, double>>> bounds;
    std::vector<bool> fixed;
    ConfigAttrs defines;
    std::optional<std::vector<double>> auxdata, sigmas, factors;
    std::string json_path;

    bool agrees_with(const Requirement& other) const;
};

// A use of a modifier a type sets aside until the walk is over (staterror: all samples carrying a name).
struct DeferredUse {
    const ModifierSpec* modifier = nullptr;
    const SampleSpec* sample = nullptr;
    std::int64_t channel_offset = 0;  // global bin of the sample's first bin
};

class ParamCollector {
public:
    explicit ParamCollector(const std::string& source) : source_(source) {}

    // The requirement of `name` by a modifier of `type` (at `r.json_path`): the first one of that name and type is
    // kept; a later one must agree with it.
    void add(ModifierType type, const std::string& name, Requirement r);
    bool has(ModifierType type, const std::string& name) const;
    const Requirement& requirement(ModifierType type, const std::string& name) const;

    void defer(ModifierType type, DeferredUse use);
    // Deferred uses by name (sorted), in walk order.
    const std::map<std::string, std::vector<DeferredUse>>& deferred(ModifierType type) const;

    // Components of a per-bin set that spans channels: the global bin of each (staterror).
    std::map<std::string, std::vector<std::int64_t>> component_bins;

    // Every requirement, merged by name across types in pyhf's type order: (name, requirement) in par_order.
    std::vector<std::pair<std::string, Requirement>> merged() const;

    const std::string& source() const { return source_; }

private:
    std::string source_;
    std::map<ModifierType, std::vector<std::pair<std::string, Requirement>>> by_type_;
    std::map<ModifierType, std::map<std::string, std::size_t>> seen_;
    std::map<ModifierType, std::map<std::string, std::vector<DeferredUse>>> deferred_;
};

}  // namespace hf::detail
