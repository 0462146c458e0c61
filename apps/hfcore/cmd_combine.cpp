// `hfcore combine`: pyhf combine (join two workspaces).
#include <memory>

#include "cmd_workspace_io.hpp"
#include "command.hpp"
#include "hfcore/workspace.hpp"

namespace cmd_combine {
namespace {

struct Options {
    std::string workspace_one = "-", workspace_two = "-";
    std::string join = "none";
    std::string output_file;
    bool merge_channels = false;
};

const hf::cli::Register reg("combine", "Combine two workspaces into a single workspace (pyhf combine).",
                            [](CLI::App& sub) {
    auto o = std::make_shared<Options>();
    sub.add_option("workspace-one", o->workspace_one, "First workspace JSON file")->capture_default_str();
    sub.add_option("workspace-two", o->workspace_two, "Second workspace JSON file")->capture_default_str();
    sub.add_option("-j,--join", o->join, "The join operation to apply when combining the two workspaces.")
        ->check(CLI::IsMember({"none", "outer", "left outer", "right outer"}))
        ->capture_default_str();
    sub.add_option("--output-file", o->output_file,
                   "The location of the output json file. If not specified, prints to screen.");
    sub.add_flag("--merge-channels,!--no-merge-channels", o->merge_channels,
                 "Whether or not to deeply merge channels. Can only be done with left/right outer joins.");
    return [o]() {
        const auto left = hf::Workspace::load_file(o->workspace_one);
        const auto right = hf::Workspace::load_file(o->workspace_two);
        const auto combined = hf::Workspace::combine(left, right, hf::parse_join(o->join), o->merge_channels);
        hf::cli::write_json_output(combined.json(), o->output_file);
        return 0;
    };
});

}  // namespace
}  // namespace cmd_combine
