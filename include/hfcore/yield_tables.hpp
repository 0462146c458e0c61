// Yield tables from a YieldsResult (hfcore/diagnostics.hpp), in cabinetry tabulate.yields' layout: per channel a
// table with one row per sample, then the total model, the data and data / model, one column per bin and one for
// the sum over the channel's bins; then an overview with one column per channel. Cells are "yield ± stdev" with
// the standard deviations of yields(): the full covariance propagated (cabinetry model_utils.yield_stdev).
#pragma once

#include <string>
#include <vector>

#include "hfcore/diagnostics.hpp"

namespace hf::infer {

enum class TableFormat { text, markdown, latex, csv };
// "text", "markdown", "latex", "csv"; anything else: InputError naming `option`.
TableFormat parse_table_format(const std::string& name, const std::string& option = "--table");

struct YieldTableOptions {
    TableFormat format = TableFormat::text;
    int digits = 2;  // decimals of yields, stdevs and ratios (cabinetry: 2); csv always writes every digit
    // Channels whose data are hidden (blinded runs): their data and data / model cells read "blinded".
    std::vector<std::string> blinded_channels;
    // Lines said above the tables (e.g. which data they show); csv has none.
    std::vector<std::string> notes;
};

// One table: its title and the cells, row by row (row 0 is the header). The cells of the per-bin tables are the
// strings cabinetry.tabulate.yields puts in its rows, for digits = 2.
struct YieldTable {
    std::string title;
    std::vector<std::vector<std::string>> rows;
};
// The per-channel tables followed by the overview (text, markdown and latex layouts).
std::vector<YieldTable> yield_tables(const YieldsResult& r, const YieldTableOptions& options = {});

// The whole table document in options.format. csv is one long table with every number at full precision:
// channel,bin,row,yield,stdev (bin "sum" for the channel's sum; row a sample, "total", "data" or "data/model").
std::string format_yield_tables(const YieldsResult& r, const YieldTableOptions& options = {});

// The result back from its JSON (to_json(YieldsResult), `hfcore yields` output); InputError naming `source` and
// the JSON path of what is missing or of the wrong type.
YieldsResult yields_from_json(const json::Value& v, const std::string& source = "<yields>");

}  // namespace hf::infer
