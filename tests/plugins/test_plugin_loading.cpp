// The plugin loader against real and deliberately broken plugins: every failure is a PluginError that names the
// file and the reason, and the process carries on; search order, HFCORE_PLUGIN_PATH, mixed-backend refusal,
// transfer counting, and the `hfcore backends` listing.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <tuple>
#include <utility>

#include "hfcore/loader.hpp"
#include "hfcore/plugin/abi.hpp"
#include "hfcore/errors.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kBroken = HF_BROKEN_PLUGIN_DIR;
const fs::path kPlugins = HFCORE_PLUGIN_BUILD_DIR;

std::string file_of(const std::string& kind) { return (kBroken / ("libhfcore-backend-" + kind + ".so")).string(); }

// The PluginError message of loading `path`; fails the test when nothing is thrown or another type is.
std::string load_error(const std::string& name, const std::string& path = "") {
    hf::LoadOptions o;
    o.plugin_path = path;
    try {
        hf::load_backend(name, o);
    } catch (const hf::PluginError& e) {
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected hf::PluginError, got another exception: " << e.what();
        return e.what();
    }
    ADD_FAILURE() << "loading " << name << " (" << path << ") did not throw";
    return "";
}

class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old, had_ = true;
        ::setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (had_) ::setenv(name_, old_.c_str(), 1);
        else ::unsetenv(name_);
    }

private:
    const char* name_;
    std::string old_;
    bool had_ = false;
};

// Afterwards the process still works: the cpu plugin loads and computes.
void expect_process_still_works() {
    auto b = hf::load_backend("cpu");
    auto x = b->from_host({1.0, 2.0, 3.0});
    auto s = b->to_host_double(b->reduce_all(hf::ReduceOp::sum, x));
    EXPECT_EQ(s, std::vector<double>{6.0});
}

TEST(PluginLoading, MissingEntryPointNamesFileAndSymbol) {
    const std::string f = file_of("noentry");
    ASSERT_TRUE(fs::exists(f)) << f;
    for (const std::string& msg : {load_error(f), load_error("noentry", f)}) {
        EXPECT_NE(msg.find(f), std::string::npos) << msg;
        EXPECT_NE(msg.find("missing entry point"), std::string::npos) << msg;
        EXPECT_NE(msg.find("hfcore_plugin_abi_version"), std::string::npos) << msg;
    }
    expect_process_still_works();
}

TEST(PluginLoading, WrongAbiVersionNamesBothVersions) {
    const std::string f = file_of("badabi");
    const std::string msg = load_error(f);
    EXPECT_NE(msg.find(f), std::string::npos) << msg;
    EXPECT_NE(msg.find("ABI version " + std::to_string(HFCORE_PLUGIN_ABI_VERSION + 998u)), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(HFCORE_PLUGIN_ABI_VERSION)), std::string::npos) << msg;
    expect_process_still_works();
}

TEST(PluginLoading, WrongInterfaceSizeIsRefused) {
    const std::string f = file_of("badsize");
    const std::string msg = load_error(f);
    EXPECT_NE(msg.find(f), std::string::npos) << msg;
    EXPECT_NE(msg.find("interface size " + std::to_string(sizeof(hf::PluginInterface) + 8)), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(sizeof(hf::PluginInterface))), std::string::npos) << msg;
    expect_process_still_works();
}

TEST(PluginLoading, NullInterfaceIsRefused) {
    const std::string f = file_of("nulliface");
    const std::string msg = load_error(f);
    EXPECT_NE(msg.find(f), std::string::npos) << msg;
    EXPECT_NE(msg.find("interface"), std::string::npos) << msg;
    expect_process_still_works();
}

TEST(PluginLoading, ThrowingCreateBecomesPluginErrorWithReason) {
    const std::string f = file_of("throwing");
    const std::string msg = load_error(f);
    EXPECT_NE(msg.find(f), std::string::npos) << msg;
    EXPECT_NE(msg.find("simulated initialisation failure"), std::string::npos) << msg;
    expect_process_still_works();
}

TEST(PluginLoading, UnusablePluginSaysWhyAndWhere) {
    const std::string f = file_of("unusable");
    const std::string msg = load_error(f);
    EXPECT_NE(msg.find("unavailable"), std::string::npos) << msg;
    EXPECT_NE(msg.find("simulated: no device on this machine"), std::string::npos) << msg;
    EXPECT_NE(msg.find(f), std::string::npos) << msg;
    expect_process_still_works();
}

