// Input and output shared by the workspace subcommands (digest, patchset, combine, prune, rename, sort),
// matching pyhf's CLI: JSON with indent 4 and sorted keys, to stdout (with a newline, like click.echo) or
// to --output-file (without one, like json.dump), written to a temporary file and renamed.
#pragma once

#include <iostream>
#include <string>

#include "hfcore/errors.hpp"
#include "hfcore/executor.hpp"
#include "hfcore/json.hpp"

namespace hf::cli {

inline void write_json_output(const json::Value& v, const std::string& output_file) {
    const std::string text = json::dump_pretty(v);
    if (output_file.empty()) {
        std::cout << text << "\n";
        return;
    }
    run::write_file_atomic(output_file, text);  // a crash never leaves half a file
}

}  // namespace hf::cli
