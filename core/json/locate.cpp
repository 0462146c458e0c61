// Strict RFC 8259 scanner used only to locate errors (see locate.hpp). Iterative: deep nesting cannot
// overflow the stack.
#include "locate.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace hf::json::detail {

namespace {

class Scanner {
public:
    Scanner(std::string_view t, std::size_t max_depth) : t_(t), max_depth_(max_depth) {}

    std::optional<SyntaxProblem> run() {
        if (t_.substr(0, 3) == "\xEF\xBB\xBF")
            return fail(0, "the file starts with a UTF-8 byte order mark, which JSON does not allow");
        skip_ws();
        if (i_ >= t_.size()) return fail(i_, "the document is empty");
        // Containers on a stack: '[' or '{'; `expect_value` tells whether a value must come next.
        std::vector<char> stack;
        bool expect_value = true;
        while (true) {
            skip_ws();
            if (expect_value) {
                if (i_ >= t_.size()) return fail(i_, "unexpected end of input: a value is missing (truncated file?)");
                const char c = t_[i_];
                if (c == '[' || c == '{') {
                    if (stack.size() >= max_depth_)
                        return fail(i_, "nesting deeper than " + std::to_string(max_depth_) + " levels");
                    stack.push_back(c);
                    ++i_;
                    skip_ws();
                    if (i_ < t_.size() && t_[i_] == (c == '[' ? ']' : '}')) {
                        ++i_;
                        stack.pop_back();
                        expect_value = false;
                    } else if (c == '{') {
                        if (auto p = key()) return p;
                    }
                    if (expect_value) continue;
                } else {
                    if (auto p = scalar()) return p;
                    expect_value = false;
                }
            }
            // After a value: a separator, a closing bracket, or the end of the document.
            skip_ws();
            if (stack.empty()) {
                if (i_ < t_.size()) return fail(i_, "unexpected content after the end of the JSON document");
                return std::nullopt;
            }
            if (i_ >= t_.size())
                return fail(i_, std::string("unexpected end of input: missing '") + (stack.back() == '[' ? ']' : '}') +
                                    "' (truncated file?)");
            const char c = t_[i_];
            if (c == ',') {
                ++i_;
                if (stack.back() == '{') {
                    skip_ws();
                    if (auto p = key()) return p;
                }
                expect_value = true;
            } else if (c == (stack.back() == '[' ? ']' : '}')) {
                ++i_;
                stack.pop_back();
            } else {
                return fail(i_, std::string("expected ',' or '") + (stack.back() == '[' ? ']' : '}') + "' but found " +
                                    show(i_));
            }
        }
    }

private:
    std::optional<SyntaxProblem> fail(std::size_t at, std::string msg) { return SyntaxProblem{at, std::move(msg)}; }

