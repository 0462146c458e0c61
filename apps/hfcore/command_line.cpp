// The `hfcore` command line built from the command registry (command_line.hpp).
#include "command_line.hpp"

#include <algorithm>

#include "command.hpp"
#include "hfcore/executor.hpp"

namespace hf::cli {

std::vector<CommandDef>& registry() {
    static std::vector<CommandDef> commands;
    return commands;
}

CommandLine::CommandLine() : app_("hfcore: HistFactory likelihoods (pyhf JSON) on CPUs and GPUs") {
    app_.require_subcommand(1);
    app_.set_version_flag("--version", "hfcore " HFCORE_VERSION "\n" + hf::run::mpi_description());
    auto& commands = registry();
    std::sort(commands.begin(), commands.end(), [](auto& a, auto& b) { return a.name < b.name; });
    for (auto& def : commands) {
        CLI::App* sub = app_.add_subcommand(def.name, def.description);
        actions_[sub] = def.setup(*sub);
    }
}

CLI::App* CommandLine::chosen() const {
    for (const auto& [sub, action] : actions_)
        if (sub->parsed()) return sub;
    return nullptr;
}

}  // namespace hf::cli
