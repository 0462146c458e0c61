// Helpers of the opencl test suite: load the opencl (and cpu) plugins or skip with the reason.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "hfcore/loader.hpp"
#include "hfcore/errors.hpp"
#include "plugin_support.hpp"
#include "test_support.hpp"

namespace hf::test {

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
