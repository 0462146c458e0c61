// `hfcore patchset extract|apply|verify|inspect`: pyhf patchset.
#include <iostream>
#include <memory>

#include "cmd_workspace_io.hpp"
#include "command.hpp"
#include "hfcore/errors.hpp"
#include "hfcore/patch.hpp"
#include "hfcore/workspace.hpp"

namespace cmd_patchset {
namespace {

struct Options {
    std::string patchset = "-", background_only = "-";
    std::string name, output_file;
    bool with_metadata = false;
};

const std::string& require_name(const Options& o, const hf::PatchSet& ps) {
    if (o.name.empty())
        throw hf::InputError(ps.source(), "patches", "No patch name given: pass --name (one of the patches' names)");
    return o.name;
}

const hf::cli::Register reg("patchset", "Operations involving patchsets (pyhf patchset).", [](CLI::App& sub) {
    auto o = std::make_shared<Options>();
    sub.require_subcommand(1);
    const char* out_help = "The location of the output json file. If not specified, prints to screen.";

    CLI::App* extract = sub.add_subcommand("extract", "Extract a patch from a patchset.");
    extract->add_option("patchset", o->patchset, "PatchSet JSON file")->capture_default_str();
    extract->add_option("--name", o->name, "The name of the patch to extract.");
    extract->add_option("--output-file", o->output_file, out_help);
    extract->add_flag("--with-metadata,!--without-metadata", o->with_metadata, "Include patchset metadata in output.");

    CLI::App* apply = sub.add_subcommand("apply", "Apply a patch from patchset to the background-only workspace.");
    apply->add_option("background-only", o->background_only, "Background-only workspace JSON file")
        ->capture_default_str();
    apply->add_option("patchset", o->patchset, "PatchSet JSON file")->capture_default_str();
    apply->add_option("--name", o->name, "The name of the patch to apply.");
    apply->add_option("--output-file", o->output_file, out_help);

    CLI::App* verify = sub.add_subcommand("verify", "Verify the patchset digests against a background-only workspace.");
    verify->add_option("background-only", o->background_only, "Background-only workspace JSON file")
        ->capture_default_str();
    verify->add_option("patchset", o->patchset, "PatchSet JSON file")->capture_default_str();

    CLI::App* inspect = sub.add_subcommand("inspect", "Inspect the PatchSet (e.g. list individual patches).");
    inspect->add_option("patchset", o->patchset, "PatchSet JSON file")->capture_default_str();

    return [o, extract, apply, verify, inspect]() {
        if (extract->parsed()) {
            const auto ps = hf::PatchSet::load_file(o->patchset);
            const auto& patch = ps[require_name(*o, ps)];
            if (o->with_metadata) {
                // pyhf: the patch's metadata updated with the patchset's metadata.
                hf::json::Value md = patch.metadata;
                for (const auto& [k, v] : ps.metadata().as_object()) md.as_object().set(k, v);
                hf::json::Object result{{"metadata", md}, {"patch", patch.patch.json()}};
                hf::cli::write_json_output(hf::json::Value(result), o->output_file);
            } else {
                hf::cli::write_json_output(patch.patch.json(), o->output_file);
            }
        } else if (apply->parsed()) {
            const auto ws = hf::Workspace::load_file(o->background_only);
            const auto ps = hf::PatchSet::load_file(o->patchset);
            hf::cli::write_json_output(ps.apply(ws, require_name(*o, ps)).json(), o->output_file);
        } else if (verify->parsed()) {
            const auto ws = hf::Workspace::load_file(o->background_only);
            hf::PatchSet::load_file(o->patchset).verify(ws);
            std::cout << "All good.\n";
        } else if (inspect->parsed()) {
            const auto ps = hf::PatchSet::load_file(o->patchset);
            std::cout << "\n    " << ps.patches().size() << " patches found in Patchset\n";
            std::cout << "---------------------------------\n\n";
            for (const auto& p : ps.patches()) std::cout << p.name << "\n";
        }
        return 0;
    };
});

}  // namespace
}  // namespace cmd_patchset
