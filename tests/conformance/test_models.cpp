// Whole likelihoods on every backend, on the bundled reference models (tests/conformance/models, installed
// with hfcore-conformance as share/hfcore/conformance/models): the core's Tier 1 fallback running on the plugin
// against pyhf's logpdf and expected data and the 50-digit logpdf, and the plugin's fused likelihood, when it
// offers one, against that fallback (logpdf, gradient and expected data of all points in one batch). The models
// are the example workspace under three interpolation settings (tests/reference/make_conformance_models.py).
#include <filesystem>

#include "conformance.hpp"
#include "model_fixture.hpp"

namespace {

namespace fs = std::filesystem;
using hf::test::Fixture;

// HFCORE_CONFORMANCE_MODELS, else share/hfcore/conformance/models of the install the running program belongs
// to (hfcore-conformance), else the source tree's (test_conformance in a build tree).
fs::path models_dir() {
    if (const char* env = std::getenv("HFCORE_CONFORMANCE_MODELS")) return env;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path installed = exe.parent_path() / HFCORE_CONFORMANCE_MODELS_FROM_BIN;
        if (fs::is_directory(installed, ec)) return installed;
    }
    return HFCORE_CONFORMANCE_MODELS_SOURCE_DIR;
}

// Every *.json of the models folder, with its embedded workspace built into a spec.
std::vector<Fixture> load_models(const fs::path& dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::vector<Fixture> out;
    for (const auto& file : files) {
        Fixture f;
        f.doc = hf::json::parse(hf::test::read_text(file));
        f.name = f.doc["name"].as_string();
        const hf::Workspace ws(f.doc["workspace"], file.string());
        f.spec = ws.model_spec(hf::test::fixture_request(f.doc));
        f.data = hf::test::numbers(f.doc["data"]);
        out.push_back(std::move(f));
    }
    return out;
}

class Models : public hf::conf::Conformance {
protected:
    void SetUp() override {
        Conformance::SetUp();
        if (IsSkipped()) return;
        static const std::vector<Fixture> models = load_models(models_dir());
        ASSERT_FALSE(models.empty()) << "no reference models (*.json) in " << models_dir()
                                     << " (set HFCORE_CONFORMANCE_MODELS to the folder)";
        models_ = &models;
    }
    hf::Model fallback(const Fixture& f) {
        hf::ModelOptions o;
        o.prefer_fused = false;
        return hf::Model(f.spec, backend_, o);
    }
    const std::vector<Fixture>* models_ = nullptr;
};

TEST_P(Models, FallbackMatchesPyhf) {
    for (const Fixture& f : *models_) {
        SCOPED_TRACE(f.name);
        const hf::Model m = fallback(f);
        EXPECT_STREQ(m.implementation(), "tier-1 fallback");
        // Measured on cpu and opencl (PoCL), worst model and point: 64b logpdf 9.3e-16 relative to the 50-digit
        // value, expected data 1.9e-16 relative to pyhf; 32b (float inputs and arithmetic, |logpdf| ~ 16-20)
        // 1.8e-5 absolute = 8.8e-7 relative, expected data 1.2e-7. Allowed: about 10x (20x at 64b, where GPU
        // libraries' exp and log are within 2 ulp instead of glibc's 1).
        if (f32()) hf::test::check_points(m, f, 1e-5, 1e-5);
        else hf::test::check_points(m, f, 2e-14, 1e-14);
    }
}

TEST_P(Models, FusedMatchesFallback) {
    for (const Fixture& f : *models_) {
        SCOPED_TRACE(f.name);
        const hf::Model fused(f.spec, backend_);
        const hf::Model reference = fallback(f);
        if (std::string(fused.implementation()) == reference.implementation())
            GTEST_SKIP() << GetParam().plugin << " offers no fused likelihood (core's Tier 1 fallback is used)";
        // Measured on cpu and opencl (PoCL), worst model and point, fused vs fallback: 64b logpdf 4.0e-16
        // relative, gradient 2.8e-14 absolute (components near 0 make relative figures meaningless), expected
        // data 3.3e-16; 32b logpdf 9.0e-7, gradient 1.5e-5 absolute (8.1e-6 relative), expected data 1.2e-7.
        // Allowed: about 10x, as {logpdf rtol, atol, gradient rtol, atol, expected rtol, atol}.
        if (f32()) hf::test::expect_fused_matches_fallback(fused, reference, f, {1e-5, 0, 1e-4, 2e-4, 1e-6, 1e-6});
        else hf::test::expect_fused_matches_fallback(fused, reference, f, {5e-15, 0, 1e-13, 3e-13, 4e-15, 1e-15});
    }
}

HF_CONFORMANCE_SUITE(Models);

}  // namespace
