// `hfcore digest`: pyhf digest (hash of the canonical JSON of a workspace).
#include <iostream>
#include <memory>

#include "command.hpp"
#include "hfcore/workspace.hpp"

namespace cmd_digest {
namespace {

struct Options {
    std::string workspace = "-";
    std::vector<std::string> algorithms;
    bool json = false;
};

const hf::cli::Register reg(
    "digest", "Use hashing algorithm to calculate the workspace digest (pyhf digest).", [](CLI::App& sub) {
        auto o = std::make_shared<Options>();
        sub.add_option("workspace", o->workspace, "Workspace JSON file ('-' for standard input)")->capture_default_str();
        sub.add_option("-a,--algorithm", o->algorithms,
                       "The hashing algorithm used to compute the workspace digest (repeatable; default sha256)")
            ->allow_extra_args(false);
        sub.add_flag("-j,--json,!-p,!--plaintext", o->json,
                     "Output the hash values as a JSON dictionary or plaintext strings");
        return [o]() {
            const hf::Workspace ws = hf::Workspace::load_file(o->workspace);
            if (o->algorithms.empty()) o->algorithms.push_back("sha256");
            hf::json::Object digests;  // like pyhf's dict: a repeated algorithm appears once
            for (const auto& alg : o->algorithms) digests.set(alg, hf::json::Value(ws.digest(alg)));
            if (o->json) {
                std::cout << hf::json::dump_pretty(hf::json::Value(digests)) << "\n";
            } else {
                std::string out;
                for (const auto& [alg, hex] : digests) out += (out.empty() ? "" : "\n") + alg + ":" + hex.as_string();
                std::cout << out << "\n";
            }
            return 0;
        };
    });

}  // namespace
}  // namespace cmd_digest
