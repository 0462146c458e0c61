// JSON output that is byte-identical to Python's json.dumps for the options pyhf uses.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <system_error>

#include "hfcore/json.hpp"

namespace hf::json {

std::string format_double(double d) {
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
    // Shortest round-trip digits (the same digits Python's repr chooses), then Python's layout.
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
    std::string out;
    if (!sci.empty() && sci[0] == '-') {
        out += '-';
        sci.remove_prefix(1);
    }
    const std::size_t e_pos = sci.find('e');
    std::string digits;
    for (char c : sci.substr(0, e_pos))
        if (c != '.') digits += c;
    int exponent = 0;
    std::string_view exp_text = sci.substr(e_pos + 1);
    if (!exp_text.empty() && exp_text[0] == '+') exp_text.remove_prefix(1);
    std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exponent);

    const int n = static_cast<int>(digits.size());
    const int decpt = exponent + 1;  // digits d1 d2 ... with the decimal point after `decpt` of them
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            out += "0.";
            out.append(static_cast<std::size_t>(-decpt), '0');
            out += digits;
        } else if (decpt >= n) {
            out += digits;
            out.append(static_cast<std::size_t>(decpt - n), '0');
            out += ".0";
        } else {
            out += digits.substr(0, static_cast<std::size_t>(decpt));
            out += '.';
            out += digits.substr(static_cast<std::size_t>(decpt));
        }
        return out;
    }
    out += digits[0];
    if (n > 1) {
        out += '.';
        out += digits.substr(1);
    }
    out += 'e';
    out += exponent < 0 ? '-' : '+';
    const int a = std::abs(exponent);
    if (a < 10) out += '0';
    out += std::to_string(a);
    return out;
}

namespace {

void append_u_escape(std::string& out, unsigned cp) {
    static const char* hex = "0123456789abcdef";
    out += "\\u";
    out += hex[(cp >> 12) & 0xF];
    out += hex[(cp >> 8) & 0xF];
    out += hex[(cp >> 4) & 0xF];
    out += hex[cp & 0xF];
}

// Decodes one UTF-8 sequence at s[i]; invalid bytes decode as U+FFFD (one byte consumed).
unsigned decode_utf8(std::string_view s, std::size_t& i) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    auto cont = [&](std::size_t k) {
        return k < s.size() && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80;
    };
    if (b0 < 0x80) {
        ++i;
        return b0;
    }
    int len = 0;
    unsigned cp = 0;
    if ((b0 & 0xE0) == 0xC0) { len = 2; cp = b0 & 0x1F; }
    else if ((b0 & 0xF0) == 0xE0) { len = 3; cp = b0 & 0x0F; }
    else if ((b0 & 0xF8) == 0xF0) { len = 4; cp = b0 & 0x07; }
    else { ++i; return 0xFFFD; }
    for (int k = 1; k < len; ++k) {
        if (!cont(i + static_cast<std::size_t>(k))) { ++i; return 0xFFFD; }
        cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]) & 0x3F);
    }
    i += static_cast<std::size_t>(len);
    return cp;
}

void append_string(std::string& out, std::string_view s, bool ensure_ascii) {
    out += '"';
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        switch (c) {
            case '"': out += "\\\""; ++i; continue;
            case '\\': out += "\\\\"; ++i; continue;
            case '\b': out += "\\b"; ++i; continue;
            case '\f': out += "\\f"; ++i; continue;
            case '\n': out += "\\n"; ++i; continue;
            case '\r': out += "\\r"; ++i; continue;
            case '\t': out += "\\t"; ++i; continue;
            default: break;
        }
        if (c < 0x20) {
            append_u_escape(out, c);
            ++i;
        } else if (!ensure_ascii) {
            out += static_cast<char>(c);
            ++i;
        } else if (c < 0x7F) {
            out += static_cast<char>(c);
            ++i;
        } else {
            // Python escapes everything outside ' '..'~' (DEL included), astral characters as surrogate pairs.
            unsigned cp = decode_utf8(s, i);
            if (cp >= 0x10000) {
                cp -= 0x10000;
                append_u_escape(out, 0xD800 + (cp >> 10));
                append_u_escape(out, 0xDC00 + (cp & 0x3FF));
            } else {
                append_u_escape(out, cp);
            }
        }
    }
    out += '"';
}

void append_number(std::string& out, const Number& n) {
    switch (n.kind) {
        case Number::Kind::Int: out += std::to_string(n.int_value); return;
        case Number::Kind::UInt: out += std::to_string(n.uint_value); return;
        case Number::Kind::Float: out += format_double(n.value); return;
    }
}

class Writer {
public:
    Writer(std::string& out, const WriteOptions& o) : out_(out), o_(o) {}

    void write(const Value& v, int depth) {
        switch (v.type()) {
            case Type::Null: out_ += "null"; return;
            case Type::Bool: out_ += v.as_bool() ? "true" : "false"; return;
            case Type::Number: append_number(out_, v.as_number()); return;
            case Type::String: append_string(out_, v.as_string(), o_.ensure_ascii); return;
            case Type::Array: write_array(v.as_array(), depth); return;
            case Type::Object: write_object(v.as_object(), depth); return;
        }
    }

private:
    void newline(int depth) {
        out_ += '\n';
        out_.append(static_cast<std::size_t>(depth * o_.indent), ' ');
    }
    void separator(int depth) {
        if (o_.indent >= 0) {
            out_ += ',';
            newline(depth);
        } else {
            out_ += ", ";
        }
    }

    void write_array(const Array& a, int depth) {
        if (a.empty()) {
            out_ += "[]";
            return;
        }
        out_ += '[';
        if (o_.indent >= 0) newline(depth + 1);
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (i) separator(depth + 1);
            write(a[i], depth + 1);
        }
        if (o_.indent >= 0) newline(depth);
        out_ += ']';
    }

    void write_object(const Object& obj, int depth) {
        if (obj.empty()) {
            out_ += "{}";
            return;
        }
        std::vector<const Object::Item*> items;
        items.reserve(obj.size());
        for (const auto& it : obj) items.push_back(&it);
        // Byte order of UTF-8 equals code point order, which is how Python sorts str keys.
        if (o_.sort_keys)
            std::stable_sort(items.begin(), items.end(),
                             [](const Object::Item* a, const Object::Item* b) { return a->first < b->first; });
        out_ += '{';
        if (o_.indent >= 0) newline(depth + 1);
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (i) separator(depth + 1);
            append_string(out_, items[i]->first, o_.ensure_ascii);
            out_ += ": ";
            write(items[i]->second, depth + 1);
        }
        if (o_.indent >= 0) newline(depth);
        out_ += '}';
    }

    std::string& out_;
    const WriteOptions& o_;
};

}  // namespace

std::string dump(const Value& v, const WriteOptions& options) {
    std::string out;
    Writer(out, options).write(v, 0);
    return out;
}

std::string dump_pretty(const Value& v) { return dump(v, WriteOptions{4, true, true}); }

std::string dump_canonical(const Value& v) { return dump(v, WriteOptions{-1, true, false}); }

}  // namespace hf::json
