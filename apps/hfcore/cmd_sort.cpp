// `hfcore sort`: pyhf sort (channels, samples, modifiers, measurements, parameters, observations by name).
#include <memory>

#include "cmd_workspace_io.hpp"
#include "command.hpp"
#include "hfcore/workspace.hpp"

namespace cmd_sort {
namespace {

struct Options {
    std::string workspace = "-";
    std::string output_file;
};

const hf::cli::Register reg("sort", "Sort the workspace (pyhf sort).", [](CLI::App& sub) {
    auto o = std::make_shared<Options>();
    sub.add_option("workspace", o->workspace, "Workspace JSON file ('-' for standard input)")->capture_default_str();
    sub.add_option("--output-file", o->output_file,
                   "The location of the output json file. If not specified, prints to screen.");
    return [o]() {
        hf::cli::write_json_output(hf::Workspace::load_file(o->workspace).sorted().json(), o->output_file);
        return 0;
    };
});

}  // namespace
}  // namespace cmd_sort
