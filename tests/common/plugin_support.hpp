// Whether a plugin can run here, for suites that need one: a test that cannot run skips with the reason (and
// scripts/ci/20-ctest.sh fails the CI run for any such skip but the CUDA ones on a machine without a GPU).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "hfcore/errors.hpp"
#include "hfcore/loader.hpp"

namespace hf::test {

// Why the named plugin cannot run here ("" when it can): not built, does not load, or no device, in the words of
// the loader's error. Only that plugin is loaded (not every one on the path, as list_plugins() would), so the
// hundreds of CUDA tests that skip on a machine without a GPU cost a process start each, not an OpenCL probe.
inline std::string plugin_unavailable(const std::string& name) {
    try {
        load_backend(name);
        return "";
    } catch (const Error& e) {
        return e.what();
    }
}

}  // namespace hf::test

#define HF_REQUIRE_PLUGIN(name)                                                               \
    do {                                                                                      \
        const std::string why_ = ::hf::test::plugin_unavailable(name);                        \
        if (!why_.empty()) GTEST_SKIP() << "skipped: " << why_;                               \
    } while (0)
