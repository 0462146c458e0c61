// Parsing with simdjson's DOM parser (full validation, runtime CPU dispatch) into hf::json::Value.
#include <simdjson.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <unordered_map>

#include "hfcore/errors.hpp"
#include "hfcore/json.hpp"
#include "locate.hpp"

namespace hf::json {

namespace {

constexpr std::size_t kMaxDepth = 1024;  // simdjson's default; also bounds our recursion below

// Objects with many keys get a hash index while they are built, so that repeated keys stay linear.
constexpr std::size_t kIndexedObjectSize = 32;

Value convert(simdjson::dom::element e);

Value convert_object(simdjson::dom::object o) {
    Object out;
    out.reserve(o.size());
    std::unordered_map<std::string_view, std::size_t> index;
    const bool indexed = o.size() > kIndexedObjectSize;
    for (auto field : o) {
        std::string_view key = field.key;
        Value v = convert(field.value);
        if (indexed) {
            auto [it, inserted] = index.emplace(key, out.size());
            if (inserted) out.push_back_unchecked(std::string(key), std::move(v));
            else out.items()[it->second].second = std::move(v);  // Python: last value, first position
        } else {
            out.set(std::string(key), std::move(v));
        }
    }
    return Value(std::move(out));
}

Value convert(simdjson::dom::element e) {
    using simdjson::dom::element_type;
    switch (e.type()) {
        case element_type::ARRAY: {
            simdjson::dom::array a = e.get_array().value_unsafe();
            Array out;
            out.reserve(a.size());
            for (auto x : a) out.push_back(convert(x));
            return Value(std::move(out));
        }
        case element_type::OBJECT: return convert_object(e.get_object().value_unsafe());
        case element_type::INT64: return Value(Number::from_int(e.get_int64().value_unsafe()));
        case element_type::UINT64: return Value(Number::from_uint(e.get_uint64().value_unsafe()));
        case element_type::DOUBLE: return Value(Number::from_double(e.get_double().value_unsafe()));
        case element_type::STRING: return Value(std::string(e.get_string().value_unsafe()));
        case element_type::BOOL: return Value(e.get_bool().value_unsafe());
        case element_type::NULL_VALUE: return Value();
    }
    return Value();
}

[[noreturn]] void throw_parse_error(std::string_view text, const std::string& source, simdjson::error_code err) {
    const std::string what = simdjson::error_message(err);
    if (auto problem = detail::locate_syntax_error(text, kMaxDepth))
        throw InputError(source, "",
                         "invalid JSON at " + detail::describe_offset(text, problem->offset) + ": " + problem->message);
    throw InputError(source, "", "invalid JSON: " + what);
}

}  // namespace

Value parse(std::string_view text, const std::string& source) {
    simdjson::dom::parser parser;
    simdjson::padded_string padded(text);
    simdjson::dom::element root;
    if (auto err = parser.parse(padded).get(root)) throw_parse_error(text, source, err);
    return convert(root);
}

Value parse_file(const std::string& path) {
    if (path == "-") return parse_stdin();
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw InputError(path, "", "cannot read: it is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "", std::string("cannot open file: ") + std::strerror(errno));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw InputError(path, "", std::string("cannot read file: ") + std::strerror(errno));
    return parse(text, path);
}

Value parse_stdin(const std::string& source) {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    return parse(text, source);
}

}  // namespace hf::json
