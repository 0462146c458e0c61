// A JSON value that reproduces what Python's json module reads and writes, so that hfcore's output and
// digests are byte-identical to pyhf's: objects keep insertion order (a repeated key keeps its first
// position and its last value, like a Python dict), numbers remember whether they were written as
// integers (1 stays 1, 1.0 stays 1.0) and floats print like Python's repr (shortest round trip).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace hf::json {

enum class Type { Null, Bool, Number, String, Array, Object };

const char* type_name(Type t);  // "null", "boolean", "number", "string", "array", "object"

// A JSON number: the double value always, and the exact integer when it was written without '.' or exponent.
struct Number {
    enum class Kind : std::uint8_t { Float, Int, UInt };  // UInt: an integer above INT64_MAX
    double value = 0.0;
    std::int64_t int_value = 0;
    std::uint64_t uint_value = 0;
    Kind kind = Kind::Float;

    static Number from_double(double d) { return Number{d, 0, 0, Kind::Float}; }
    static Number from_int(std::int64_t i) { return Number{static_cast<double>(i), i, 0, Kind::Int}; }
    static Number from_uint(std::uint64_t u);
    bool is_integer() const { return kind != Kind::Float; }
};

class Value;
using Array = std::vector<Value>;

// Insertion-ordered object. Lookups are linear: workspace objects have a handful of keys.
class Object {
public:
    using Item = std::pair<std::string, Value>;

    Object() = default;
    Object(std::initializer_list<Item> items);

    const Value* find(std::string_view key) const;
    Value* find(std::string_view key);
    bool contains(std::string_view key) const;
    const Value& at(std::string_view key) const;  // std::out_of_range when absent
    Value& at(std::string_view key);
    // Python's d[key] = v: replaces the value in place when the key exists, appends otherwise.
    Value& set(std::string key, Value v);
    Value& operator[](std::string_view key);  // inserts null when absent
    bool erase(std::string_view key);

    std::size_t size() const;
    bool empty() const;
    std::vector<Item>::const_iterator begin() const;
    std::vector<Item>::const_iterator end() const;
    std::vector<Item>::iterator begin();
    std::vector<Item>::iterator end();
    const std::vector<Item>& items() const { return items_; }
    std::vector<Item>& items() { return items_; }
    void reserve(std::size_t n);
    // Appends without looking for an existing key (the caller knows the key is new).
    void push_back_unchecked(std::string key, Value v);

private:
    std::vector<Item> items_;
};

class Value {
public:
    Value() = default;  // null
    Value(std::nullptr_t) {}
    Value(bool b) : v_(b) {}
    Value(double d) : v_(Number::from_double(d)) {}
    Value(int i) : v_(Number::from_int(i)) {}
    Value(std::int64_t i) : v_(Number::from_int(i)) {}
    Value(Number n) : v_(n) {}
    Value(std::string s) : v_(std::move(s)) {}
    Value(std::string_view s) : v_(std::string(s)) {}
    Value(const char* s) : v_(std::string(s)) {}
    Value(Array a) : v_(std::move(a)) {}
    Value(Object o) : v_(std::move(o)) {}
    // Deliberately no constructors from other integer types: ambiguity would hide bugs.

    Type type() const { return static_cast<Type>(v_.index()); }
    const char* type_name() const { return json::type_name(type()); }
    bool is_null() const { return type() == Type::Null; }
    bool is_bool() const { return type() == Type::Bool; }
    bool is_number() const { return type() == Type::Number; }
    bool is_integer() const { return is_number() && std::get<Number>(v_).is_integer(); }
    bool is_string() const { return type() == Type::String; }
    bool is_array() const { return type() == Type::Array; }
    bool is_object() const { return type() == Type::Object; }

    // Accessors throw std::bad_variant_access on a type mismatch: validate first.
    bool as_bool() const { return std::get<bool>(v_); }
    const Number& as_number() const { return std::get<Number>(v_); }
    double as_double() const { return std::get<Number>(v_).value; }
    const std::string& as_string() const { return std::get<std::string>(v_); }
    std::string& as_string() { return std::get<std::string>(v_); }
    const Array& as_array() const { return std::get<Array>(v_); }
    Array& as_array() { return std::get<Array>(v_); }
    const Object& as_object() const { return std::get<Object>(v_); }
    Object& as_object() { return std::get<Object>(v_); }

    // Object conveniences: nullptr / std::out_of_range when this is not an object or the key is absent.
    const Value* find(std::string_view key) const;
    const Value& operator[](std::string_view key) const;
    const Value& operator[](std::size_t index) const;  // arrays; std::out_of_range

    // Python's == on the decoded values: numbers compare by value (1 == 1.0), objects ignore key order.
    // Unlike Python, a boolean never equals a number.
    friend bool operator==(const Value& a, const Value& b);

private:
    std::variant<std::nullptr_t, bool, Number, std::string, Array, Object> v_;
};

// Object's inline members need Value complete.
inline std::size_t Object::size() const { return items_.size(); }
inline bool Object::empty() const { return items_.empty(); }
inline std::vector<Object::Item>::const_iterator Object::begin() const { return items_.begin(); }
inline std::vector<Object::Item>::const_iterator Object::end() const { return items_.end(); }
inline std::vector<Object::Item>::iterator Object::begin() { return items_.begin(); }
inline std::vector<Object::Item>::iterator Object::end() { return items_.end(); }
inline void Object::reserve(std::size_t n) { items_.reserve(n); }

// ---- parsing (simdjson) ----
// Errors are hf::InputError naming `source` and, where it can be found, the line, column and byte offset.
// NaN, Infinity and numbers outside the double range are rejected, as are integers beyond 64 bits.
Value parse(std::string_view text, const std::string& source = "<string>");
Value parse_file(const std::string& path);  // "-" reads standard input
Value parse_stdin(const std::string& source = "<stdin>");

// ---- writing ----
struct WriteOptions {
    int indent = -1;            // < 0: one line with Python's default separators ", " and ": "
    bool sort_keys = true;
    bool ensure_ascii = true;   // escape non-ASCII as \uXXXX like Python's default
};
std::string dump(const Value& v, const WriteOptions& options = {});
// pyhf's CLI output: json.dumps(obj, indent=4, sort_keys=True) (no trailing newline).
std::string dump_pretty(const Value& v);
// What pyhf.utils.digest hashes: json.dumps(obj, sort_keys=True, ensure_ascii=False), UTF-8.
std::string dump_canonical(const Value& v);
// Python's repr(float): shortest round-trip digits, exponent form below 1e-4 and from 1e16 on.
std::string format_double(double d);

// ---- JSON paths for messages: channels[2].samples[0].data ----
std::string path_key(const std::string& base, std::string_view key);
std::string path_index(const std::string& base, std::size_t index);

}  // namespace hf::json
