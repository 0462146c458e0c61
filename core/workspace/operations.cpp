// pyhf's workspace operations (pyhf.Workspace.prune / rename / sorted / combine), reproducing the documents
// pyhf builds so that outputs and digests agree.
#include <algorithm>
#include <map>
#include <set>

#include "hfcore/errors.hpp"
#include "hfcore/workspace.hpp"

namespace hf {

using json::Array;
using json::Object;
using json::Value;

Join parse_join(const std::string& name) {
    if (name == "none") return Join::None;
    if (name == "outer") return Join::Outer;
    if (name == "left outer") return Join::LeftOuter;
    if (name == "right outer") return Join::RightOuter;
    throw Error("Workspaces must be joined using one of the valid join operations (none, outer, left outer, right "
                "outer); not " + name);
}

const char* join_name(Join join) {
    switch (join) {
        case Join::None: return "none";
        case Join::Outer: return "outer";
        case Join::LeftOuter: return "left outer";
        case Join::RightOuter: return "right outer";
    }
    return "?";
}

namespace {

const std::string& name_of(const Value& item) { return item["name"].as_string(); }

template <class T>
bool contains(const std::vector<T>& v, const T& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

std::string lookup(const std::vector<std::pair<std::string, std::string>>& map, const std::string& key) {
    for (const auto& [from, to] : map)
        if (from == key) return to;
    return key;
}

// dict(pairs) keeps the last value of a repeated key.
std::vector<std::pair<std::string, std::string>> as_dict(const std::vector<std::pair<std::string, std::string>>& pairs) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& kv : pairs) {
        auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == kv.first; });
        if (it == out.end()) out.push_back(kv);
        else it->second = kv.second;
    }
    return out;
}

// pyhf.workspace._join_items: join two lists of named objects.
Array join_items(Join join, const Array& left, const Array& right, const char* deep_merge_key) {
    const Array& primary = join == Join::RightOuter ? right : left;
    const Array& secondary = join == Join::RightOuter ? left : right;
    Array joined = primary;
    std::vector<std::string> keys;
    for (const auto& item : joined) keys.push_back(name_of(item));
    for (const auto& item : secondary) {
        auto at = std::find(keys.begin(), keys.end(), name_of(item));
        if (at != keys.end() && deep_merge_key) {
            Value& target = joined[static_cast<std::size_t>(at - keys.begin())];
            Value merged(join_items(Join::LeftOuter, target[deep_merge_key].as_array(), item[deep_merge_key].as_array(),
                                    nullptr));
            target.as_object().set(deep_merge_key, std::move(merged));
        } else if (join == Join::None || (join == Join::Outer && !contains(primary, item)) ||
                   ((join == Join::LeftOuter || join == Join::RightOuter) && at == keys.end())) {
            joined.push_back(item);
        }
    }
    return joined;
}

std::string python_list(const std::vector<std::string>& names) {
    std::string s = "[";
    for (std::size_t i = 0; i < names.size(); ++i) s += (i ? ", '" : "'") + names[i] + "'";
    return s + "]";
}

std::vector<std::string> common_names(const Array& a, const Array& b) {
    std::set<std::string> left, out;
    for (const auto& x : a) left.insert(name_of(x));
    for (const auto& x : b)
        if (left.count(name_of(x))) out.insert(name_of(x));
    return {out.begin(), out.end()};
}

std::vector<std::string> repeated_names(const Array& items) {
    std::vector<std::string> order, out;
    std::map<std::string, int> count;
    for (const auto& x : items)
        if (count[name_of(x)]++ == 0) order.push_back(name_of(x));
    for (const auto& n : order)
        if (count[n] > 1) out.push_back(n);
    return out;
}

constexpr const char* kValidJoins = " You can also try a different join operation: ['none', 'outer', 'left outer', 'right outer'].";

// Channels and observations share the same join rules.
Array join_checked(Join join, const Array& left, const Array& right, const char* deep_merge_key, const char* what,
                   const std::string& src) {
    Array joined = join_items(join, left, right, deep_merge_key);
    if (join == Join::None) {
        auto common = common_names(left, right);
        if (!common.empty())
            throw InputError(src, what, std::string("Workspaces cannot have any ") + what +
                                            " in common with the same name: " + python_list(common) + "." + kValidJoins);
    } else if (join == Join::Outer) {
        auto repeated = repeated_names(joined);
        if (!repeated.empty())
            throw InputError(src, what, std::string("Workspaces cannot have ") + what +
                                            " in common with incompatible structure: " + python_list(repeated) + "." +
                                            kValidJoins);
    }
    return joined;
}

