// `hfcore prune`: pyhf prune (remove channels, samples, modifiers, modifier types, measurements).
#include <memory>

#include "cmd_workspace_io.hpp"
#include "command.hpp"
#include "hfcore/workspace.hpp"

namespace cmd_prune {
namespace {

struct Options {
    std::string workspace = "-";
    std::string output_file;
    hf::PruneOptions prune;
};

const hf::cli::Register reg("prune", "Prune components from the workspace (pyhf prune).", [](CLI::App& sub) {
    auto o = std::make_shared<Options>();
    sub.add_option("workspace", o->workspace, "Workspace JSON file ('-' for standard input)")->capture_default_str();
    sub.add_option("--output-file", o->output_file,
                   "The location of the output json file. If not specified, prints to screen.");
    sub.add_option("-c,--channel", o->prune.channels, "Channel to remove (repeatable)")->type_name("<CHANNEL>")
        ->allow_extra_args(false);
    sub.add_option("-s,--sample", o->prune.samples, "Sample to remove (repeatable)")->type_name("<SAMPLE>")
        ->allow_extra_args(false);
    sub.add_option("-m,--modifier", o->prune.modifiers, "Modifier to remove (repeatable)")->type_name("<MODIFIER>")
        ->allow_extra_args(false);
    sub.add_option("-t,--modifier-type", o->prune.modifier_types, "Modifier type to remove (repeatable)")
        ->check(CLI::IsMember(hf::modifier_type_names()))
        ->allow_extra_args(false);
    sub.add_option("--measurement", o->prune.measurements, "Measurement to remove (repeatable)")
        ->type_name("<MEASUREMENT>")
        ->allow_extra_args(false);
    return [o]() {
        hf::cli::write_json_output(hf::Workspace::load_file(o->workspace).prune(o->prune).json(), o->output_file);
        return 0;
    };
});

}  // namespace
}  // namespace cmd_prune
