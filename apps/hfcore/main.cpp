// Entry point of the `hfcore` command line: builds the subcommands from the registry and runs the chosen one.
#include <iostream>

#include "command_line.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/executor.hpp"

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
    hf::cli::CommandLine command_line;
    CLI::App& app = command_line.app();
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
        if (CLI::App* sub = command_line.chosen()) {
            check_output_file(*sub);
            rc = command_line.action(sub)();
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
