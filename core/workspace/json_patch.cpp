// RFC 6902 JSON Patch with the semantics of Python's jsonpatch/jsonpointer packages (what pyhf uses):
// errors name the operation and say which part of the pointer could not be resolved and why.
#include <algorithm>
#include <cstdlib>

#include "checks.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/patch.hpp"

namespace hf {

using json::Value;

namespace {

class Applier {
public:
    Applier(const std::string& source, std::string op_path) : source_(source), op_path_(std::move(op_path)) {}

    [[noreturn]] void fail(const char* field, const std::string& what) const {
        throw InputError(source_, json::path_key(op_path_, field), what);
    }

    std::vector<std::string> tokens(const std::string& pointer, const char* field) const {
        std::vector<std::string> out;
        if (pointer.empty()) return out;
        if (pointer[0] != '/') fail(field, "\"" + pointer + "\" is not a JSON pointer: it must be empty or start with '/'");
        std::size_t start = 1;
        while (true) {
            const std::size_t end = pointer.find('/', start);
            std::string raw = pointer.substr(start, end == std::string::npos ? std::string::npos : end - start);
            std::string tok;
            for (std::size_t i = 0; i < raw.size(); ++i) {
                if (raw[i] != '~') {
                    tok += raw[i];
                    continue;
                }
                if (i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
                    tok += raw[i + 1] == '0' ? '~' : '/';
                    ++i;
                } else {
                    fail(field, "\"" + pointer + "\": invalid escape '~' in \"" + raw + "\" (use ~0 for '~', ~1 for '/')");
                }
            }
            out.push_back(std::move(tok));
            if (end == std::string::npos) break;
            start = end + 1;
        }
        return out;
    }