TEST(PluginLoading, FileThatIsNotALibraryReportsDlerror) {
    const std::string f = file_of("garbage");
    ASSERT_TRUE(fs::exists(f));
    const std::string msg = load_error(f);
    EXPECT_NE(msg.find(f), std::string::npos) << msg;
    EXPECT_NE(msg.find("cannot load"), std::string::npos) << msg;
    // dlerror's own words ("invalid ELF header" / "file too short") follow.
    EXPECT_TRUE(msg.find("ELF") != std::string::npos || msg.find("too short") != std::string::npos) << msg;
    expect_process_still_works();
}

TEST(PluginLoading, UnknownNameListsTheFoldersSearched) {
    ScopedEnv env("HFCORE_PLUGIN_PATH", "/nonexistent/hfcore-a:/nonexistent/hfcore-b");
    const std::string msg = load_error("nosuchbackend");
    EXPECT_NE(msg.find("nosuchbackend"), std::string::npos) << msg;
    EXPECT_NE(msg.find("libhfcore-backend-nosuchbackend.so"), std::string::npos) << msg;
    for (const auto& dir : hf::plugin_search_path()) EXPECT_NE(msg.find(dir), std::string::npos) << dir << " in " << msg;
    EXPECT_NE(msg.find("/nonexistent/hfcore-a"), std::string::npos) << msg;
    EXPECT_NE(msg.find("HFCORE_PLUGIN_PATH"), std::string::npos) << msg;
    const std::string missing = load_error("/nonexistent/libhfcore-backend-x.so");
    EXPECT_NE(missing.find("/nonexistent/libhfcore-backend-x.so"), std::string::npos) << missing;
}