Array join_measurements(Join join, const Array& left, const Array& right, const std::string& src) {
    Array joined = join_items(join, left, right, nullptr);
    if (join == Join::None) {
        auto common = common_names(left, right);
        if (!common.empty())
            throw InputError(src, "measurements",
                             "Workspaces cannot have any measurements in common with the same name: " +
                                 python_list(common) + "." + kValidJoins);
        return joined;
    }
    if (join != Join::Outer) return joined;
    // Same-named measurements: the POIs must agree and the parameter configs are joined.
    std::vector<std::string> order;
    std::map<std::string, std::vector<const Value*>> by_name;
    for (const auto& m : joined) {
        if (!by_name.count(name_of(m))) order.push_back(name_of(m));
        by_name[name_of(m)].push_back(&m);
    }
    std::vector<std::string> bad_poi;
    for (const auto& n : order) {
        std::set<std::string> pois;
        for (const Value* m : by_name[n]) pois.insert((*m)["config"]["poi"].as_string());
        if (pois.size() > 1) bad_poi.push_back(n);
    }
    if (!bad_poi.empty())
        throw InputError(src, "measurements",
                         "Workspaces cannot have the same measurements with incompatible POI: " + python_list(bad_poi) + ".");
    Array out;
    for (const auto& n : order) {
        const auto& ms = by_name[n];
        if (ms.size() == 1) {
            out.push_back(*ms[0]);
            continue;
        }
        if (ms.size() > 2)
            throw InputError(src, "measurements", "more than two measurements named '" + n + "' to combine");
        Array params = join_items(Join::Outer, (*ms[0])["config"]["parameters"].as_array(),
                                  (*ms[1])["config"]["parameters"].as_array(), nullptr);
        auto repeated = repeated_names(params);
        if (!repeated.empty())
            throw InputError(src, "measurements",
                             "Workspaces cannot have a measurement (" + n + ") with incompatible parameter configs: " +
                                 python_list(repeated) + "." + kValidJoins);
        Object config{{"poi", (*ms[0])["config"]["poi"]}, {"parameters", Value(std::move(params))}};
        out.push_back(Value(Object{{"name", Value(n)}, {"config", Value(std::move(config))}}));
    }
    return out;
}

}  // namespace

Workspace Workspace::combine(const Workspace& left, const Workspace& right, Join join, bool merge_channels) {
    const std::string src = left.source() + " + " + right.source();
    if (merge_channels && join == Join::None)
        throw Error("You can only merge channels using the 'outer', 'left outer', or 'right outer' join operations; "
                    "not none");
    const std::string& lv = left.json()["version"].as_string();
    const std::string& rv = right.json()["version"].as_string();
    if (lv != rv)
        throw InputError(src, "version", "Workspaces of different versions cannot be combined: " + lv + " != " + rv);
    Object doc;
    doc.set("channels", join_checked(join, left.json()["channels"].as_array(), right.json()["channels"].as_array(),
                                     merge_channels ? "samples" : nullptr, "channels", src));
    doc.set("measurements",
            join_measurements(join, left.json()["measurements"].as_array(), right.json()["measurements"].as_array(), src));
    doc.set("observations", join_checked(join, left.json()["observations"].as_array(),
                                         right.json()["observations"].as_array(), nullptr, "observations", src));
    doc.set("version", Value(lv));
    return Workspace(Value(std::move(doc)), src);
}

Workspace Workspace::prune(const PruneOptions& o) const {
    const std::string src = source();
    const auto mods = modifiers();
    for (const auto& t : o.modifier_types)
        if (std::none_of(mods.begin(), mods.end(), [&](const auto& m) { return m.second == t; }))
            throw InputError(src, "", t + " is not one of the modifier types in this workspace.");
    auto check = [&](const std::vector<std::string>& names, const std::vector<std::string>& known, const char* what) {
        for (const auto& n : names)
            if (!contains(known, n))
                throw InputError(src, "", n + " is not one of the " + what + " in this workspace.");
    };
    std::vector<std::string> mod_names;
    for (const auto& m : mods) mod_names.push_back(m.first);
    check(o.modifiers, mod_names, "modifiers");
    check(o.samples, sample_names(), "samples");
    check(o.channels, channel_names(), "channels");
    check(o.measurements, measurement_names(), "measurements");

    Array channels;
    for (const auto& c : doc_["channels"].as_array()) {
        if (contains(o.channels, name_of(c))) continue;
        Array samples;
        for (const auto& s : c["samples"].as_array()) {
            if (contains(o.samples, name_of(s))) continue;
            Array modifiers;
            for (const auto& m : s["modifiers"].as_array())
                if (!contains(o.modifiers, name_of(m)) && !contains(o.modifier_types, m["type"].as_string()))
                    modifiers.push_back(m);
            samples.push_back(Value(Object{{"name", s["name"]}, {"data", s["data"]}, {"modifiers", Value(std::move(modifiers))}}));
        }
        channels.push_back(Value(Object{{"name", c["name"]}, {"samples", Value(std::move(samples))}}));
    }
    Array measurements;
    for (const auto& m : doc_["measurements"].as_array()) {
        if (contains(o.measurements, name_of(m))) continue;
        Array params;
        for (const auto& p : m["config"]["parameters"].as_array())
            if (!contains(o.modifiers, name_of(p))) params.push_back(p);
        Object config{{"parameters", Value(std::move(params))}, {"poi", m["config"]["poi"]}};
        measurements.push_back(Value(Object{{"name", m["name"]}, {"config", Value(std::move(config))}}));
    }
    Array observations;
    for (const auto& ob : doc_["observations"].as_array())
        if (!contains(o.channels, name_of(ob))) observations.push_back(ob);
    Object doc{{"channels", Value(std::move(channels))},
               {"measurements", Value(std::move(measurements))},
               {"observations", Value(std::move(observations))},
               {"version", doc_["version"]}};
    return Workspace(Value(std::move(doc)), src + " (pruned)");
}

