// Tables as aligned text, markdown or LaTeX: what the yield tables and the uncertainty breakdown share.
#pragma once

#include <ostream>
#include <string>

#include "hfcore/yield_tables.hpp"

namespace hf::infer {

// A number with `digits` decimals (table cells), and with every digit a double holds (csv).
std::string fixed(double v, int digits);
std::string full(double v);

// `s` with LaTeX's special characters (_ & % # $ { }) escaped.
std::string latex_escape(const std::string& s);

// Writes `table` (row 0 the header; the first column left-aligned, the others right-aligned) in `format`: text
// under its title, markdown under its title in bold, LaTeX as a tabular with the title as a comment and a rule
// above a row labelled "total". csv is not a layout: InputError.
void write_table(std::ostream& os, const YieldTable& table, TableFormat format);

}  // namespace hf::infer
