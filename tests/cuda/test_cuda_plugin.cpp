// The cuda plugin as a plugin: what it says without a driver or device, device selection, out-of-memory
// errors that leave the process and the backend usable, and a steady state without cudaMalloc.
#include <cstdlib>
#include <string>

#include "cuda_test_support.hpp"
#include "hfcore/plugin/abi.hpp"
#include "hfcore/plugin/likelihood.hpp"

namespace {

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// Without a usable GPU (CI, this project's build machines) the plugin must still load, and probe() and
// create() must give the same reason. With a GPU this check has nothing to look at and skips.
TEST(CudaWithoutDevice, ProbeAndCreateGiveTheReason) {
    auto l = hf::test::find_plugin("cuda");
    if (!l) GTEST_SKIP() << "skipped: cuda plugin not built";
    ASSERT_TRUE(l->loaded) << "the cuda plugin must load even without a driver: " << l->load_error;
    if (l->probe.usable) GTEST_SKIP() << "skipped: a usable CUDA device is present (" << l->probe.devices.at(0).name << ")";
    const std::string reason = l->probe.reason;
    EXPECT_TRUE(starts_with(reason, "no CUDA driver") || reason == "no CUDA device" ||
                starts_with(reason, "no usable CUDA device") ||
                reason == "no CUDA device of compute capability 7.5 or newer")
        << reason;

    // Through the core: PluginError naming the reason, never a silent fallback.
    try {
        hf::load_backend("cuda");
        ADD_FAILURE() << "load_backend(cuda) succeeded without a device";
    } catch (const hf::PluginError& e) {
        EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }

    // The plugin's own create(): the same message, as hf::PluginError across the library boundary.
    void* h = hf::test::plugin_handle("cuda");
    ASSERT_NE(h, nullptr);
    auto iface_fn = reinterpret_cast<const hf::PluginInterface* (*)()>(::dlsym(h, "hfcore_plugin_interface"));
    ASSERT_NE(iface_fn, nullptr);
    const hf::PluginInterface* iface = iface_fn();
    EXPECT_STREQ(iface->name, "cuda");
    try {
        iface->create(hf::BackendOptions{});
        ADD_FAILURE() << "create() succeeded without a device";
    } catch (const hf::PluginError& e) {
        EXPECT_EQ(std::string(e.what()), reason);
    }
}

TEST(CudaDevice, ProbeListsTheDevices) {
    HF_CUDA_BACKEND_OR_SKIP(b, "64b");
    auto l = hf::test::find_plugin("cuda");
    ASSERT_TRUE(l && l->probe.usable);
    ASSERT_FALSE(l->probe.devices.empty());
    EXPECT_FALSE(l->probe.devices[0].name.empty());
    EXPECT_NE(l->probe.devices[0].detail.find("compute capability"), std::string::npos);
    EXPECT_EQ(b->name(), "cuda");
    EXPECT_NE(b->description().find("64b"), std::string::npos) << b->description();
}

TEST(CudaDevice, IndexThatDoesNotExistIsAClearError) {
    HF_CUDA_BACKEND_OR_SKIP(b, "64b");
    const int missing = static_cast<int>(hf::test::find_plugin("cuda")->probe.devices.size()) + 7;
    hf::LoadOptions o;
    o.device = missing;
    try {
        hf::load_backend("cuda", o);
        ADD_FAILURE() << "device " << missing << " was accepted";
    } catch (const hf::PluginError& e) {
        EXPECT_NE(std::string(e.what()).find("device " + std::to_string(missing) + " does not exist"),
                  std::string::npos)
            << e.what();
    }
    // The environment variable overrides the options, and is checked as strictly.
    ::setenv("HFCORE_CUDA_DEVICE", std::to_string(missing).c_str(), 1);
    EXPECT_THROW(hf::load_backend("cuda"), hf::PluginError);
    ::setenv("HFCORE_CUDA_DEVICE", "first", 1);
    try {
        hf::load_backend("cuda");
        ADD_FAILURE() << "HFCORE_CUDA_DEVICE=first was accepted";
    } catch (const hf::PluginError& e) {
        EXPECT_NE(std::string(e.what()).find("HFCORE_CUDA_DEVICE"), std::string::npos) << e.what();
    }
    ::setenv("HFCORE_CUDA_DEVICE", "0", 1);
    EXPECT_NO_THROW(hf::load_backend("cuda"));
    ::unsetenv("HFCORE_CUDA_DEVICE");
}

TEST(CudaMemory, OutOfMemoryIsAnErrorAndTheBackendSurvives) {
    HF_CUDA_BACKEND_OR_SKIP(b, "64b");
    // 8 TiB: more than any GPU has, small enough for cudaMalloc to be asked.
    try {
        b->empty(hf::DType::f64, hf::Shape{std::int64_t{1} << 40});
        ADD_FAILURE() << "an 8 TiB allocation succeeded";
    } catch (const hf::OutOfMemory& e) {
        EXPECT_NE(std::string(e.what()).find("out of device memory"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("8.00 TiB"), std::string::npos) << e.what();
    }
    // Beyond any address space: refused before the device is asked.
    EXPECT_THROW(b->empty(hf::DType::f64, hf::Shape{std::int64_t{1} << 61}), hf::OutOfMemory);
    // Still usable afterwards.
    auto x = b->full(hf::Shape{1000}, 2.0);
    auto s = b->to_host_double(b->reduce_all(hf::ReduceOp::sum, x));
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0], 2000.0);
}

TEST(CudaMemory, SteadyStateNeverCallsCudaMalloc) {
    HF_CUDA_BACKEND_OR_SKIP(b, "64b");
    void* h = hf::test::plugin_handle("cuda");
    ASSERT_NE(h, nullptr);
    auto count = reinterpret_cast<std::uint64_t (*)()>(::dlsym(h, "hfcore_cuda_malloc_count"));
    ASSERT_NE(count, nullptr);

    auto step = [&] {
        auto x = b->random_normal(hf::Shape{64, 300}, 7);
        auto y = b->binary(hf::BinaryOp::mul, b->unary(hf::UnaryOp::exp, x), x);
        auto s = b->reduce(hf::ReduceOp::sum, y, 1);
        auto m = b->matmul(y, b->transpose(y, {1, 0}));
        auto sorted = b->sort(s);
        return b->to_host_double(b->reduce_all(hf::ReduceOp::max, m)).at(0) + b->to_host_double(sorted).at(0);
    };
    for (int i = 0; i < 3; ++i) step();  // warm-up fills the cache
    const std::uint64_t before = count();
    for (int i = 0; i < 20; ++i) step();
    EXPECT_EQ(count(), before) << "cudaMalloc was called in the steady state";
}

}  // namespace
