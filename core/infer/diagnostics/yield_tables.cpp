// Yield tables (hfcore/yield_tables.hpp): the cells are built once, then laid out as aligned text, markdown or
// LaTeX; csv writes the numbers themselves, one per line, so nothing is lost to rounding.
#include "hfcore/yield_tables.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "hfcore/errors.hpp"
#include "infer/diagnostics/text_tables.hpp"

namespace hf::infer {

TableFormat parse_table_format(const std::string& name, const std::string& option) {
    if (name == "text") return TableFormat::text;
    if (name == "markdown") return TableFormat::markdown;
    if (name == "latex") return TableFormat::latex;
    if (name == "csv") return TableFormat::csv;
    throw InputError(option, "", "unknown table format '" + name + "' (text, markdown, latex or csv)");
}

namespace {

const char* const kBlinded = "blinded";

bool is_blinded(const YieldTableOptions& o, const std::string& channel) {
    return std::find(o.blinded_channels.begin(), o.blinded_channels.end(), channel) != o.blinded_channels.end();
}

double sum(const std::vector<double>& v) {
    double s = 0.0;
    for (double x : v) s += x;
    return s;
}

// The cells of one column of a table: every sample, the total, the data and data / model.
struct Column {
    std::vector<double> yields, stdev;  // [sample]
    double total = 0, total_stdev = 0, data = 0;
    bool blinded = false;
};

Column bin_column(const ChannelYields& c, std::size_t b, bool blinded) {
    Column col;
    for (std::size_t s = 0; s < c.samples.size(); ++s) {
        col.yields.push_back(c.yields[s][b]);
        col.stdev.push_back(c.stdev[s][b]);
    }
    col.total = c.total[b];
    col.total_stdev = c.total_stdev[b];
    col.data = c.data[b];
    col.blinded = blinded;
    return col;
}

Column sum_column(const ChannelYields& c, bool blinded) {
    Column col;
    col.yields = c.sample_sums;
    col.stdev = c.sample_sums_stdev;
    col.total = c.channel_total;
    col.total_stdev = c.channel_total_stdev;
    col.data = sum(c.data);
    col.blinded = blinded;
    return col;
}

std::string row_label(const std::string& name, TableFormat f) {
    return f == TableFormat::latex ? latex_escape(name) : name;
}

// Rows of a table (header first) from its columns.
std::vector<std::vector<std::string>> layout(const std::vector<std::string>& samples,
                                             const std::vector<std::string>& headers,
                                             const std::vector<Column>& cols, const YieldTableOptions& o) {
    const std::string pm = o.format == TableFormat::latex ? " $\\pm$ " : " \u00b1 ";
    auto with_stdev = [&](double y, double s) { return fixed(y, o.digits) + pm + fixed(s, o.digits); };
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> header{"sample"};
    for (const auto& h : headers) header.push_back(row_label(h, o.format));
    rows.push_back(header);
    for (std::size_t s = 0; s < samples.size(); ++s) {
        std::vector<std::string> row{row_label(samples[s], o.format)};
        for (const auto& c : cols) row.push_back(with_stdev(c.yields[s], c.stdev[s]));
        rows.push_back(row);
    }
    std::vector<std::string> total{"total"}, data{"data"}, ratio{"data / model"};
    for (const auto& c : cols) {
        total.push_back(with_stdev(c.total, c.total_stdev));
        data.push_back(c.blinded ? kBlinded : fixed(c.data, o.digits));
        ratio.push_back(c.blinded ? kBlinded : c.total != 0.0 ? fixed(c.data / c.total, o.digits) : "-");
    }
    rows.push_back(total);
    rows.push_back(data);
    rows.push_back(ratio);
    return rows;
}

std::string stage(const YieldsResult& r) { return r.postfit ? "post-fit" : "pre-fit"; }

// The notes and the blinding, one line each, above the tables.
std::string preamble(const YieldTableOptions& o, TableFormat f) {
    std::vector<std::string> lines = o.notes;
    if (!o.blinded_channels.empty()) {
        std::string names;
        for (const auto& c : o.blinded_channels) names += (names.empty() ? "" : ", ") + c;
        lines.push_back("blinded: the data of " + names + " are not shown");
    }
    std::string out;
    for (const auto& text : lines) {
        if (f == TableFormat::latex) out += "% " + latex_escape(text) + "\n";
        else if (f == TableFormat::markdown) out += "*" + text + "*\n\n";
        else out += text + "\n";
    }
    if (!out.empty() && f == TableFormat::text) out += "\n";
    return out;
}

void write_csv(std::ostream& os, const YieldsResult& r, const YieldTableOptions& o) {
    os << "channel,bin,row,yield,stdev\n";
    auto quote = [](const std::string& s) {
        if (s.find_first_of(",\"\n") == std::string::npos) return s;
        std::string q = "\"";
        for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
        return q + "\"";
    };
    for (const auto& c : r.channels) {
        const bool blind = is_blinded(o, c.name);
        auto column = [&](const std::string& bin, const Column& col) {
            const std::string lead = quote(c.name) + "," + bin + ",";
            for (std::size_t s = 0; s < c.samples.size(); ++s)
                os << lead << quote(c.samples[s]) << "," << full(col.yields[s]) << "," << full(col.stdev[s]) << "\n";
            os << lead << "total," << full(col.total) << "," << full(col.total_stdev) << "\n";
            os << lead << "data," << (blind ? kBlinded : full(col.data)) << ",\n";
            os << lead << "data/model," << (blind ? kBlinded : full(col.data / col.total)) << ",\n";
        };
        for (std::size_t b = 0; b < c.total.size(); ++b) column(std::to_string(b + 1), bin_column(c, b, blind));
        column("sum", sum_column(c, blind));
    }
}

}  // namespace

std::vector<YieldTable> yield_tables(const YieldsResult& r, const YieldTableOptions& o) {
    std::vector<YieldTable> out;
    if (r.channels.empty()) return out;
    const auto& samples = r.channels.front().samples;
    std::vector<std::string> overview_headers;
    std::vector<Column> overview;
    for (const auto& c : r.channels) {
        const bool blind = is_blinded(o, c.name);
        std::vector<std::string> headers;
        std::vector<Column> cols;
        for (std::size_t b = 0; b < c.total.size(); ++b) {
            headers.push_back("bin " + std::to_string(b + 1));
            cols.push_back(bin_column(c, b, blind));
        }
        headers.push_back("sum");
        cols.push_back(sum_column(c, blind));
        out.push_back({c.name + " (" + stage(r) + ")", layout(samples, headers, cols, o)});
        overview_headers.push_back(c.name);
        overview.push_back(sum_column(c, blind));
    }
    out.push_back({"all channels, summed over bins (" + stage(r) + ")", layout(samples, overview_headers, overview, o)});
    return out;
}

std::string format_yield_tables(const YieldsResult& r, const YieldTableOptions& o) {
    std::ostringstream os;
    if (o.format == TableFormat::csv) {
        write_csv(os, r, o);
        return os.str();
    }
    os << preamble(o, o.format);
    const auto tables = yield_tables(r, o);
    for (std::size_t i = 0; i < tables.size(); ++i) {
        if (i) os << "\n";
        write_table(os, tables[i], o.format);
    }
    return os.str();
}

}  // namespace hf::infer