TEST(PluginLoading, PluginPathFindsACopyUnderAnotherName) {
    const fs::path src = kPlugins / "libhfcore-backend-cpu.so";
    ASSERT_TRUE(fs::exists(src)) << src;
    const fs::path dir = fs::temp_directory_path() / ("hfcore-plugin-path-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    fs::copy_file(src, dir / "libhfcore-backend-cpucopy.so", fs::copy_options::overwrite_existing);
    {
        ScopedEnv env("HFCORE_PLUGIN_PATH", "/nonexistent/first:" + dir.string());
        auto search = hf::plugin_search_path();
        ASSERT_GE(search.size(), 2u);
        EXPECT_EQ(search[0], "/nonexistent/first");
        EXPECT_EQ(search[1], dir.string());

        hf::LoadOptions o;
        o.precision = hf::Precision::f32;
        auto b = hf::load_backend("cpucopy", o);
        EXPECT_EQ(b->name(), "cpu");
        EXPECT_EQ(b->precision(), hf::Precision::f32);
        auto x = b->from_host({1.0, 2.0});
        EXPECT_EQ(b->to_host_double(b->binary(hf::BinaryOp::mul, x, x)), (std::vector<double>{1.0, 4.0}));

        bool listed = false;
        for (const auto& l : hf::list_plugins())
            if (l.name == "cpucopy") {
                listed = true;
                EXPECT_EQ(fs::path(l.path).parent_path(), dir);
                EXPECT_TRUE(l.loaded) << l.load_error;
                EXPECT_TRUE(l.probe.usable);
                EXPECT_EQ(l.abi_version, HFCORE_PLUGIN_ABI_VERSION);
            }
        EXPECT_TRUE(listed);
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
}

TEST(PluginLoading, ListPluginsReportsBrokenOnesWithoutThrowing) {
    ScopedEnv env("HFCORE_PLUGIN_PATH", kBroken.string());
    std::vector<hf::PluginListing> all;
    ASSERT_NO_THROW(all = hf::list_plugins());
    int seen = 0;
    for (const auto& l : all) {
        if (fs::path(l.path).parent_path() != kBroken) continue;
        ++seen;
        if (l.name == "unusable") {
            EXPECT_TRUE(l.loaded) << l.load_error;
            EXPECT_FALSE(l.probe.usable);
            EXPECT_EQ(l.probe.reason, "simulated: no device on this machine");
        } else if (l.name == "throwing") {
            EXPECT_TRUE(l.loaded);  // create() is not called by listing
            EXPECT_TRUE(l.probe.usable);
        } else {
            EXPECT_FALSE(l.loaded) << l.name;
            EXPECT_NE(l.load_error.find(l.path), std::string::npos) << l.load_error;
        }
    }
    EXPECT_EQ(seen, 7);
    // The real plugins beside libhfcore.so are still listed after the broken folder.
    bool cpu = false;
    for (const auto& l : all) cpu = cpu || (l.name == "cpu" && l.loaded && l.probe.usable);
    EXPECT_TRUE(cpu);
    expect_process_still_works();
}

TEST(PluginLoading, TraceSwitchPrintsEveryAttempt) {
    ScopedEnv env("HFCORE_TRACE_PLUGINS", "1");
    ScopedEnv path("HFCORE_PLUGIN_PATH", "/nonexistent/traced");
    ::testing::internal::CaptureStderr();
    hf::load_backend("cpu");
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("/nonexistent/traced/libhfcore-backend-cpu.so"), std::string::npos) << err;
    EXPECT_NE(err.find("not found"), std::string::npos) << err;
    EXPECT_NE(err.find("libhfcore-backend-cpu.so"), std::string::npos) << err;
}

TEST(PluginLoading, CpuProbeDescribesTheDevice) {
    bool found = false;
    for (const auto& l : hf::list_plugins()) {
        if (l.name != "cpu") continue;
        found = true;
        ASSERT_TRUE(l.loaded) << l.load_error;
        EXPECT_TRUE(l.probe.usable);
        ASSERT_EQ(l.probe.devices.size(), 1u);
        EXPECT_FALSE(l.probe.devices[0].name.empty());
        EXPECT_TRUE(l.probe.devices[0].fp64);
        EXPECT_TRUE(l.probe.devices[0].fp32);
    }
    EXPECT_TRUE(found);
}

TEST(PluginLoading, CpuRefusesADeviceItDoesNotHave) {
    hf::LoadOptions o;
    o.device = 3;
    try {
        hf::load_backend("cpu", o);
        ADD_FAILURE() << "device 3 accepted";
    } catch (const hf::PluginError& e) {
        EXPECT_NE(std::string(e.what()).find("device 3"), std::string::npos) << e.what();
    }
}

TEST(Backends, OpsMixingTwoInstancesThrowBackendMismatch) {
    auto b1 = hf::load_backend("cpu"), b2 = hf::load_backend("cpu");
    ASSERT_NE(b1.get(), b2.get());
    auto x = b1->from_host({1.0, 2.0}), y = b2->from_host({3.0, 4.0});
    EXPECT_THROW(b1->binary(hf::BinaryOp::add, x, y), hf::BackendMismatch);
    EXPECT_THROW(b2->unary(hf::UnaryOp::exp, x), hf::BackendMismatch);
    EXPECT_THROW(b1->where(b1->binary(hf::BinaryOp::gt, x, x), x, y), hf::BackendMismatch);
    EXPECT_THROW(b1->concat({x, y}, 0), hf::BackendMismatch);
    EXPECT_THROW(b1->matmul(x, y), hf::BackendMismatch);
    EXPECT_THROW(b2->to_host_double(x), hf::BackendMismatch);
    try {
        b1->binary(hf::BinaryOp::mul, x, y);
    } catch (const hf::BackendMismatch& e) {
        EXPECT_NE(std::string(e.what()).find("different backends"), std::string::npos) << e.what();
    }
    // Each instance keeps working on its own tensors.
    EXPECT_EQ(b1->to_host_double(b1->binary(hf::BinaryOp::add, x, x)), (std::vector<double>{2.0, 4.0}));
    EXPECT_EQ(b2->to_host_double(b2->binary(hf::BinaryOp::add, y, y)), (std::vector<double>{6.0, 8.0}));
}

TEST(Backends, TransferCountersArePerInstance) {
    auto b1 = hf::load_backend("cpu"), b2 = hf::load_backend("cpu");
    b1->reset_transfers();
    b2->reset_transfers();
    auto x = b1->from_host({1.0, 2.0, 3.0});
    EXPECT_EQ(b1->transfers().uploads, 1u);
    EXPECT_EQ(b1->transfers().upload_bytes, 24u);
    EXPECT_EQ(b2->transfers().uploads, 0u);
    auto y = b1->binary(hf::BinaryOp::mul, x, x);
    EXPECT_EQ(b1->transfers().uploads, 1u);
    EXPECT_EQ(b1->transfers().downloads, 0u);
    double out[3];
    b1->to_host(y, out);
    EXPECT_EQ(b1->transfers().downloads, 1u);
    EXPECT_EQ(b1->transfers().download_bytes, 24u);
    EXPECT_EQ(b2->transfers().downloads, 0u);
    EXPECT_EQ(out[2], 9.0);
}

}  // namespace