Workspace Workspace::rename(const RenameOptions& options) const {
    const std::string src = source();
    const auto mods = as_dict(options.modifiers), samples = as_dict(options.samples),
               chans = as_dict(options.channels), meas = as_dict(options.measurements);
    auto check = [&](const std::vector<std::pair<std::string, std::string>>& map, const std::vector<std::string>& known,
                     const char* what) {
        for (const auto& [from, to] : map)
            if (!contains(known, from))
                throw InputError(src, "", from + " is not one of the " + what + " in this workspace.");
    };
    std::vector<std::string> mod_names;
    for (const auto& m : modifiers()) mod_names.push_back(m.first);
    check(mods, mod_names, "modifiers");
    check(samples, sample_names(), "samples");
    check(chans, channel_names(), "channels");
    check(meas, measurement_names(), "measurements");

    auto renamed = [](const Value& item, const std::string& name) {
        Value copy = item;
        copy.as_object().set("name", Value(name));  // dict(item, name=...): keeps the key's position
        return copy;
    };
    Array channels;
    for (const auto& c : doc_["channels"].as_array()) {
        Array ss;
        for (const auto& s : c["samples"].as_array()) {
            Array ms;
            for (const auto& m : s["modifiers"].as_array()) ms.push_back(renamed(m, lookup(mods, name_of(m))));
            ss.push_back(Value(Object{{"name", Value(lookup(samples, name_of(s)))}, {"data", s["data"]},
                                      {"modifiers", Value(std::move(ms))}}));
        }
        channels.push_back(Value(Object{{"name", Value(lookup(chans, name_of(c)))}, {"samples", Value(std::move(ss))}}));
    }
    Array measurements;
    for (const auto& m : doc_["measurements"].as_array()) {
        Array params;
        for (const auto& p : m["config"]["parameters"].as_array()) params.push_back(renamed(p, lookup(mods, name_of(p))));
        Object config{{"parameters", Value(std::move(params))},
                      {"poi", Value(lookup(mods, m["config"]["poi"].as_string()))}};
        measurements.push_back(
            Value(Object{{"name", Value(lookup(meas, name_of(m)))}, {"config", Value(std::move(config))}}));
    }
    Array observations;
    for (const auto& ob : doc_["observations"].as_array()) observations.push_back(renamed(ob, lookup(chans, name_of(ob))));
    Object doc{{"channels", Value(std::move(channels))},
               {"measurements", Value(std::move(measurements))},
               {"observations", Value(std::move(observations))},
               {"version", doc_["version"]}};
    return Workspace(Value(std::move(doc)), src + " (renamed)");
}

Workspace Workspace::sorted() const {
    Value doc = doc_;
    auto by_name = [](Array& a) {
        std::stable_sort(a.begin(), a.end(), [](const Value& x, const Value& y) { return name_of(x) < name_of(y); });
    };
    Object& o = doc.as_object();
    by_name(o.at("channels").as_array());
    for (auto& c : o.at("channels").as_array()) {
        by_name(c.as_object().at("samples").as_array());
        for (auto& s : c.as_object().at("samples").as_array()) {
            auto& ms = s.as_object().at("modifiers").as_array();
            std::stable_sort(ms.begin(), ms.end(), [](const Value& x, const Value& y) {
                return std::make_pair(name_of(x), x["type"].as_string()) < std::make_pair(name_of(y), y["type"].as_string());
            });
        }
    }
    by_name(o.at("measurements").as_array());
    for (auto& m : o.at("measurements").as_array()) by_name(m.as_object().at("config").as_object().at("parameters").as_array());
    by_name(o.at("observations").as_array());
    return Workspace(std::move(doc), source() + " (sorted)");
}

}  // namespace hf
