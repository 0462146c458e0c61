// Internal: the checks pyhf's JSON schema is made of (an object with these keys, an array of numbers, null, ...),
// each failing with an InputError that names the file, the JSON path and what the schema expects there. The
// schema's definitions (schema.cpp) and each modifier's data rules (core/modifiers/) are written with them.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "hfcore/json.hpp"

namespace hf::detail {

class SchemaCheck {
public:
    explicit SchemaCheck(const std::string& source) : source_(source) {}

    [[noreturn]] void fail(const std::string& path, const std::string& what) const;

    // An object with `required` keys and, unless `open`, no keys outside `allowed`.
    const json::Object& object(const json::Value& v, const std::string& path,
                               std::initializer_list<std::string_view> allowed,
                               std::initializer_list<std::string_view> required, bool open = false) const;
    const json::Array& array(const json::Value& v, const std::string& path, std::size_t min_items = 0) const;
    void number(const json::Value& v, const std::string& path) const;
    void numbers(const json::Value& v, const std::string& path, std::size_t min_items = 1) const;
    const std::string& string(const json::Value& v, const std::string& path) const;
    void boolean(const json::Value& v, const std::string& path) const;
    void null(const json::Value& v, const std::string& path) const;
    // The string `expected`; `why` follows it in the message (" (the schema version pyhf defines)").
    void constant(const json::Value& v, const std::string& path, const std::string& expected,
                  const std::string& why) const;

private:
    const std::string& source_;
};

}  // namespace hf::detail
