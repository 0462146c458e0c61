// What the modifier kinds share: the order of the JSON checks and the per-bin data rules.
#include "modifiers/modifier.hpp"

#include "hfcore/errors.hpp"
#include "workspace/schema_check.hpp"

namespace hf::detail {

void Fail::operator()(const std::string& path, const std::string& what) const { throw InputError(source, path, what); }

void ModifierKind::check_json(const SchemaCheck& check, const json::Object& modifier, const std::string& path) const {
    check_json_name(check, modifier.at("name"), json::path_key(path, "name"));
    check_json_data(check, modifier.at("data"), json::path_key(path, "data"));
}

void ModifierKind::check_json_name(const SchemaCheck& check, const json::Value& name, const std::string& path) const {
    check.string(name, path);
}

std::string n_items(std::size_t n, const char* what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

void check_length(const std::vector<double>& values, const SampleSpec& s, const std::string& path, const Fail& fail) {
    if (values.size() != s.data.size())
        fail(path, n_items(values.size(), "number") + ", but sample '" + s.name + "' has " +
                       n_items(s.data.size(), "bin"));
}

void PerBinDataKind::check_json_data(const SchemaCheck& check, const json::Value& data, const std::string& path) const {
    check.numbers(data, path);
}

void PerBinDataKind::read_data(const json::Value& data, ModifierSpec& out) const { out.vals = numbers_of(data); }

void PerBinDataKind::check_data(const ModifierSpec& m, const SampleSpec& s, const Fail& fail) const {
    check_length(m.vals, s, json::path_key(m.json_path, "data"), fail);
}

std::vector<double> numbers_of(const json::Value& array) {
    std::vector<double> out;
    out.reserve(array.as_array().size());
    for (const auto& x : array.as_array()) out.push_back(x.as_double());
    return out;
}

Requirement free_requirement(const ModifierKind& kind, const ModifierSpec& m, std::int64_t n) {
    Requirement r;
    r.type = kind.type();
    r.json_path = m.json_path;
    r.constraint = Constraint::none;
    r.n = n;
    r.is_scalar = !kind.per_bin();
    r.inits = std::vector<double>(static_cast<std::size_t>(n), 1.0);
    r.bounds = std::vector<std::pair<double, double>>(static_cast<std::size_t>(n), {0.0, 10.0});
    r.fixed = std::vector<bool>(static_cast<std::size_t>(n), false);
    return r;
}

Requirement nuisance_requirement(const ModifierKind& kind, const ModifierSpec& m) {
    Requirement r;
    r.type = kind.type();
    r.json_path = m.json_path;
    r.constraint = Constraint::normal;
    r.inits = std::vector<double>{0.0};
    r.bounds = std::vector<std::pair<double, double>>{{-5.0, 5.0}};
    r.fixed = {false};
    r.defines.auxdata = true;
    r.auxdata = std::vector<double>{0.0};
    return r;
}

}  // namespace hf::detail
