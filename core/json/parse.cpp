// Parsing with simdjson's DOM parser (full validation, runtime CPU dispatch) into hf::json::Value.
#include <simdjson.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
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

// Size limit of a document (HFCORE_MAX_JSON_MB, default 256; 0 = none): the parsed document takes about 15 times
// its size in memory (the text, simdjson's tape and the Value tree; measured in docs/performance.md, "Memory and
// size limits"), so a 500 MB file would need ~7.5 GB and could get the process killed; refused up front instead,
// with a message saying how to raise the limit.
constexpr std::uint64_t kDefaultMaxMB = 256;

// The limit in MB (0: none).
double max_document_mb(const std::string& source) {
    const char* env = std::getenv("HFCORE_MAX_JSON_MB");
    if (!env || !*env) return static_cast<double>(kDefaultMaxMB);
    char* end = nullptr;
    const double mb = std::strtod(env, &end);
    if (*end != '\0' || !(mb >= 0) || !std::isfinite(mb))
        throw InputError(source, "", std::string("HFCORE_MAX_JSON_MB='") + env +
                                         "' is not a size in MB (a number >= 0; 0 means no limit)");
    return mb;
}

std::uint64_t max_document_bytes(const std::string& source) {
    const double mb = max_document_mb(source);
    return mb == 0 || mb > 1e12 ? std::numeric_limits<std::uint64_t>::max()
                                : static_cast<std::uint64_t>(mb * 1048576.0);
}

void check_size(std::uint64_t bytes, const std::string& source) {
    if (bytes <= max_document_bytes(source)) return;
    char msg[320];
    std::snprintf(msg, sizeof msg,
                  "the document is %.1f MB, above the limit of %g MB for one JSON document (loading takes about "
                  "15 times its size in memory, %.1f GB here); set HFCORE_MAX_JSON_MB to raise the limit (0: none)",
                  static_cast<double>(bytes) / 1048576.0, max_document_mb(source),
                  15.0 * static_cast<double>(bytes) / 1073741824.0);
    throw InputError(source, "", msg);
}

}  // namespace

Value parse(std::string_view text, const std::string& source) {
    check_size(text.size(), source);
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
    if (const auto size = std::filesystem::file_size(path, ec); !ec) check_size(size, path);  // before reading
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw InputError(path, "", std::string("cannot read file: ") + std::strerror(errno));
    return parse(text, path);
}

Value parse_stdin(const std::string& source) {
    // Read in blocks so that an endless or huge stream stops at the limit, not when memory runs out.
    const std::uint64_t limit = max_document_bytes(source);
    std::string text;
    char block[1 << 16];
    while (std::cin.read(block, sizeof block) || std::cin.gcount() > 0) {
        text.append(block, static_cast<std::size_t>(std::cin.gcount()));
        if (text.size() > limit) check_size(text.size(), source);
    }
    return parse(text, source);
}

}  // namespace hf::json
