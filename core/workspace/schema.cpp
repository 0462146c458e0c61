// pyhf's JSON schema 1.0.0 (defs.json) as C++ checks. The first violation in document order is reported
// with its JSON path and what the schema expects there.
#include <algorithm>
#include <functional>
#include <initializer_list>
#include <string_view>

#include "checks.hpp"
#include "modifiers/registry.hpp"
#include "schema_check.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/schema_check.hpp"
#include "hfcore/schema_error.hpp"

namespace hf::detail {

using json::Value;

std::string describe(const Value& v) {
    switch (v.type()) {
        case json::Type::Null: return "null";
        case json::Type::Bool: return v.as_bool() ? "true" : "false";
        case json::Type::Number: return "the number " + json::dump(v);
        case json::Type::String: {
            std::string s = v.as_string();
            if (s.size() > 40) s = s.substr(0, 40) + "...";
            return "a string (" + json::dump(Value(s)) + ")";
        }
        case json::Type::Array: {
            const auto n = v.as_array().size();
            return "an array of " + std::to_string(n) + (n == 1 ? " item" : " items");
        }
        case json::Type::Object: return "an object";
    }
    return "?";
}

void SchemaCheck::fail(const std::string& path, const std::string& what) const {
    throw SchemaError(source_, path, what);
}

const json::Object& SchemaCheck::object(const Value& v, const std::string& path,
                                        std::initializer_list<std::string_view> allowed,
                                        std::initializer_list<std::string_view> required, bool open) const {
    if (!v.is_object()) fail(path, "expected an object, got " + describe(v));
    const json::Object& o = v.as_object();
    for (auto key : required)
        if (!o.contains(key)) fail(json::path_key(path, key), "required property is missing");
    if (!open) {
        for (const auto& [key, value] : o) {
            if (std::find(allowed.begin(), allowed.end(), std::string_view(key)) != allowed.end()) continue;
            std::string list;
            for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
            fail(json::path_key(path, key), "unexpected property (allowed here: " + list + ")");
        }
    }
    return o;
}

const json::Array& SchemaCheck::array(const Value& v, const std::string& path, std::size_t min_items) const {
    if (!v.is_array()) fail(path, "expected an array, got " + describe(v));
    const auto& a = v.as_array();
    if (a.size() < min_items)
        fail(path, "expected at least " + std::to_string(min_items) + (min_items == 1 ? " item" : " items") +
                       ", got an empty array");
    return a;
}

void SchemaCheck::number(const Value& v, const std::string& path) const {
    if (!v.is_number()) fail(path, "expected a number, got " + describe(v));
}

void SchemaCheck::numbers(const Value& v, const std::string& path, std::size_t min_items) const {
    const auto& a = array(v, path, min_items);
    for (std::size_t i = 0; i < a.size(); ++i) number(a[i], json::path_index(path, i));
}

const std::string& SchemaCheck::string(const Value& v, const std::string& path) const {
    if (!v.is_string()) fail(path, "expected a string, got " + describe(v));
    return v.as_string();
}

void SchemaCheck::boolean(const Value& v, const std::string& path) const {
    if (!v.is_bool()) fail(path, "expected true or false, got " + describe(v));
}

void SchemaCheck::null(const Value& v, const std::string& path) const {
    if (!v.is_null()) fail(path, "expected null, got " + describe(v));
}

void SchemaCheck::constant(const Value& v, const std::string& path, const std::string& expected,
                           const std::string& why) const {
    if (!v.is_string() || v.as_string() != expected)
        fail(path, "expected \"" + expected + "\"" + why + ", got " + describe(v));
}

namespace {

class Schema : public SchemaCheck {
public:
    using SchemaCheck::SchemaCheck;

    void pattern(const Value& v, const std::string& path, const std::function<bool(const std::string&)>& ok,
                 const std::string& rule) const {
        const std::string& s = string(v, path);
        if (!ok(s)) fail(path, "\"" + s + "\" does not match " + rule);
    }

    // ---- definitions ----
    void workspace(const Value& doc) const {
        const auto& o = object(doc, "", {"channels", "measurements", "observations", "version"},
                               {"channels", "measurements", "observations", "version"});
        version(o.at("version"), "version");
        channels(o.at("channels"), "channels");
        const auto& ms = array(o.at("measurements"), "measurements", 1);
        for (std::size_t i = 0; i < ms.size(); ++i) measurement(ms[i], json::path_index("measurements", i));
        const auto& obs = array(o.at("observations"), "observations", 1);
        for (std::size_t i = 0; i < obs.size(); ++i) observation(obs[i], json::path_index("observations", i));
    }

    void model(const Value& doc) const {
        const auto& o = object(doc, "", {"channels", "parameters"}, {"channels"});
        channels(o.at("channels"), "channels");
        if (const Value* p = o.find("parameters")) parameters(*p, "parameters");
    }

    void version(const Value& v, const std::string& path) const {
        constant(v, path, "1.0.0", " (the schema version pyhf defines)");
    }

