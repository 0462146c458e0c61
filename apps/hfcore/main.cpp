// Entry point of the `hfcore` command line: builds the subcommands from the registry and runs the chosen one.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>

#include "command.hpp"
#include "hfcore/errors.hpp"

namespace hf::cli {
std::vector<CommandDef>& registry() {
    static std::vector<CommandDef> commands;
    return commands;
}
}  // namespace hf::cli

int main(int argc, char** argv) {
    CLI::App app{"hfcore: HistFactory likelihoods (pyhf JSON) on CPUs and GPUs"};
    app.require_subcommand(1);
    auto& commands = hf::cli::registry();
    std::sort(commands.begin(), commands.end(), [](auto& a, auto& b) { return a.name < b.name; });
    std::map<CLI::App*, std::function<int()>> actions;
    for (auto& def : commands) {
        CLI::App* sub = app.add_subcommand(def.name, def.description);
        actions[sub] = def.setup(*sub);
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help prints and exits 0; a bad command line exits 2, like pyhf's (click) usage errors and like every
        // other input error of hfcore (CLI11's own codes, 105-109, would say nothing more).
        return app.exit(e) == 0 ? 0 : 2;
    }
    try {
        for (auto& [sub, action] : actions)
            if (sub->parsed()) return action();
    } catch (const hf::Error& e) {
        std::cerr << "hfcore: error: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "hfcore: internal error: " << e.what() << "\n";
        return 3;
    }
    return 1;
}
