// Limits when the POI may be negative and the data lie below the background (mu_hat < 0): the validation case
// 2bin_2channel with POI bounds [-5, 5] and its signal channel lowered, against pyhf
// (tests/reference/make_negative_poi_fixture.py; qtilde, asymptotics), on cpu and on opencl where it loads.
#include <cmath>
#include <fstream>
#include <sstream>

#include "hfcore/backend.hpp"
#include "infer_support.hpp"

namespace hf::test {
namespace {

// Measured: CLs 2e-7 relative, limits 3e-7 relative (cpu and opencl); pyhf's fits stop 1e-12 (scipy
// tolerance) from the minimum, its limits at rtol 1e-6.
constexpr double kClsRel = 1e-5;
constexpr double kLimitRel = 1e-4;

const json::Value& reference() {
    static const json::Value doc =
        json::parse_file((source_dir() / "tests" / "reference" / "infer" / "negative_poi.json").string());
    return doc;
}

std::string file_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

struct Lowered {
    std::unique_ptr<Model> model;
    std::vector<double> data;
    infer::HypotestOptions options;  // qtilde, POI bounds of the reference
};

Lowered lowered_case(const BackendPtr& backend) {
    const auto& ref = reference();
    const auto path = validation_dir() / "2bin_2channel" / "workspace.json";
    EXPECT_EQ(hash_hex("sha256", file_bytes(path)), ref["source"]["sha256"].as_string())
        << path << " is not the workspace the reference was made from";
    const Workspace ws = Workspace::load_file(path.string());
    Lowered l;
    l.model = std::make_unique<Model>(ws.model_spec(ModelRequest{}), backend);
    auto observations = ws.spec().observations;
    for (auto& o : observations) o.data = numbers(ref["observations"][o.name]);
    l.data = l.model->data_from_observations(observations);
    l.options.test_stat = infer::TestStat::qtilde;
    l.options.config = infer::FitConfig::suggested(*l.model);
    const auto b = numbers(ref["poi_bounds"]);
    l.options.config.bounds[l.model->poi_index()] = {b[0], b[1]};
    return l;
}

std::vector<BackendPtr> backends() {
    std::vector<BackendPtr> out{load_backend("cpu")};
    try {
        out.push_back(load_backend("opencl"));
    } catch (const Error& e) {
        std::printf("[negative POI] opencl not usable here (%s): cpu only\n", e.what());
    }
    return out;
}

TEST(NegativePoi, FitClsAndLimitsMatchPyhf) {
    HF_REQUIRE_SHARED();
    const auto& ref = reference();
    for (const auto& backend : backends()) {
        SCOPED_TRACE(backend->description());
        Lowered l = lowered_case(backend);
        const Model& m = *l.model;
        const auto poi = m.poi_index();

        const auto fit = infer::fit(m, l.data, l.options.config);
        EXPECT_TRUE(fit.converged) << fit.reason;
        EXPECT_LE(fit.twice_nll, ref["free_fit"]["twice_nll"].as_double() + 1e-6);
        EXPECT_NEAR(fit.bestfit[poi], ref["free_fit"]["mu_hat"].as_double(), 1e-4);
        ASSERT_LT(fit.bestfit[poi], 0.0);

        // CLs at mu = 0 is 1 (the s+b and b-only distributions coincide), where pyhf's is NaN.
        const auto at0 = infer::hypotest(0.0, m, l.data, l.options);
        EXPECT_EQ(at0.obs, 1.0);
        for (double e : at0.exp) EXPECT_EQ(e, 1.0);

        for (const auto& [mu_text, cls] : ref["cls"].as_object()) {
            const double mu = std::stod(mu_text);
            const auto h = infer::hypotest(mu, m, l.data, l.options);
            EXPECT_LE(rel(h.obs, cls["obs"].as_double()), kClsRel) << "CLs_obs at mu = " << mu;
            const auto exp = numbers(cls["exp"]);
            for (int i = 0; i < 5; ++i) EXPECT_LE(rel(h.exp[i], exp[i]), kClsRel) << "CLs_exp[" << i << "] at " << mu;
            EXPECT_FALSE(h.warnings.empty()) << "pyhf's warning about qtilde with a POI not bounded at 0";
        }

        // The default bracket: from a small positive mu to the POI's upper bound.
        infer::Toms748Options t;
        t.rtol = 1e-6;
        const auto ul = infer::upper_limit(m, l.data, t, l.options);
        const auto& rl = ref["upper_limit"];
        EXPECT_LE(rel(ul.obs, rl["obs"].as_double()), kLimitRel) << "observed limit " << ul.obs;
        const auto exp = numbers(rl["exp"]);
        for (int i = 0; i < 5; ++i) EXPECT_LE(rel(ul.exp[i], exp[i]), kLimitRel) << "expected limit " << i;
        EXPECT_GT(ul.bracket.first, 0.0);
        EXPECT_TRUE(ul.converged);
        const auto at_limit = infer::hypotest(ul.obs, m, l.data, l.options);
        EXPECT_NEAR(at_limit.obs, 0.05, 1e-4);
    }
}

// A limit that is not in the bracket: the error says which CLs values the search saw.
TEST(NegativePoi, NoLimitInTheBracketListsTheClsSeen) {
    HF_REQUIRE_SHARED();
    Lowered l = lowered_case(load_backend("cpu"));
    infer::Toms748Options t;
    t.high = 0.05;
    t.max_expansions = 1;
    try {
        infer::upper_limit(*l.model, l.data, t, l.options);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("CLs seen"), std::string::npos) << what;
        EXPECT_NE(what.find("0.1:"), std::string::npos) << what;  // the last upper end tried
    }
}

}  // namespace
}  // namespace hf::test
