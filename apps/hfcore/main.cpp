// Entry point of the `hfcore` command line: builds the subcommands from the registry and runs the chosen one.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>

#include "command.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/executor.hpp"

namespace hf::cli {
std::vector<CommandDef>& registry() {
    static std::vector<CommandDef> commands;
    return commands;
}
}  // namespace hf::cli

namespace {

// An --output-file that cannot be written fails now, before the work (the file is written atomically at the end).
void check_output_file(CLI::App& sub) {
    for (CLI::App* s : sub.get_subcommands()) check_output_file(*s);
    const CLI::Option* opt = sub.get_option_no_throw("--output-file");
    if (opt && opt->count() > 0) hf::run::check_writable(opt->as<std::string>());
}

}  // namespace

int main(int argc, char** argv) {
    // Under mpirun/srun every rank runs this program; without them MPI is not touched.
    hf::run::MpiSession mpi(&argc, &argv);
    CLI::App app{"hfcore: HistFactory likelihoods (pyhf JSON) on CPUs and GPUs"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "hfcore " HFCORE_VERSION "\n" + hf::run::mpi_description());
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
    int rc = 1;
    bool failed = false;  // an exception, not a result
    try {
        for (auto& [sub, action] : actions)
            if (sub->parsed()) {
                check_output_file(*sub);
                rc = action();
                break;
            }
    } catch (const hf::run::Interrupted& e) {
        std::cerr << "hfcore: interrupted: " << e.what() << "\n";
        rc = hf::run::interrupted_exit_code();
    } catch (const hf::Error& e) {
        std::cerr << "hfcore: error: " << e.what() << "\n";
        rc = 2;
        failed = true;
    } catch (const std::exception& e) {
        std::cerr << "hfcore: internal error: " << e.what() << "\n";
        rc = 3;
        failed = true;
    }
    // A rank that failed alone would leave the others waiting for it.
    if (failed && mpi.active()) hf::run::abort_all(rc);
    return rc;
}
