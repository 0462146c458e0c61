// Input and output shared by the workspace subcommands (digest, patchset, combine, prune, rename, sort),
// matching pyhf's CLI: JSON with indent 4 and sorted keys, to stdout (with a newline, like click.echo) or
// to --output-file (without one, like json.dump).
#pragma once

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "hfcore/errors.hpp"
#include "hfcore/json.hpp"

namespace hf::cli {

inline void write_json_output(const json::Value& v, const std::string& output_file) {
    const std::string text = json::dump_pretty(v);
    if (output_file.empty()) {
        std::cout << text << "\n";
        return;
    }
    std::ofstream out(output_file, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(output_file, "", std::string("cannot write: ") + std::strerror(errno));
    out << text;
    out.close();
    if (!out) throw InputError(output_file, "", std::string("cannot write: ") + std::strerror(errno));
}

}  // namespace hf::cli
