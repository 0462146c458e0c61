// Helpers of the opencl test suite: load the opencl (and cpu) plugins or skip with the reason.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "hfcore/loader.hpp"
#include "hfcore/errors.hpp"
#include "test_support.hpp"

namespace hf::test {

// Why the named plugin cannot run here ("" when it can): not built, does not load, or no device.
inline std::string plugin_unavailable(const std::string& name) {
    for (const auto& l : list_plugins()) {
        if (l.name != name) continue;
        if (!l.loaded) return name + " plugin does not load: " + l.load_error;
        if (!l.probe.usable) return name + " plugin unusable: " + l.probe.reason;
        return "";
    }
    return name + " plugin not built (configure with -DHFCORE_BUILD_OPENCL=ON)";
}

// Sets an environment variable for the scope of a test.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) {
            had_ = true;
            old_ = old;
        }
        if (value)
            ::setenv(name, value, 1);
        else
            ::unsetenv(name);
    }
    ~ScopedEnv() {
        if (had_)
            ::setenv(name_.c_str(), old_.c_str(), 1);
        else
            ::unsetenv(name_.c_str());
    }

private:
    std::string name_, old_;
    bool had_ = false;
};

}  // namespace hf::test

#define HF_REQUIRE_PLUGIN(name)                                                               \
    do {                                                                                      \
        const std::string why_ = ::hf::test::plugin_unavailable(name);                        \
        if (!why_.empty()) GTEST_SKIP() << "skipped: " << why_;                               \
    } while (0)
