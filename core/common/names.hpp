// Internal: an option enum's names, one table read both ways (parse and print), and word lists for messages.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hfcore/errors.hpp"

namespace hf::detail {

// "a, b or c" (last = "or"), "a, b and c" (last = "and")
inline std::string join_words(const std::vector<std::string>& items, const char* last) {
    std::string s;
    for (std::size_t i = 0; i < items.size(); ++i)
        s += (i == 0 ? "" : i + 1 == items.size() ? std::string(" ") + last + " " : std::string(", ")) + items[i];
    return s;
}
inline std::string join_or(const std::vector<std::string>& items) { return join_words(items, "or"); }
inline std::string join_and(const std::vector<std::string>& items) { return join_words(items, "and"); }

template <class E, std::size_t N>
struct Names {
    std::array<std::pair<E, const char*>, N> entries;

    const char* name(E value) const {
        for (const auto& [e, text] : entries)
            if (e == value) return text;
        return "?";
    }
    std::optional<E> find(std::string_view text) const {
        for (const auto& [e, t] : entries)
            if (text == t) return e;
        return std::nullopt;
    }
    // The value named `text`, else InputError(file, path, message).
    E parse(std::string_view text, const std::string& file, const std::string& path, const std::string& message) const {
        if (auto e = find(text)) return *e;
        throw InputError(file, path, message);
    }
    std::string list() const {
        std::vector<std::string> v;
        for (const auto& [e, t] : entries) v.emplace_back(t);
        return join_or(v);
    }
};

}  // namespace hf::detail
