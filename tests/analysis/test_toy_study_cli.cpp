// `hfcore toys`: the JSON summary is the library's study, the --per-toy .npz holds every toy's fit (read back here
// from its zip entries and .npy headers, as numpy.load reads them), and bad options exit with status 2, naming
// the option, with nothing written.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "cli_run.hpp"
#include "hfcore/loader.hpp"
#include "hfcore/toy_study.hpp"
#include "hfcore/workspace.hpp"

namespace hf::test {
namespace {

namespace fs = std::filesystem;

struct Npy {
    std::string header;
    std::string data;
};

std::uint32_t le(const std::string& s, std::size_t at, int bytes) {
    std::uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s.at(at + i));
    return v;
}

// The stored entries of a zip archive, name -> .npy (header dict and raw data).
std::map<std::string, Npy> read_npz(const std::string& zip) {
    std::map<std::string, Npy> out;
    std::size_t at = 0;
    while (at + 30 <= zip.size() && le(zip, at, 4) == 0x04034b50) {
        EXPECT_EQ(le(zip, at + 8, 2), 0u) << "stored, not compressed";
        const std::uint32_t size = le(zip, at + 18, 4), name_len = le(zip, at + 26, 2), extra = le(zip, at + 28, 2);
        const std::string name = zip.substr(at + 30, name_len);
        const std::string npy = zip.substr(at + 30 + name_len + extra, size);
        EXPECT_EQ(npy.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8)) << name;
        const std::uint32_t hlen = le(npy, 8, 2);
        EXPECT_EQ((10 + hlen) % 64, 0u) << name;
        out[name] = {npy.substr(10, hlen), npy.substr(10 + hlen)};
        at += 30 + name_len + extra + size;
    }
    EXPECT_EQ(le(zip, at, 4), 0x02014b50u) << "the central directory follows the entries";
    EXPECT_EQ(le(zip, zip.size() - 22, 4), 0x06054b50u) << "end of central directory";
    return out;
}

std::vector<double> doubles(const Npy& a) {
    std::vector<double> v(a.data.size() / 8);
    std::memcpy(v.data(), a.data.data(), v.size() * 8);
    return v;
}

class ToysCli : public ::testing::Test {
protected:
    fs::path dir;
    fs::path ws;
    void SetUp() override {
        dir = fs::temp_directory_path() / ("hfcore_toys_cli_" + std::to_string(::getpid()));
        fs::remove_all(dir);
        fs::create_directories(dir);
        ws = dir / "small.json";
        const auto ref = json::parse_file((source_dir() / "tests/reference/analysis/toy_study_pyhf.json").string());
        std::ofstream(ws) << json::dump(ref["workspace"]);
    }
    void TearDown() override { fs::remove_all(dir); }
    std::string base() const { return "toys " + ws.string() + " --ntoys 120 --mu-true 1,2 --seed 5 --toy-batch 50"; }
};

TEST_F(ToysCli, SummaryAndPerToyColumnsAreTheLibrarysStudy) {
    const auto out = dir / "out.json", npz = dir / "out.npz";
    const auto r = run_cli(base() + " --threads 2 --output-file " + out.string() + " --per-toy " + npz.string());
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_FALSE(fs::exists(out.string() + ".journal.jsonl"));

    const auto w = Workspace::load_file(ws.string());
    Model model(w.model_spec(ModelRequest{}), load_backend("cpu"));
    infer::ToyStudyOptions o;
    o.poi_values = {1.0, 2.0};
    o.ntoys = 120;
    o.seed = 5;
    o.toy_batch = 50;
    const auto study = infer::toy_study(model, model.data_from_observations(w.spec().observations), o);

    const auto summary = json::parse_file(out.string());
    EXPECT_EQ(summary["poi"].as_string(), "mu");
    ASSERT_EQ(summary["points"].as_array().size(), 2u);
    for (std::size_t j = 0; j < 2; ++j) {
        const auto& p = summary["points"].as_array()[j];
        EXPECT_EQ(p["ntoys"].as_double(), 120.0);
        const auto& poi = p["parameters"].as_array()[static_cast<std::size_t>(study.poi_index)];
        EXPECT_EQ(poi["name"].as_string(), "mu");
        EXPECT_EQ(poi["pull_width"].as_double(), study.points[j].parameters[study.poi_index].pull_width);
        EXPECT_EQ(p["poi_coverage"]["68"]["fraction"].as_double(), study.points[j].coverage[0].fraction);
    }
    EXPECT_EQ(summary["linearity"]["slope"].as_double(), study.linearity.slope);

    const auto a = read_npz(read_text(npz));
    for (const char* name : {"parameter_names", "poi_true", "toy", "truth", "bestfit", "uncertainties", "pull",
                             "twice_nll", "converged", "hessian_ok"})
        EXPECT_EQ(a.count(std::string(name) + ".npy"), 1u) << name;
    EXPECT_NE(a.at("bestfit.npy").header.find("'descr': '<f8', 'fortran_order': False, 'shape': (240, 4), }"),
              std::string::npos)
        << a.at("bestfit.npy").header;
    EXPECT_NE(a.at("converged.npy").header.find("'descr': '|b1'"), std::string::npos);
    EXPECT_NE(a.at("parameter_names.npy").header.find("'descr': '<U11', 'fortran_order': False, 'shape': (4,)"),
              std::string::npos)
        << a.at("parameter_names.npy").header;
    auto bestfit = study.points[0].toys.bestfit;
    bestfit.insert(bestfit.end(), study.points[1].toys.bestfit.begin(), study.points[1].toys.bestfit.end());
    EXPECT_EQ(doubles(a.at("bestfit.npy")), bestfit);
    const auto mu = doubles(a.at("poi_true.npy"));
    ASSERT_EQ(mu.size(), 240u);
    EXPECT_EQ(mu[119], 1.0);
    EXPECT_EQ(mu[120], 2.0);
    const auto pull = doubles(a.at("pull.npy")), unc = doubles(a.at("uncertainties.npy"));
    const auto k = 7 * 4 + study.poi_index;
    EXPECT_DOUBLE_EQ(pull[k], (bestfit[k] - 1.0) / unc[k]);
}

TEST_F(ToysCli, BadOptionsExitTwoNamingTheOptionAndWriteNothing) {
    const auto out = dir / "bad.json", npz = dir / "bad.npz";
    const std::string files = " --output-file " + out.string() + " --per-toy " + npz.string();
    const std::vector<std::pair<std::string, std::string>> cases{
        {"--mu-true 1,11", "--mu-true"}, {"--mu-true -2", "--mu-true"},   {"--mu-true 1,nan", "--mu-true"},
        {"--ntoys 1", "--ntoys"},        {"--nuisance observed", "--nuisance"}, {"--aux thrown", "--aux"},
        {"--toy-batch 0", "--toy-batch"}};
    for (const auto& [bad, option] : cases) {
        const auto r = run_cli("toys " + ws.string() + " " + bad + files);
        EXPECT_EQ(r.rc, 2) << bad << ": " << r.err;
        EXPECT_NE(r.err.find(option), std::string::npos) << bad << ": " << r.err;
        EXPECT_FALSE(fs::exists(out)) << bad;
        EXPECT_FALSE(fs::exists(npz)) << bad;
        EXPECT_FALSE(fs::exists(out.string() + ".journal.jsonl")) << bad;
    }
    const auto r = run_cli(base() + " --output-file " + out.string() + " --per-toy " + (dir / "no" / "x.npz").string());
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("x.npz"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace hf::test