namespace {

// Runs the `hfcore` program with `args`, an optional HFCORE_PLUGIN_PATH and other `env` assignments; returns
// stdout and the exit code.
std::pair<std::string, int> run_cli(const std::string& args, const std::string& plugin_path = "",
                                    const std::string& env = "") {
    std::string cmd = env.empty() ? "" : env + " ";
    if (!plugin_path.empty()) cmd += "HFCORE_PLUGIN_PATH='" + plugin_path + "' ";
    cmd += std::string("'") + HFCORE_CLI_PATH + "' " + args + " 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return {"popen failed", -1};
    std::string out;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    const int status = ::pclose(p);
    return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

TEST(BackendsCommand, ListsTheCpuPluginWithItsDevice) {
    auto [out, rc] = run_cli("backends");
    EXPECT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("cpu"), std::string::npos) << out;
    EXPECT_NE(out.find("usable"), std::string::npos) << out;
    EXPECT_NE(out.find("libhfcore-backend-cpu.so"), std::string::npos) << out;
    EXPECT_NE(out.find("fp64: yes"), std::string::npos) << out;
}

// libhfcore's host kernels and the cpu plugin's follow the same HFCORE_CPU_SIMD (hfcore/plugin/vector_level.hpp);
// baseline runs on every CPU.
TEST(BackendsCommand, NamesTheVectorLevelOfCoreAndOfTheCpuPlugin) {
    auto [out, rc] = run_cli("backends", "", "HFCORE_CPU_SIMD=baseline");
    EXPECT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("host kernels (libhfcore): vector level: baseline"), std::string::npos) << out;
    EXPECT_NE(out.find("threads; vector level: baseline"), std::string::npos) << out;
    std::tie(out, rc) = run_cli("backends", "", "HFCORE_CPU_SIMD=sse9");
    EXPECT_NE(out.find("host kernels (libhfcore): vector level: "), std::string::npos) << out;
    EXPECT_NE(out.find("(HFCORE_CPU_SIMD=sse9 is not a vector level"), std::string::npos) << out;
}

TEST(BackendsCommand, ShowsWhyAPluginIsUnusableAndWhichAreBroken) {
    auto [out, rc] = run_cli("backends", kBroken.string());
    EXPECT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("unavailable: simulated: no device on this machine"), std::string::npos) << out;
    // The broken plugin reports this ABI + 998 (tests/plugins/broken_plugin.cpp): 999 while the ABI was 1.
    EXPECT_NE(out.find("ABI version " + std::to_string(HFCORE_PLUGIN_ABI_VERSION + 998u)), std::string::npos) << out;
    EXPECT_NE(out.find("missing entry point"), std::string::npos) << out;
}

TEST(BackendsCommand, JsonListing) {
    auto [out, rc] = run_cli("backends --json", kBroken.string());
    EXPECT_EQ(rc, 0) << out;
    EXPECT_EQ(out.rfind("{", 0), 0u) << out;
    EXPECT_NE(out.find("\"name\": \"cpu\""), std::string::npos) << out;
    EXPECT_NE(out.find("\"status\": \"unavailable\""), std::string::npos) << out;
    EXPECT_NE(out.find("\"reason\": \"simulated: no device on this machine\""), std::string::npos) << out;
    EXPECT_NE(out.find("\"fp64\": true"), std::string::npos) << out;
    EXPECT_NE(out.find("\"search_path\""), std::string::npos) << out;
    EXPECT_NE(out.find("\"abi_version\": " + std::to_string(HFCORE_PLUGIN_ABI_VERSION)), std::string::npos) << out;
}

}  // namespace
