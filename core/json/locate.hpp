// Finds where a JSON text stops being valid. simdjson reports what went wrong but not where; this strict
// scanner runs only after simdjson has rejected a document, to point the user at a line and column.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace hf::json::detail {

struct SyntaxProblem {
    std::size_t offset = 0;  // byte offset of the offending token
    std::string message;
};

// The first problem in `text`, or nothing when the scanner finds the text valid.
std::optional<SyntaxProblem> locate_syntax_error(std::string_view text, std::size_t max_depth);

// "line 3, column 7 (byte 42)" for a byte offset.
std::string describe_offset(std::string_view text, std::size_t offset);

}  // namespace hf::json::detail