    // jsonpointer accepts array indices matching 0|[1-9][0-9]*.
    static bool index_token(const std::string& t, std::size_t& index) {
        if (t.empty() || t.size() > 18) return false;
        if (t.size() > 1 && t[0] == '0') return false;
        if (!std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
        index = static_cast<std::size_t>(std::strtoull(t.c_str(), nullptr, 10));
        return true;
    }

    static std::string where(const std::string& shown) { return shown.empty() ? "the document" : shown; }

    // Walks all tokens but the last: the container the operation acts on. `shown` is its path for messages.
    Value& parent(Value& doc, const std::vector<std::string>& toks, const std::string& pointer, const char* field,
                  std::string& shown) const {
        Value* cur = &doc;
        shown.clear();
        for (std::size_t k = 0; k + 1 < toks.size(); ++k) cur = &step(*cur, toks[k], pointer, field, shown);
        return *cur;
    }

    Value& step(Value& cur, const std::string& tok, const std::string& pointer, const char* field,
                std::string& shown) const {
        if (cur.is_object()) {
            Value* next = cur.as_object().find(tok);
            if (!next) fail(field, "\"" + pointer + "\": " + where(shown) + " has no member '" + tok + "'");
            shown = json::path_key(shown, tok);
            return *next;
        }
        if (cur.is_array()) {
            auto& a = cur.as_array();
            std::size_t i = 0;
            if (!index_token(tok, i))
                fail(field, "\"" + pointer + "\": '" + tok + "' is not a valid index into " + where(shown) + " (an array)");
            if (i >= a.size())
                fail(field, "\"" + pointer + "\": " + where(shown) + " has " + std::to_string(a.size()) +
                                " items, index " + tok + " is out of range");
            shown = json::path_index(shown, i);
            return a[i];
        }
        fail(field, "\"" + pointer + "\": " + where(shown) + " is " + detail::describe(cur) +
                        ", which has no member '" + tok + "'");
    }

    Value& resolve(Value& doc, const std::string& pointer, const char* field) const {
        std::string shown;
        Value* cur = &doc;
        for (const auto& t : tokens(pointer, field)) cur = &step(*cur, t, pointer, field, shown);
        return *cur;
    }

    void add(Value& doc, const std::string& pointer, Value value, const char* field = "path") const {
        const auto toks = tokens(pointer, field);
        if (toks.empty()) {
            doc = std::move(value);
            return;
        }
        std::string shown;
        Value& target = parent(doc, toks, pointer, field, shown);
        const std::string& last = toks.back();
        if (target.is_object()) {
            target.as_object().set(last, std::move(value));
        } else if (target.is_array()) {
            auto& a = target.as_array();
            if (last == "-") {
                a.push_back(std::move(value));
                return;
            }
            std::size_t i = 0;
            if (!index_token(last, i))
                fail(field, "\"" + pointer + "\": '" + last + "' is not a valid index into " + where(shown) + " (an array)");
            if (i > a.size())
                fail(field, "\"" + pointer + "\": cannot insert at index " + last + ", " + where(shown) + " has " +
                                std::to_string(a.size()) + " items");
            a.insert(a.begin() + static_cast<std::ptrdiff_t>(i), std::move(value));
        } else {
            fail(field, "\"" + pointer + "\": cannot add into " + where(shown) + ", which is " + detail::describe(target));
        }
    }

    Value remove(Value& doc, const std::string& pointer, const char* field = "path") const {
        const auto toks = tokens(pointer, field);
        if (toks.empty()) fail(field, "cannot remove the whole document");
        std::string shown;
        Value& target = parent(doc, toks, pointer, field, shown);
        const std::string& last = toks.back();
        if (target.is_object()) {
            Value* v = target.as_object().find(last);
            if (!v) fail(field, "\"" + pointer + "\": " + where(shown) + " has no member '" + last + "' to remove");
            Value out = std::move(*v);
            target.as_object().erase(last);
            return out;
        }
        if (target.is_array()) {
            auto& a = target.as_array();
            std::size_t i = 0;
            if (!index_token(last, i) || i >= a.size())
                fail(field, "\"" + pointer + "\": no item '" + last + "' to remove in " + where(shown) + " (" +
                                std::to_string(a.size()) + " items)");
            Value out = std::move(a[i]);
            a.erase(a.begin() + static_cast<std::ptrdiff_t>(i));
            return out;
        }
        fail(field, "\"" + pointer + "\": " + where(shown) + " is " + detail::describe(target) + ", nothing to remove");
    }

    void replace(Value& doc, const std::string& pointer, Value value) const {
        const auto toks = tokens(pointer, "path");
        if (toks.empty()) {
            doc = std::move(value);
            return;
        }
        std::string shown;
        Value& target = parent(doc, toks, pointer, "path", shown);
        const std::string& last = toks.back();
        if (target.is_object()) {
            Value* v = target.as_object().find(last);
            if (!v) fail("path", "\"" + pointer + "\": cannot replace the non-existent member '" + last + "' of " + where(shown));
            *v = std::move(value);
        } else if (target.is_array()) {
            auto& a = target.as_array();
            std::size_t i = 0;
            if (!index_token(last, i) || i >= a.size())
                fail("path", "\"" + pointer + "\": cannot replace item '" + last + "' of " + where(shown) + " (" +
                                 std::to_string(a.size()) + " items)");
            a[i] = std::move(value);
        } else {
            fail("path", "\"" + pointer + "\": " + where(shown) + " is " + detail::describe(target) + ", nothing to replace");
        }
    }

private:
    const std::string& source_;
    std::string op_path_;
};

}  // namespace

JsonPatch::JsonPatch(json::Value ops, std::string source, std::string path)
    : ops_(std::move(ops)), source_(std::move(source)), path_(std::move(path)) {
    detail::check_jsonpatch_schema(ops_, source_, path_);
}

JsonPatch JsonPatch::load_file(const std::string& path) {
    return JsonPatch(json::parse_file(path), path == "-" ? "<stdin>" : path);
}

JsonPatch JsonPatch::load_string(std::string_view text, const std::string& source) {
    return JsonPatch(json::parse(text, source), source);
}

json::Value JsonPatch::apply(const json::Value& doc) const {
    json::Value out = doc;
    apply_in_place(out);
    return out;
}

void JsonPatch::apply_in_place(json::Value& doc) const {
    const auto& ops = ops_.as_array();
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const Value& op = ops[i];
        Applier a(source_, json::path_index(path_, i));
        const std::string& name = op["op"].as_string();
        const std::string& path = op["path"].as_string();
        if (name == "add") {
            a.add(doc, path, op["value"]);
        } else if (name == "remove") {
            a.remove(doc, path);
        } else if (name == "replace") {
            a.replace(doc, path, op["value"]);
        } else if (name == "move") {
            const std::string& from = op["from"].as_string();
            if (from == path) continue;
            if (path.size() > from.size() && path.compare(0, from.size(), from) == 0 && path[from.size()] == '/')
                a.fail("path", "cannot move \"" + from + "\" into its own child \"" + path + "\"");
            Value v = a.remove(doc, from, "from");
            a.add(doc, path, std::move(v));
        } else if (name == "copy") {
            Value v = a.resolve(doc, op["from"].as_string(), "from");
            a.add(doc, path, std::move(v));
        } else if (name == "test") {
            const Value& have = a.resolve(doc, path, "path");
            if (!(have == op["value"]))
                a.fail("value", "test failed: \"" + path + "\" is " + detail::describe(have) + ", not equal to " +
                                    detail::describe(op["value"]));
        }
    }
}

}  // namespace hf
