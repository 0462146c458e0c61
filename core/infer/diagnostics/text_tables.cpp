// Layouts of tables (core/infer/diagnostics/text_tables.hpp).
#include "infer/diagnostics/text_tables.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "hfcore/errors.hpp"

namespace hf::infer {

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string full(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::string latex_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '_' || c == '&' || c == '%' || c == '#' || c == '$' || c == '{' || c == '}') out += '\\';
        out += c;
    }
    return out;
}

namespace {

// Display width of UTF-8 text: one per code point (the tables hold no wide characters).
std::size_t width(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}

std::string pad(const std::string& s, std::size_t w, bool left) {
    const std::string fill(w > width(s) ? w - width(s) : 0, ' ');
    return left ? s + fill : fill + s;
}

void write_text(std::ostream& os, const YieldTable& t) {
    std::vector<std::size_t> w(t.rows[0].size(), 0);
    for (const auto& row : t.rows)
        for (std::size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], width(row[i]));
    os << t.title << "\n";
    auto line = [&](const std::vector<std::string>& row) {
        for (std::size_t i = 0; i < row.size(); ++i) os << (i ? "  " : "") << pad(row[i], w[i], i == 0);
        os << "\n";
    };
    line(t.rows[0]);
    for (std::size_t i = 0; i < w.size(); ++i) os << (i ? "  " : "") << std::string(w[i], '-');
    os << "\n";
    for (std::size_t r = 1; r < t.rows.size(); ++r) line(t.rows[r]);
}

void write_markdown(std::ostream& os, const YieldTable& t) {
    os << "**" << t.title << "**\n\n";
    auto line = [&](const std::vector<std::string>& row) {
        os << "|";
        for (const auto& cell : row) os << " " << cell << " |";
        os << "\n";
    };
    line(t.rows[0]);
    os << "|";
    for (std::size_t i = 0; i < t.rows[0].size(); ++i) os << (i ? " ---: |" : " :--- |");
    os << "\n";
    for (std::size_t r = 1; r < t.rows.size(); ++r) line(t.rows[r]);
}

void write_latex(std::ostream& os, const YieldTable& t) {
    os << "% " << t.title << "\n\\begin{tabular}{l" << std::string(t.rows[0].size() - 1, 'r') << "}\n\\hline\n";
    auto line = [&](const std::vector<std::string>& row) {
        for (std::size_t i = 0; i < row.size(); ++i) os << (i ? " & " : "") << row[i];
        os << " \\\\\n";
    };
    line(t.rows[0]);
    os << "\\hline\n";
    for (std::size_t r = 1; r < t.rows.size(); ++r) {
        if (t.rows[r][0] == "total" && r > 1) os << "\\hline\n";
        line(t.rows[r]);
    }
    os << "\\hline\n\\end{tabular}\n";
}

}  // namespace

void write_table(std::ostream& os, const YieldTable& table, TableFormat format) {
    switch (format) {
        case TableFormat::text: write_text(os, table); return;
        case TableFormat::markdown: write_markdown(os, table); return;
        case TableFormat::latex: write_latex(os, table); return;
        case TableFormat::csv: break;
    }
    throw InputError("--table", "", "csv is written from the numbers, not laid out as a table");
}

}  // namespace hf::infer
