// The `hfcore` command line as an object: every registered subcommand (command.hpp) with its options, so that a
// command line can be parsed in-process without running anything. main.cpp runs the chosen command's action;
// the option fuzz target (fuzz/fuzz_cli_options.cpp) only parses.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <map>

namespace hf::cli {

class CommandLine {
public:
    CommandLine();  // the app with one subcommand per registered command
    CommandLine(const CommandLine&) = delete;
    CommandLine& operator=(const CommandLine&) = delete;

    CLI::App& app() { return app_; }
    // After a successful parse: the parsed subcommand and its action (exactly one: a subcommand is required).
    CLI::App* chosen() const;
    const std::function<int()>& action(CLI::App* sub) const { return actions_.at(sub); }

private:
    CLI::App app_;
    std::map<CLI::App*, std::function<int()>> actions_;
};

}  // namespace hf::cli
