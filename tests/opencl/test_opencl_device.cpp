// Device selection and probing of the opencl plugin: options, HFCORE_OPENCL_DEVICE, clear errors.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "opencl_support.hpp"

namespace {

using hf::test::ScopedEnv;

hf::BackendPtr load(int platform, int device, const char* precision = "64b") {
    hf::LoadOptions o;
    o.platform = platform;
    o.device = device;
    o.precision = precision;
    return hf::load_backend("opencl", o);
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const hf::PluginError& e) {
        return e.what();
    }
    return "(no PluginError)";
}

TEST(OpenCLDevice, ProbeListsDevicesWithFp64Flag) {
    HF_REQUIRE_PLUGIN("opencl");
    for (const auto& l : hf::list_plugins()) {
        if (l.name != "opencl") continue;
        ASSERT_TRUE(l.probe.usable);
        ASSERT_FALSE(l.probe.devices.empty());
        for (const auto& d : l.probe.devices) {
            EXPECT_FALSE(d.name.empty());
            EXPECT_NE(d.detail.find("platform"), std::string::npos) << d.detail;
            EXPECT_NE(d.detail.find(d.fp64 ? "cl_khr_fp64" : "no cl_khr_fp64"), std::string::npos) << d.detail;
        }
    }
}

TEST(OpenCLDevice, DefaultDeviceLoadsAndDescribesItself) {
    HF_REQUIRE_PLUGIN("opencl");
    ScopedEnv env("HFCORE_OPENCL_DEVICE", nullptr);
    auto be = load(0, 0, "32b");
    EXPECT_EQ(be->name(), "opencl");
    EXPECT_EQ(be->precision(), hf::Precision::f32);
    EXPECT_NE(be->device_name().find("platform 0 device 0"), std::string::npos) << be->device_name();
}

TEST(OpenCLDevice, MissingDeviceIndexIsAClearError) {
    HF_REQUIRE_PLUGIN("opencl");
    ScopedEnv env("HFCORE_OPENCL_DEVICE", nullptr);
    const std::string msg = error_of([] { load(0, 999); });
    EXPECT_NE(msg.find("device 999"), std::string::npos) << msg;
    EXPECT_NE(msg.find("does not exist"), std::string::npos) << msg;
    EXPECT_NE(msg.find("HFCORE_OPENCL_DEVICE"), std::string::npos) << msg;
}

TEST(OpenCLDevice, MissingPlatformIndexIsAClearError) {
    HF_REQUIRE_PLUGIN("opencl");
    ScopedEnv env("HFCORE_OPENCL_DEVICE", nullptr);
    const std::string msg = error_of([] { load(77, 0); });
    EXPECT_NE(msg.find("platform 77"), std::string::npos) << msg;
    EXPECT_NE(msg.find("does not exist"), std::string::npos) << msg;
}

TEST(OpenCLDevice, EnvironmentSelectsPlatformAndDevice) {
    HF_REQUIRE_PLUGIN("opencl");
    {
        ScopedEnv env("HFCORE_OPENCL_DEVICE", "0:0");
        auto be = load(5, 5, "32b");  // the variable overrides the options
        EXPECT_NE(be->device_name().find("platform 0 device 0"), std::string::npos);
    }
    {
        ScopedEnv env("HFCORE_OPENCL_DEVICE", "0");
        auto be = load(0, 5, "32b");
        EXPECT_NE(be->device_name().find("platform 0 device 0"), std::string::npos);
    }
}

TEST(OpenCLDevice, EnvironmentNamingAMissingDeviceIsAClearError) {
    HF_REQUIRE_PLUGIN("opencl");
    ScopedEnv env("HFCORE_OPENCL_DEVICE", "0:42");
    const std::string msg = error_of([] { load(0, 0); });
    EXPECT_NE(msg.find("device 42"), std::string::npos) << msg;
    EXPECT_NE(msg.find("HFCORE_OPENCL_DEVICE=\"0:42\""), std::string::npos) << msg;
}

TEST(OpenCLDevice, MalformedEnvironmentIsRefused) {
    HF_REQUIRE_PLUGIN("opencl");
    for (const char* bad : {"gpu", "0:", ":1", "1:2:3", "-1", "0:x"}) {
        ScopedEnv env("HFCORE_OPENCL_DEVICE", bad);
        const std::string msg = error_of([] { load(0, 0); });
        EXPECT_NE(msg.find("HFCORE_OPENCL_DEVICE"), std::string::npos) << bad << ": " << msg;
        EXPECT_NE(msg.find("\"P:D\" or \"D\""), std::string::npos) << bad << ": " << msg;
    }
}

TEST(OpenCLDevice, EmptyEnvironmentMeansOptions) {
    HF_REQUIRE_PLUGIN("opencl");
    ScopedEnv env("HFCORE_OPENCL_DEVICE", "");
    const std::string msg = error_of([] { load(0, 999); });
    EXPECT_NE(msg.find("device 999"), std::string::npos) << msg;
}

TEST(OpenCLDevice, HugeAllocationIsOutOfMemory) {
    HF_REQUIRE_PLUGIN("opencl");
    ScopedEnv env("HFCORE_OPENCL_DEVICE", nullptr);
    auto be = load(0, 0, "32b");
    EXPECT_THROW(be->empty(hf::DType::f64, {std::int64_t{1} << 40}), hf::OutOfMemory);
    // The backend stays usable.
    auto t = be->full({3}, 2.0);
    EXPECT_EQ(be->to_host_double(t), (std::vector<double>{2, 2, 2}));
}

}  // namespace
