// hf::json::Value and Object: storage, lookup, Python-like equality, and path strings for messages.
#include <algorithm>
#include <stdexcept>

#include "hfcore/json.hpp"

namespace hf::json {

const char* type_name(Type t) {
    switch (t) {
        case Type::Null: return "null";
        case Type::Bool: return "boolean";
        case Type::Number: return "number";
        case Type::String: return "string";
        case Type::Array: return "array";
        case Type::Object: return "object";
    }
    return "?";
}

Number Number::from_uint(std::uint64_t u) {
    if (u <= static_cast<std::uint64_t>(INT64_MAX)) return from_int(static_cast<std::int64_t>(u));
    return Number{static_cast<double>(u), 0, u, Kind::UInt};
}

Object::Object(std::initializer_list<Item> items) {
    for (const auto& it : items) set(it.first, it.second);
}

const Value* Object::find(std::string_view key) const {
    for (const auto& [k, v] : items_)
        if (k == key) return &v;
    return nullptr;
}

Value* Object::find(std::string_view key) {
    for (auto& [k, v] : items_)
        if (k == key) return &v;
    return nullptr;
}

bool Object::contains(std::string_view key) const { return find(key) != nullptr; }

const Value& Object::at(std::string_view key) const {
    if (const Value* v = find(key)) return *v;
    throw std::out_of_range("JSON object has no key '" + std::string(key) + "'");
}

Value& Object::at(std::string_view key) {
    if (Value* v = find(key)) return *v;
    throw std::out_of_range("JSON object has no key '" + std::string(key) + "'");
}

Value& Object::set(std::string key, Value v) {
    if (Value* existing = find(key)) {
        *existing = std::move(v);
        return *existing;
    }
    items_.emplace_back(std::move(key), std::move(v));
    return items_.back().second;
}

Value& Object::operator[](std::string_view key) {
    if (Value* v = find(key)) return *v;
    items_.emplace_back(std::string(key), Value());
    return items_.back().second;
}

bool Object::erase(std::string_view key) {
    auto it = std::find_if(items_.begin(), items_.end(), [&](const Item& i) { return i.first == key; });
    if (it == items_.end()) return false;
    items_.erase(it);
    return true;
}

void Object::push_back_unchecked(std::string key, Value v) { items_.emplace_back(std::move(key), std::move(v)); }

const Value* Value::find(std::string_view key) const {
    if (!is_object()) return nullptr;
    return as_object().find(key);
}

const Value& Value::operator[](std::string_view key) const {
    if (!is_object()) throw std::out_of_range("JSON value is not an object (looking up '" + std::string(key) + "')");
    return as_object().at(key);
}

const Value& Value::operator[](std::size_t index) const {
    if (!is_array()) throw std::out_of_range("JSON value is not an array");
    const Array& a = as_array();
    if (index >= a.size()) throw std::out_of_range("JSON array index out of range");
    return a[index];
}

namespace {

bool numbers_equal(const Number& a, const Number& b) {
    // Exact for integers (Python compares ints exactly), by value otherwise.
    if (a.is_integer() && b.is_integer()) {
        if (a.kind != b.kind) return false;  // an Int never equals a UInt (disjoint ranges)
        return a.kind == Number::Kind::Int ? a.int_value == b.int_value : a.uint_value == b.uint_value;
    }
    return a.value == b.value;
}

}  // namespace

bool operator==(const Value& a, const Value& b) {
    if (a.type() != b.type()) return false;
    switch (a.type()) {
        case Type::Null: return true;
        case Type::Bool: return a.as_bool() == b.as_bool();
        case Type::Number: return numbers_equal(a.as_number(), b.as_number());
        case Type::String: return a.as_string() == b.as_string();
        case Type::Array: return a.as_array() == b.as_array();
        case Type::Object: {
            const Object& oa = a.as_object();
            const Object& ob = b.as_object();
            if (oa.size() != ob.size()) return false;
            for (const auto& [k, v] : oa) {
                const Value* w = ob.find(k);
                if (!w || !(v == *w)) return false;
            }
            return true;
        }
    }
    return false;
}

namespace {
bool is_identifier(std::string_view key) {
    if (key.empty()) return false;
    auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
    if (!alpha(key[0])) return false;
    return std::all_of(key.begin(), key.end(), [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}
}  // namespace

std::string path_key(const std::string& base, std::string_view key) {
    if (is_identifier(key)) return base.empty() ? std::string(key) : base + "." + std::string(key);
    // Keys that are not identifiers are quoted so the path stays unambiguous.
    std::string quoted = "[\"";
    for (char c : key) {
        if (c == '"' || c == '\\') quoted += '\\';
        quoted += c;
    }
    quoted += "\"]";
    return base + quoted;
}

std::string path_index(const std::string& base, std::size_t index) {
    return base + "[" + std::to_string(index) + "]";
}

}  // namespace hf::json
