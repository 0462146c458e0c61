// Subcommand registry of the `hfcore` program. Each cmd_*.cpp defines one subcommand and registers it with
// a static `hf::cli::Register` object, so adding a command never touches main.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace hf::cli {

// `setup` declares the subcommand's options on `sub` and returns the action run when it is chosen.
// The action returns the process exit code.
using Setup = std::function<std::function<int()>(CLI::App& sub)>;

struct CommandDef {
    std::string name;
    std::string description;
    Setup setup;
};

std::vector<CommandDef>& registry();

struct Register {
    Register(std::string name, std::string description, Setup setup) {
        registry().push_back({std::move(name), std::move(description), std::move(setup)});
    }
};

}  // namespace hf::cli