    std::string show(std::size_t at) const {
        if (at >= t_.size()) return "the end of input";
        const auto c = static_cast<unsigned char>(t_[at]);
        if (c >= 0x20 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
        char buf[16];
        std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
        return buf;
    }

    void skip_ws() {
        while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r')) ++i_;
    }

    // An object key and its ':' (the value follows).
    std::optional<SyntaxProblem> key() {
        skip_ws();
        if (i_ >= t_.size()) return fail(i_, "unexpected end of input: an object key is missing (truncated file?)");
        if (t_[i_] != '"') return fail(i_, "expected an object key in double quotes but found " + show(i_));
        if (auto p = string()) return p;
        skip_ws();
        if (i_ >= t_.size()) return fail(i_, "unexpected end of input after an object key (truncated file?)");
        if (t_[i_] != ':') return fail(i_, "expected ':' after an object key but found " + show(i_));
        ++i_;
        return std::nullopt;
    }

    std::optional<SyntaxProblem> scalar() {
        const char c = t_[i_];
        if (c == '"') return string();
        if (c == '-' || (c >= '0' && c <= '9')) return number();
        for (std::string_view lit : {std::string_view("true"), std::string_view("false"), std::string_view("null")}) {
            if (t_.substr(i_, lit.size()) == lit) {
                const std::size_t end = i_ + lit.size();
                if (end < t_.size() && is_word(t_[end])) break;
                i_ = end;
                return std::nullopt;
            }
        }
        std::size_t end = i_;
        while (end < t_.size() && is_word(t_[end])) ++end;
        const std::string word(t_.substr(i_, std::min<std::size_t>(end - i_, 20)));
        if (word == "NaN" || word == "Infinity")
            return fail(i_, "'" + word + "' is not JSON: non-finite numbers are not accepted");
        if (!word.empty()) return fail(i_, "invalid literal '" + word + "' (expected a value: true, false, null, a number, a string, [ or {)");
        return fail(i_, "expected a value but found " + show(i_));
    }

    static bool is_word(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
               c == '+' || c == '-';
    }

    std::optional<SyntaxProblem> number() {
        const std::size_t start = i_;
        auto digit = [&](std::size_t k) { return k < t_.size() && t_[k] >= '0' && t_[k] <= '9'; };
        std::size_t k = i_;
        if (t_[k] == '-') ++k;
        if (t_.substr(k, 8) == "Infinity") return fail(start, "'-Infinity' is not JSON: non-finite numbers are not accepted");
        if (!digit(k)) return fail(start, "invalid number: a digit must follow '-'");
        bool integer = true;
        if (t_[k] == '0') {
            ++k;
            if (digit(k)) return fail(start, "invalid number: leading zeros are not allowed");
        } else {
            while (digit(k)) ++k;
        }
        if (k < t_.size() && t_[k] == '.') {
            integer = false;
            ++k;
            if (!digit(k)) return fail(start, "invalid number: a digit must follow the decimal point");
            while (digit(k)) ++k;
        }
        if (k < t_.size() && (t_[k] == 'e' || t_[k] == 'E')) {
            integer = false;
            ++k;
            if (k < t_.size() && (t_[k] == '+' || t_[k] == '-')) ++k;
            if (!digit(k)) return fail(start, "invalid number: a digit must follow the exponent");
            while (digit(k)) ++k;
        }
        if (k < t_.size() && is_word(t_[k])) return fail(start, "invalid number: unexpected " + show(k));
        const std::string text(t_.substr(start, k - start));
        i_ = k;
        if (integer) {
            const std::size_t ndig = text.size() - (text[0] == '-' ? 1 : 0);
            errno = 0;
            if (text[0] == '-') (void)std::strtoll(text.c_str(), nullptr, 10);
            else (void)std::strtoull(text.c_str(), nullptr, 10);
            if (errno == ERANGE || ndig > 20)
                return fail(start, "integer " + text.substr(0, 40) + " does not fit in 64 bits");
        } else {
            const double d = std::strtod(text.c_str(), nullptr);
            if (!std::isfinite(d)) return fail(start, "number " + text.substr(0, 40) + " is out of the range of a double");
        }
        return std::nullopt;
    }

    std::optional<SyntaxProblem> string() {
        const std::size_t start = i_;
        ++i_;  // opening quote
        while (true) {
            if (i_ >= t_.size()) return fail(start, "unterminated string (missing closing '\"', truncated file?)");
            const auto c = static_cast<unsigned char>(t_[i_]);
            if (c == '"') {
                ++i_;
                return std::nullopt;
            }
            if (c < 0x20) return fail(i_, "control character " + show(i_) + " inside a string must be escaped");
            if (c == '\\') {
                if (i_ + 1 >= t_.size()) return fail(i_, "unterminated escape sequence");
                const char e = t_[i_ + 1];
                if (e == 'u') {
                    unsigned cp = 0;
                    if (!hex4(i_ + 2, cp)) return fail(i_, "invalid \\u escape: four hex digits expected");
                    i_ += 6;
                    if (cp >= 0xD800 && cp <= 0xDBFF) {
                        unsigned lo = 0;
                        if (t_.substr(i_, 2) != "\\u" || !hex4(i_ + 2, lo) || lo < 0xDC00 || lo > 0xDFFF)
                            return fail(i_ - 6, "invalid \\u escape: a high surrogate without its low surrogate");
                        i_ += 6;
                    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                        return fail(i_ - 6, "invalid \\u escape: a low surrogate without its high surrogate");
                    }
                    continue;
                }
                if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos)
                    return fail(i_, "invalid escape sequence '\\" + std::string(1, e) + "'");
                i_ += 2;
                continue;
            }
            if (c < 0x80) {
                ++i_;
                continue;
            }
            if (auto p = utf8()) return p;
        }
    }

    bool hex4(std::size_t at, unsigned& cp) const {
        if (at + 4 > t_.size()) return false;
        cp = 0;
        for (std::size_t k = at; k < at + 4; ++k) {
            const char h = t_[k];
            cp <<= 4;
            if (h >= '0' && h <= '9') cp |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f') cp |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') cp |= static_cast<unsigned>(h - 'A' + 10);
            else return false;
        }
        return true;
    }

    std::optional<SyntaxProblem> utf8() {
        const auto b0 = static_cast<unsigned char>(t_[i_]);
        int len = 0;
        unsigned cp = 0, min = 0;
        if ((b0 & 0xE0) == 0xC0) { len = 2; cp = b0 & 0x1Fu; min = 0x80; }
        else if ((b0 & 0xF0) == 0xE0) { len = 3; cp = b0 & 0x0Fu; min = 0x800; }
        else if ((b0 & 0xF8) == 0xF0) { len = 4; cp = b0 & 0x07u; min = 0x10000; }
        else return fail(i_, "invalid UTF-8 " + show(i_));
        for (int k = 1; k < len; ++k) {
            const std::size_t at = i_ + static_cast<std::size_t>(k);
            if (at >= t_.size() || (static_cast<unsigned char>(t_[at]) & 0xC0) != 0x80)
                return fail(i_, "invalid UTF-8 sequence starting with " + show(i_));
            cp = (cp << 6) | (static_cast<unsigned char>(t_[at]) & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return fail(i_, "invalid UTF-8 sequence starting with " + show(i_));
        i_ += static_cast<std::size_t>(len);
        return std::nullopt;
    }

    std::string_view t_;
    std::size_t max_depth_;
    std::size_t i_ = 0;
};

}  // namespace

std::optional<SyntaxProblem> locate_syntax_error(std::string_view text, std::size_t max_depth) {
    return Scanner(text, max_depth).run();
}

std::string describe_offset(std::string_view text, std::size_t offset) {
    std::size_t line = 1, line_start = 0;
    for (std::size_t k = 0; k < offset && k < text.size(); ++k)
        if (text[k] == '\n') {
            ++line;
            line_start = k + 1;
        }
    return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1) + " (byte " +
           std::to_string(offset) + ")";
}

}  // namespace hf::json::detail