    void channels(const Value& v, const std::string& path) const {
        const auto& cs = array(v, path, 1);
        for (std::size_t i = 0; i < cs.size(); ++i) channel(cs[i], json::path_index(path, i));
    }

    void channel(const Value& v, const std::string& path) const {
        const auto& o = object(v, path, {"name", "samples"}, {"name", "samples"});
        string(o.at("name"), json::path_key(path, "name"));
        const std::string sp = json::path_key(path, "samples");
        const auto& ss = array(o.at("samples"), sp, 1);
        for (std::size_t i = 0; i < ss.size(); ++i) sample(ss[i], json::path_index(sp, i));
    }

    void sample(const Value& v, const std::string& path) const {
        const auto& o = object(v, path, {"name", "data", "modifiers"}, {"name", "data", "modifiers"});
        string(o.at("name"), json::path_key(path, "name"));
        numbers(o.at("data"), json::path_key(path, "data"));
        const std::string mp = json::path_key(path, "modifiers");
        const auto& ms = array(o.at("modifiers"), mp);
        for (std::size_t i = 0; i < ms.size(); ++i) modifier(ms[i], json::path_index(mp, i));
    }

    void modifier(const Value& v, const std::string& path) const {
        // anyOf over the modifier definitions: the "type" picks the one whose rules are reported.
        if (!v.is_object()) fail(path, "expected a modifier object, got " + describe(v));
        const Value* t = v.find("type");
        const std::string tp = json::path_key(path, "type");
        const std::string types = modifier_type_list();
        if (!t) fail(tp, "required property is missing (one of " + types + ")");
        if (!t->is_string()) fail(tp, "expected one of " + types + ", got " + describe(*t));
        const auto& o = object(v, path, {"name", "type", "data"}, {"name", "type", "data"});
        const auto type = find_modifier_type(t->as_string());
        if (!type) {
            string(o.at("name"), json::path_key(path, "name"));
            fail(tp, "expected one of " + types + ", got " + describe(*t));
        }
        modifier_kind(*type).check_json(*this, o, path);
    }

    void measurement(const Value& v, const std::string& path) const {
        const auto& o = object(v, path, {"name", "config"}, {"name", "config"});
        string(o.at("name"), json::path_key(path, "name"));
        const std::string cp = json::path_key(path, "config");
        const auto& c = object(o.at("config"), cp, {"poi", "parameters"}, {"poi", "parameters"});
        string(c.at("poi"), json::path_key(cp, "poi"));
        parameters(c.at("parameters"), json::path_key(cp, "parameters"));
    }

    void parameters(const Value& v, const std::string& path) const {
        const auto& ps = array(v, path);
        for (std::size_t i = 0; i < ps.size(); ++i) parameter(ps[i], json::path_index(path, i));
    }

    void parameter(const Value& v, const std::string& path) const {
        const auto& o = object(v, path, {"name", "inits", "bounds", "auxdata", "factors", "sigmas", "fixed"}, {"name"});
        string(o.at("name"), json::path_key(path, "name"));
        for (const char* key : {"inits", "auxdata", "factors", "sigmas"})
            if (const Value* x = o.find(key)) numbers(*x, json::path_key(path, key));
        if (const Value* b = o.find("bounds")) {
            const std::string bp = json::path_key(path, "bounds");
            const auto& pairs = array(*b, bp, 1);
            for (std::size_t i = 0; i < pairs.size(); ++i) {
                // The schema only asks for arrays of numbers; a bound that is not [lower, upper] cannot be used.
                const std::string ip = json::path_index(bp, i);
                numbers(pairs[i], ip, 0);
                const auto& pair = pairs[i].as_array();
                if (pair.size() != 2) fail(ip, "expected [lower, upper] (2 numbers), got " + describe(pairs[i]));
                if (pair[0].as_double() > pair[1].as_double())
                    fail(ip, "lower bound " + json::dump(pair[0]) + " is above upper bound " + json::dump(pair[1]));
            }
        }
        if (const Value* f = o.find("fixed")) boolean(*f, json::path_key(path, "fixed"));
    }

    void observation(const Value& v, const std::string& path) const {
        const auto& o = object(v, path, {"name", "data"}, {"name", "data"});
        string(o.at("name"), json::path_key(path, "name"));
        numbers(o.at("data"), json::path_key(path, "data"));
    }

    // ---- patchset ----
    static bool word(const std::string& s) {
        return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        });
    }
    static bool hex(const std::string& s, std::size_t n, bool upper_ok) {
        return s.size() == n && std::all_of(s.begin(), s.end(), [&](char c) {
            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (upper_ok && c >= 'A' && c <= 'F');
        });
    }

