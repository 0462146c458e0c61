// libFuzzer target for the `hfcore` command line's option parsing (apps/hfcore/command_line.hpp): every
// subcommand with its options and their checks, parsed in-process; no command runs. The input is the argument
// list, one argument per line (at most 40 arguments of 512 bytes). A bad command line must end in CLI11's
// ParseError (main.cpp turns it into exit status 2 and a message naming the option); any other exception
// escaping the parse, a sanitizer report, or a parse that succeeds without choosing exactly one subcommand is a
// bug.
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args{"hfcore"};
    std::string arg;
    for (std::size_t i = 0; i < size && args.size() <= 40; ++i) {
        const char c = static_cast<char>(data[i]);
        if (c == '\n') {
            args.push_back(arg);
            arg.clear();
        } else if (c != '\0' && arg.size() < 512) {
            arg += c;
        }
    }
    if (!arg.empty() && args.size() <= 40) args.push_back(arg);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());

    hf::cli::CommandLine command_line;
    try {
        command_line.app().parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError&) {
        return 0;  // --help, --version and every refused command line
    } catch (const std::exception& e) {
        hf::fuzz::bug("fuzz_cli_options", std::string("the parse threw something other than a ParseError: ") +
                                              e.what());
    }
    if (!command_line.chosen()) hf::fuzz::bug("fuzz_cli_options", "a parse succeeded without a subcommand");
    return 0;
}
