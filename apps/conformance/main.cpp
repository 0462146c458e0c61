// hfcore-conformance: the conformance suite (tests/conformance) on one backend plugin, for plugin authors.
//
//   hfcore-conformance --plugin PATH_OR_NAME [--precision 32b|64b] [--models DIR] [--gtest_...]
//
// PATH_OR_NAME is a plugin file (libhfcore-backend-NAME.so) or a NAME found on the plugin search path. Runs the
// Tier 1 operations against double-precision references, Philox random numbers and transfer counts, the fused
// likelihood (Tier 2, when offered) against a long-double reference, and whole likelihoods on the bundled
// reference models: the core's fallback on the plugin against pyhf, the fused likelihood against that fallback.
// Exit status: 0 every test that ran passed, 1 a test failed or nothing ran, 2 bad arguments or a plugin that
// cannot be loaded or used on this machine.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "conformance.hpp"

namespace fs = std::filesystem;

namespace {

const char* kUsage =
    "usage: hfcore-conformance --plugin PATH_OR_NAME [--precision 32b|64b] [--models DIR] [--gtest_...]\n"
    "  --plugin     a plugin file (libhfcore-backend-NAME.so) or a NAME on the plugin search path\n"
    "  --precision  run one precision only (default: 64b and 32b; 32b only on a device without fp64)\n"
    "  --models     folder of the reference models (default: share/hfcore/conformance/models of this install)\n"
    "  --gtest_*    GoogleTest's options, e.g. --gtest_filter='*Models*' (default: -CrossPlugin.*)\n";

struct Args {
    std::string plugin, precision, models;
    std::vector<std::string> gtest;  // passed on to GoogleTest
};

int usage_error(const std::string& msg) {
    std::cerr << "hfcore-conformance: " << msg << "\n" << kUsage;
    return 2;
}

// --name VALUE or --name=VALUE; advances i past what it used.
bool option_value(const std::string& name, int argc, char** argv, int& i, std::string& out) {
    const std::string a = argv[i];
    if (a == name && i + 1 < argc) {
        out = argv[++i];
        return true;
    }
    if (a.rfind(name + "=", 0) == 0) {
        out = a.substr(name.size() + 1);
        return true;
    }
    return false;
}

// A plugin given as a file: its folder goes first on HFCORE_PLUGIN_PATH, so that the suite, which loads
// plugins by name, loads exactly this file. Returns the plugin's name, or "" after reporting an error.
std::string put_file_first(const std::string& path) {
    const fs::path p(path);
    const std::string file = p.filename().string(), prefix = "libhfcore-backend-", suffix = ".so";
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) {
        std::cerr << "hfcore-conformance: plugin file " << path << " not found\n";
        return "";
    }
    if (file.rfind(prefix, 0) != 0 || file.size() <= prefix.size() + suffix.size() ||
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) {
        std::cerr << "hfcore-conformance: " << path << ": a plugin file is named " << prefix << "NAME" << suffix
                  << " (hfcore finds plugins by that name)\n";
        return "";
    }
    std::string search = fs::absolute(p).parent_path().string();
    if (const char* old = std::getenv("HFCORE_PLUGIN_PATH"); old && *old) search += std::string(":") + old;
    setenv("HFCORE_PLUGIN_PATH", search.c_str(), 1);
    return file.substr(prefix.size(), file.size() - prefix.size() - suffix.size());
}

// The plugin's listing; prints why it cannot be checked and returns nullptr when it is absent or unusable.
const hf::PluginListing* usable_plugin(const std::vector<hf::PluginListing>& found, const std::string& name,
                                       const std::string& given_path) {
    for (const auto& l : found) {
        if (l.name != name) continue;
        std::error_code ec;
        if (!given_path.empty() && !fs::equivalent(l.path, given_path, ec)) {
            std::cerr << "hfcore-conformance: a plugin named '" << name << "' at " << l.path
                      << " comes before " << given_path << " on the search path\n";
            return nullptr;
        }
        if (!l.loaded) {
            std::cerr << "hfcore-conformance: " << l.load_error << "\n";
            return nullptr;
        }
        if (!l.probe.usable || l.probe.devices.empty()) {
            std::cerr << "hfcore-conformance: " << name << " (" << l.path << ") cannot run on this machine: "
                      << (l.probe.usable ? "no device" : l.probe.reason) << "\n";
            return nullptr;
        }
        return &l;
    }
    std::cerr << "hfcore-conformance: no plugin named '" << name << "' (libhfcore-backend-" << name
              << ".so) in:";
    for (const auto& dir : hf::plugin_search_path()) std::cerr << " " << dir;
    std::cerr << "\n";
    return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    args.gtest.push_back(argv[0]);
    bool filtered = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            std::cout << kUsage;
            return 0;
        }
        if (option_value("--plugin", argc, argv, i, args.plugin) ||
            option_value("--precision", argc, argv, i, args.precision) ||
            option_value("--models", argc, argv, i, args.models))
            continue;
        if (a.rfind("--gtest_", 0) != 0) return usage_error("unknown argument '" + a + "'");
        filtered = filtered || a.rfind("--gtest_filter", 0) == 0;
        args.gtest.push_back(a);
    }
    if (args.plugin.empty()) return usage_error("--plugin is required");
    if (!args.models.empty()) setenv("HFCORE_CONFORMANCE_MODELS", args.models.c_str(), 1);
    // The cross-plugin tests compare the plugins found with each other: there is one here.
    if (!filtered) args.gtest.push_back("--gtest_filter=-CrossPlugin.*");

    const bool is_file = args.plugin.find('/') != std::string::npos;
    const std::string name = is_file ? put_file_first(args.plugin) : args.plugin;
    if (name.empty()) return 2;
    const auto found = hf::list_plugins();
    const hf::PluginListing* plugin = usable_plugin(found, name, is_file ? args.plugin : "");
    if (!plugin) return 2;

    auto& sel = hf::conf::selection();
    sel.plugin = name;
    const hf::DeviceInfo& device = plugin->probe.devices.front();
    if (!args.precision.empty()) {
        try {
            sel.precisions = {hf::precision_name(hf::parse_precision(args.precision))};
        } catch (const hf::Error& e) {
            return usage_error(e.what());
        }
        if (sel.precisions[0] == "64b" && !device.fp64) {
            std::cerr << "hfcore-conformance: device " << device.name << " has no fp64; use --precision 32b\n";
            return 2;
        }
    } else if (!device.fp64) {
        sel.precisions = {"32b"};
    }
    std::cout << "hfcore-conformance: plugin '" << name << "' (" << plugin->path << ", ABI " << plugin->abi_version
              << "): " << plugin->description << "\n  device " << device.index << ": " << device.name
              << "; precisions:";
    for (const auto& p : sel.precisions) std::cout << " " << p;
    std::cout << std::endl;

    std::vector<char*> gargv;
    for (auto& s : args.gtest) gargv.push_back(s.data());
    int gargc = static_cast<int>(gargv.size());
    gargv.push_back(nullptr);
    ::testing::InitGoogleTest(&gargc, gargv.data());
    const int rc = RUN_ALL_TESTS();

    const auto& unit = *::testing::UnitTest::GetInstance();
    std::cout << "hfcore-conformance: " << name << ": " << unit.successful_test_count() << " passed, "
              << unit.skipped_test_count() << " skipped, " << unit.failed_test_count() << " failed" << std::endl;
    if (rc == 0 && unit.successful_test_count() == 0) {
        std::cerr << "hfcore-conformance: no test ran, nothing was checked\n";
        return 1;
    }
    return rc == 0 ? 0 : 1;
}
