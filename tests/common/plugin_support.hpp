// Whether a plugin can run here, for suites that need one: a test that cannot run skips with the reason (and
// scripts/ci/20-ctest.sh fails the CI run for any such skip but the CUDA ones on a machine without a GPU).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "hfcore/loader.hpp"

namespace hf::test {

// Why the named plugin cannot run here ("" when it can): not built, does not load, or no device.
inline std::string plugin_unavailable(const std::string& name) {
    for (const auto& l : list_plugins()) {
        if (l.name != name) continue;
        if (!l.loaded) return name + " plugin does not load: " + l.load_error;
        if (!l.probe.usable) return name + " plugin unusable: " + l.probe.reason;
        return "";
    }
    return name + " plugin not built (libhfcore-backend-" + name + ".so is not on the plugin path)";
}

}  // namespace hf::test

#define HF_REQUIRE_PLUGIN(name)                                                               \
    do {                                                                                      \
        const std::string why_ = ::hf::test::plugin_unavailable(name);                        \
        if (!why_.empty()) GTEST_SKIP() << "skipped: " << why_;                               \
    } while (0)
