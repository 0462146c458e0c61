// `hfcore convert --to hs3|pyhf IN`: a workspace between pyhf's JSON and HS3 (hfcore/hs3.hpp). The input may be
// either; it is read and checked as a workspace first, so a bad input writes nothing.
#include <memory>

#include "cmd_workspace_io.hpp"
#include "command.hpp"
#include "hfcore/hs3.hpp"
#include "hfcore/workspace.hpp"

namespace cmd_convert {
namespace {

struct Options {
    std::string workspace = "-";
    std::string to;
    std::string output_file;
};

const hf::cli::Register reg(
    "convert", "Convert a workspace between pyhf JSON and HS3 (ROOT's RooJSONFactoryWSTool format).",
    [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        sub.add_option("workspace", o->workspace, "Workspace, pyhf JSON or HS3 ('-' for standard input)")
            ->capture_default_str();
        sub.add_option("--to", o->to, "Output format: hs3 or pyhf")
            ->required()
            ->check(CLI::IsMember({"hs3", "pyhf"}));
        sub.add_option("-o,--output-file", o->output_file, "Write here instead of standard output");
        return [o]() {
            const hf::Workspace ws = hf::Workspace::load_file(o->workspace);  // either format, validated
            hf::cli::write_json_output(o->to == "hs3" ? hf::pyhf_to_hs3(ws.json()) : ws.json(), o->output_file);
            return 0;
        };
    });

}  // namespace
}  // namespace cmd_convert
