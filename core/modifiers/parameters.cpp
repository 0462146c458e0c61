// Parameter-set requirements per modifier type, and their merge across types (pyhf's _nominal_and_modifiers).
#include "modifiers/parameters.hpp"

#include "hfcore/errors.hpp"
#include "modifiers/registry.hpp"

namespace hf::detail {

const char* constraint_name(Constraint c) {
    switch (c) {
        case Constraint::normal: return "normal";
        case Constraint::poisson: return "poisson";
        case Constraint::none: break;
    }
    return "";
}

bool Requirement::agrees_with(const Requirement& o) const {
    return constraint == o.constraint && n == o.n && is_scalar == o.is_scalar && inits == o.inits &&
           bounds == o.bounds && fixed == o.fixed && auxdata == o.auxdata && sigmas == o.sigmas &&
           factors == o.factors && defines.auxdata == o.defines.auxdata && defines.sigmas == o.defines.sigmas &&
           defines.factors == o.defines.factors;
}

void ParamCollector::add(ModifierType type, const std::string& name, Requirement r) {
    auto& list = by_type_[type];
    auto [it, fresh] = seen_[type].try_emplace(name, list.size());
    if (fresh) {
        list.emplace_back(name, std::move(r));
        return;
    }
    const Requirement& first = list[it->second].second;
    if (!first.agrees_with(r))
        throw InputError(source_, r.json_path,
                         "modifier '" + name + "' (" + modifier_type_name(type) + ") conflicts with its use at " +
                             first.json_path + " (different number of bins)");
}

bool ParamCollector::has(ModifierType type, const std::string& name) const {
    auto t = seen_.find(type);
    return t != seen_.end() && t->second.count(name) > 0;
}

const Requirement& ParamCollector::requirement(ModifierType type, const std::string& name) const {
    return by_type_.at(type)[seen_.at(type).at(name)].second;
}

void ParamCollector::defer(ModifierType type, DeferredUse use) {
    deferred_[type][use.modifier->name].push_back(use);
}

const std::map<std::string, std::vector<DeferredUse>>& ParamCollector::deferred(ModifierType type) const {
    static const std::map<std::string, std::vector<DeferredUse>> none;
    auto it = deferred_.find(type);
    return it == deferred_.end() ? none : it->second;
}

std::vector<std::pair<std::string, Requirement>> ParamCollector::merged() const {
    std::vector<std::pair<std::string, Requirement>> out;
    std::map<std::string, std::size_t> pos;
    for (const auto* kind : modifier_kinds()) {
        auto list = by_type_.find(kind->type());
        if (list == by_type_.end()) continue;
        for (const auto& [name, r] : list->second) {
            auto it = pos.find(name);
            if (it == pos.end()) {
                pos[name] = out.size();
                out.emplace_back(name, r);
            } else if (const Requirement& first = out[it->second].second; !first.agrees_with(r)) {
                throw InputError(source_, r.json_path,
                                 "parameter '" + name + "' is used by a " + modifier_type_name(first.type) +
                                     " modifier (at " + first.json_path + ") and a " + modifier_type_name(r.type) +
                                     " modifier with different settings; use distinct modifier names");
            }
        }
    }
    return out;
}

}  // namespace hf::detail
