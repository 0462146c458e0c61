// `hfcore rename`: pyhf rename (channels, samples, modifiers, measurements).
#include <memory>

#include "cmd_workspace_io.hpp"
#include "command.hpp"
#include "hfcore/workspace.hpp"

namespace cmd_rename {
namespace {

struct Options {
    std::string workspace = "-";
    std::string output_file;
    hf::RenameOptions rename;
};

const hf::cli::Register reg("rename", "Rename components of the workspace (pyhf rename).", [](CLI::App& sub) {
    auto o = std::make_shared<Options>();
    sub.add_option("workspace", o->workspace, "Workspace JSON file ('-' for standard input)")->capture_default_str();
    sub.add_option("--output-file", o->output_file,
                   "The location of the output json file. If not specified, prints to screen.");
    sub.add_option("-c,--channel", o->rename.channels, "Rename a channel (repeatable)")->type_name("<OLD> <NEW>")
        ->allow_extra_args(false);
    sub.add_option("-s,--sample", o->rename.samples, "Rename a sample (repeatable)")->type_name("<OLD> <NEW>")
        ->allow_extra_args(false);
    sub.add_option("-m,--modifier", o->rename.modifiers, "Rename a modifier (repeatable)")->type_name("<OLD> <NEW>")
        ->allow_extra_args(false);
    sub.add_option("--measurement", o->rename.measurements, "Rename a measurement (repeatable)")
        ->type_name("<OLD> <NEW>")
        ->allow_extra_args(false);
    return [o]() {
        hf::cli::write_json_output(hf::Workspace::load_file(o->workspace).rename(o->rename).json(), o->output_file);
        return 0;
    };
});

}  // namespace
}  // namespace cmd_rename