    void patchset(const Value& doc) const {
        const auto& o = object(doc, "", {"patches", "metadata", "version"}, {"patches", "metadata", "version"});
        version(o.at("version"), "version");
        const auto& md = object(o.at("metadata"), "metadata", {}, {"references", "digests", "labels", "description"},
                                true);
        const auto& refs = object(md.at("references"), "metadata.references", {"hepdata"}, {});
        if (refs.empty()) fail("metadata.references", "expected at least one reference (e.g. hepdata)");
        if (const Value* h = refs.find("hepdata"))
            pattern(*h, "metadata.references.hepdata",
                    [](const std::string& s) {
                        return s.size() == 10 && s.rfind("ins", 0) == 0 &&
                               std::all_of(s.begin() + 3, s.end(), [](char c) { return c >= '0' && c <= '9'; });
                    },
                    "'^ins[0-9]{7}$' (an INSPIRE id such as ins1234567)");
        const auto& dig = object(md.at("digests"), "metadata.digests", {"md5", "sha256"}, {});
        if (dig.empty()) fail("metadata.digests", "expected at least one digest (md5 or sha256)");
        if (const Value* m = dig.find("md5"))
            pattern(*m, "metadata.digests.md5", [](const std::string& s) { return hex(s, 32, false); },
                    "'^[a-f0-9]{32}$'");
        if (const Value* s = dig.find("sha256"))
            pattern(*s, "metadata.digests.sha256", [](const std::string& x) { return hex(x, 64, true); },
                    "'^[a-fA-F0-9]{64}$'");
        const auto& labels = array(md.at("labels"), "metadata.labels", 1);
        for (std::size_t i = 0; i < labels.size(); ++i)
            pattern(labels[i], json::path_index("metadata.labels", i), word, "'^[a-zA-Z0-9_]+$'");
        string(md.at("description"), "metadata.description");
        const auto& patches = array(o.at("patches"), "patches", 1);
        for (std::size_t i = 0; i < patches.size(); ++i) patch(patches[i], json::path_index("patches", i));
    }

    void patch(const Value& v, const std::string& path) const {
        const auto& o = object(v, path, {"metadata", "patch"}, {"metadata", "patch"});
        const std::string mp = json::path_key(path, "metadata");
        const auto& md = object(o.at("metadata"), mp, {}, {"name", "values"}, true);
        pattern(md.at("name"), json::path_key(mp, "name"), word, "'^[a-zA-Z0-9_]+$'");
        const std::string vp = json::path_key(mp, "values");
        const auto& values = array(md.at("values"), vp);
        for (std::size_t i = 0; i < values.size(); ++i)
            if (!values[i].is_number() && !values[i].is_string())
                fail(json::path_index(vp, i), "expected a number or a string, got " + describe(values[i]));
        jsonpatch(o.at("patch"), json::path_key(path, "patch"));
    }

    void jsonpatch(const Value& v, const std::string& path) const {
        const auto& ops = array(v, path);
        for (std::size_t i = 0; i < ops.size(); ++i) operation(ops[i], json::path_index(path, i));
    }

    void operation(const Value& v, const std::string& path) const {
        const auto& o = object(v, path, {}, {"op", "path"}, true);
        const std::string opp = json::path_key(path, "op");
        const Value& op = o.at("op");
        static const char* kOps = "add, remove, replace, move, copy, test";
        if (!op.is_string()) fail(opp, std::string("expected one of ") + kOps + ", got " + describe(op));
        string(o.at("path"), json::path_key(path, "path"));
        const std::string& name = op.as_string();
        if (name == "add" || name == "replace" || name == "test") {
            if (!o.contains("value")) fail(json::path_key(path, "value"), "required property is missing (op \"" + name + "\")");
        } else if (name == "move" || name == "copy") {
            const Value* from = o.find("from");
            if (!from) fail(json::path_key(path, "from"), "required property is missing (op \"" + name + "\")");
            string(*from, json::path_key(path, "from"));
        } else if (name != "remove") {
            fail(opp, std::string("expected one of ") + kOps + ", got " + describe(op));
        }
    }

};

}  // namespace

void check_workspace_schema(const Value& doc, const std::string& source) { Schema(source).workspace(doc); }
void check_model_schema(const Value& doc, const std::string& source) { Schema(source).model(doc); }
void check_measurement_schema(const Value& m, const std::string& source, const std::string& path) {
    Schema(source).measurement(m, path);
}
void check_patchset_schema(const Value& doc, const std::string& source) { Schema(source).patchset(doc); }
void check_jsonpatch_schema(const Value& ops, const std::string& source, const std::string& path) {
    Schema(source).jsonpatch(ops, path);
}

}  // namespace hf::detail

namespace hf {

void check_schema(std::string_view schema_name, const json::Value& doc, const std::string& source) {
    if (schema_name == "workspace.json") return detail::check_workspace_schema(doc, source);
    if (schema_name == "model.json") return detail::check_model_schema(doc, source);
    if (schema_name == "measurement.json") return detail::check_measurement_schema(doc, source, "");
    if (schema_name == "patchset.json") return detail::check_patchset_schema(doc, source);
    if (schema_name == "jsonpatch.json") return detail::check_jsonpatch_schema(doc, source, "");
    throw InputError(source, "", "no schema named " + std::string(schema_name) +
                                     " (hfcore checks workspace.json, model.json, measurement.json, patchset.json "
                                     "and jsonpatch.json)");
}

}  // namespace hf
