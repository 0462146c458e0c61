// Device selection and probing of the opencl plugin: options, HFCORE_OPENCL_DEVICE, clear errors.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
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
    o.precision = hf::parse_precision(precision);
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

namespace {

// The path of GPUs without cl_khr_fp64, exercised on any device by hiding fp64.
TEST(OpenCLNoFp64, Refuses64bAndRuns32bWithoutDoubles) {
    HF_REQUIRE_PLUGIN("opencl");
    ScopedEnv dev("HFCORE_OPENCL_DEVICE", nullptr);
    ScopedEnv hide("HFCORE_OPENCL_DISABLE_FP64", "1");
    const std::string msg = error_of([] { load(0, 0, "64b"); });
    EXPECT_NE(msg.find("lacks cl_khr_fp64"), std::string::npos) << msg;
    EXPECT_NE(msg.find("use precision 32b"), std::string::npos) << msg;
    for (const auto& l : hf::list_plugins()) {
        if (l.name != "opencl") continue;
        for (const auto& d : l.probe.devices) EXPECT_FALSE(d.fp64) << d.detail;
    }
    auto be = load(0, 0, "32b");
    EXPECT_THROW(be->full({2}, 1.0, hf::DType::f64), hf::PluginError);
    // Elementwise, special functions, reductions, casts and random numbers all build and run without doubles.
    auto x = be->from_host({0.25, 0.5, 0.75, 2.0});
    auto y = be->to_host_double(be->unary(hf::UnaryOp::normal_ppf, be->binary(hf::BinaryOp::minimum, x, be->full({}, 0.9))));
    EXPECT_NEAR(y[0], -0.6744897501960817, 1e-6);
    EXPECT_NEAR(y[3], 1.2815515655446004, 1e-6);
    auto lg = be->to_host_double(be->unary(hf::UnaryOp::lgamma, x));
    EXPECT_NEAR(lg[3], 0.0, 1e-6);
    EXPECT_NEAR(be->to_host_double(be->reduce_all(hf::ReduceOp::sum, x))[0], 3.5, 1e-6);
    EXPECT_EQ(be->to_host_double(be->cast(x, hf::DType::i32)), (std::vector<double>{0, 0, 0, 2}));
    auto u = be->to_host_double(be->random_uniform({100}, 7));
    for (double v : u) EXPECT_TRUE(v > 0 && v < 1);
    auto p = be->to_host_double(be->binary(hf::BinaryOp::pow, x, be->full({}, 3.0)));
    EXPECT_NEAR(p[3], 8.0, 1e-5);
}

}  // namespace

namespace {

// With no ICD visible (the ICD loader reads OCL_ICD_VENDORS) the plugin still loads and says why it is unusable.
TEST(OpenCLNoPlatform, ProbeSaysNoPlatformInstalled) {
    HF_REQUIRE_PLUGIN("opencl");
    const auto empty = std::filesystem::temp_directory_path() / ("hfcore-no-icd-" + std::to_string(::getpid()));
    std::filesystem::create_directories(empty);
    const std::string cmd = "OCL_ICD_VENDORS=" + empty.string() + " HFCORE_PLUGIN_PATH=" HFCORE_PLUGIN_BUILD_DIR " " +
                            HFCORE_CLI_PATH + " backends 2>&1";
    std::string out;
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
        char buf[512];
        while (std::fgets(buf, sizeof buf, p)) out += buf;
        ::pclose(p);
    }
    std::filesystem::remove_all(empty);
    if (out.find("opencl  usable") != std::string::npos) GTEST_SKIP() << "this ICD loader ignores OCL_ICD_VENDORS";
    EXPECT_NE(out.find("no OpenCL platform (is an ICD such as pocl-opencl-icd installed?)"), std::string::npos) << out;
}

}  // namespace
