// The uncertainty breakdown (hf::infer::breakdown, `hfcore breakdown`) against its definitions, checked without
// the held fits it runs: the statistical part from the curvature of -2 log L in the POI alone (every other
// parameter at its best fit), each group's held uncertainty from the free fit's covariance (holding parameters at
// the minimum leaves the inverse of the free Hessian's block of the others, the Schur complement
// C_pp - C_pG C_GG^-1 C_Gp); then groups by type, pattern and file, their errors, and the command line.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "cli_run.hpp"
#include "hfcore/breakdown.hpp"
#include "hfcore/loader.hpp"
#include "hfcore/model.hpp"
#include "hfcore/workspace.hpp"

namespace hf::test {
namespace {

std::string example() { return (source_dir() / "examples" / "workspaces" / "example.json").string(); }

struct Loaded {
    std::unique_ptr<Workspace> ws;
    std::unique_ptr<Model> model;
    std::vector<double> data;
};

Loaded load(const std::filesystem::path& path) {
    Loaded l;
    l.ws = std::make_unique<Workspace>(Workspace::load_file(path.string()));
    l.model = std::make_unique<Model>(l.ws->model_spec(ModelRequest{}), load_backend("cpu"));
    l.data = l.model->data_from_observations(l.ws->spec().observations);
    return l;
}

// Solves A x = b (A small, symmetric positive definite) by Gaussian elimination with partial pivoting.
std::vector<double> solve(std::vector<double> a, std::vector<double> b) {
    const std::size_t n = b.size();
    for (std::size_t c = 0; c < n; ++c) {
        std::size_t piv = c;
        for (std::size_t r = c + 1; r < n; ++r)
            if (std::fabs(a[r * n + c]) > std::fabs(a[piv * n + c])) piv = r;
        for (std::size_t k = 0; k < n; ++k) std::swap(a[c * n + k], a[piv * n + k]);
        std::swap(b[c], b[piv]);
        for (std::size_t r = c + 1; r < n; ++r) {
            const double f = a[r * n + c] / a[c * n + c];
            for (std::size_t k = c; k < n; ++k) a[r * n + k] -= f * a[c * n + k];
            b[r] -= f * b[c];
        }
    }
    std::vector<double> x(n);
    for (std::size_t c = n; c-- > 0;) {
        double s = b[c];
        for (std::size_t k = c + 1; k < n; ++k) s -= a[c * n + k] * x[k];
        x[c] = s / a[c * n + c];
    }
    return x;
}

// The breakdown in the Hessian convention against the free fit's covariance and the POI's curvature.
void check_against_definitions(const Loaded& l, double tolerance) {
    const Model& m = *l.model;
    const auto poi = static_cast<std::size_t>(m.poi_index());
    infer::BreakdownOptions o;
    o.uncertainties = infer::UncertaintyConvention::hessian;
    const auto groups = infer::groups_by_modifier_type(m);
    ASSERT_FALSE(groups.empty());
    const auto r = infer::breakdown(m, l.data, groups, o);
    ASSERT_TRUE(r.converged) << r.reason;
    const auto& f = r.fit;
    ASSERT_TRUE(f.hessian_ok);
    const auto np = static_cast<std::size_t>(m.n_pars());
    auto cov = [&](std::size_t i, std::size_t j) {
        return f.correlations[i * np + j] * f.uncertainties[i] * f.uncertainties[j];
    };
    EXPECT_NEAR(r.total, f.uncertainties[poi], 1e-12 * f.uncertainties[poi]);
    EXPECT_NEAR(r.poi_hat, f.bestfit[poi], 0.0);

    // Statistical: 1 / sqrt of half the second derivative of -2 log L in the POI, the rest at the best fit.
    auto twice_nll = [&](double mu) {
        auto p = f.bestfit;
        p[poi] = mu;
        return -2.0 * m.logpdf(p, l.data);
    };
    const double h = 1e-3 * r.statistical, mu = f.bestfit[poi];
    const double d2 = (twice_nll(mu + h) - 2.0 * twice_nll(mu) + twice_nll(mu - h)) / (h * h);
    EXPECT_NEAR(r.statistical, std::sqrt(2.0 / d2), tolerance * r.statistical);
    EXPECT_NEAR(r.systematic, std::sqrt(r.total * r.total - r.statistical * r.statistical), 1e-12);

    // Each group: sigma_G^2 = C_pp - C_pG C_GG^-1 C_Gp, and the impact its quadrature difference from the total.
    ASSERT_EQ(r.groups.size(), groups.size());
    for (const auto& g : r.groups) {
        SCOPED_TRACE(g.name);
        EXPECT_TRUE(g.converged) << g.reason;
        std::vector<std::size_t> idx;
        for (const auto& s : g.parameter_sets) {
            const auto [b, e] = m.par_slice(s);
            for (auto i = b; i < e; ++i)
                if (f.uncertainties[static_cast<std::size_t>(i)] > 0) idx.push_back(static_cast<std::size_t>(i));
        }
        const std::size_t k = idx.size();
        std::vector<double> cgg(k * k), cgp(k);
        for (std::size_t a = 0; a < k; ++a) {
            cgp[a] = cov(idx[a], poi);
            for (std::size_t b = 0; b < k; ++b) cgg[a * k + b] = cov(idx[a], idx[b]);
        }
        const auto x = solve(cgg, cgp);
        double var = cov(poi, poi);
        for (std::size_t a = 0; a < k; ++a) var -= cgp[a] * x[a];
        EXPECT_NEAR(g.held_uncertainty, std::sqrt(var), tolerance * r.total);
        EXPECT_NEAR(g.impact, std::sqrt(std::max(r.total * r.total - g.held_uncertainty * g.held_uncertainty, 0.0)),
                    1e-12);
        EXPECT_NEAR(g.twice_nll, f.twice_nll, 1e-6) << "held at the minimum, the minimum stays";
    }
    for (std::size_t i = 1; i < r.groups.size(); ++i) EXPECT_GE(r.groups[i - 1].impact, r.groups[i].impact);
}

TEST(Breakdown, ExampleMatchesTheDefinitions) { check_against_definitions(load(example()), 1e-5); }

TEST(Breakdown, SbottomMatchesTheDefinitions) {
    const auto path = shared_dir() / "validation" / "pyhf-validation" / "sbottom_regionA_1300_205_60" / "workspace.json";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "skipped: ../shared not found";
    check_against_definitions(load(path), 1e-4);
}

// The held fits run batched (ranking's machinery) or each alone (--no-batch): the same breakdown.
TEST(Breakdown, BatchedHeldFitsEqualFitsAlone) {
    HF_REQUIRE_SHARED();
    const Loaded l = load(shared_dir() / "validation" / "pyhf-validation" / "sbottom_regionA_1300_205_60" / "workspace.json");
    const auto groups = infer::groups_by_modifier_type(*l.model);
    infer::BreakdownOptions batched, alone;
    alone.batched = false;
    const auto a = infer::breakdown(*l.model, l.data, groups, batched);
    const auto b = infer::breakdown(*l.model, l.data, groups, alone);
    ASSERT_TRUE(a.converged) << a.reason;
    ASSERT_TRUE(b.converged) << b.reason;
    EXPECT_NEAR(a.statistical, b.statistical, 1e-6 * a.total);
    ASSERT_EQ(a.groups.size(), b.groups.size());
    double worst = 0;
    for (const auto& g : a.groups) {  // by name: groups of nearly equal impact may sort either way
        const auto other = std::find_if(b.groups.begin(), b.groups.end(), [&](const auto& x) { return x.name == g.name; });
        ASSERT_NE(other, b.groups.end()) << g.name;
        worst = std::max(worst, std::abs(g.held_uncertainty - other->held_uncertainty) / a.total);
    }
    // Two minima found to the fits' tolerance (edm 1e-9): measured 8.5e-8.
    EXPECT_LE(worst, 1e-6);
    measured("breakdown, batched held fits against fits alone (rel. to the total)", worst);
}

TEST(Breakdown, GroupsByTypePatternAndFile) {
    const auto l = load(example());
    const auto by_type = infer::groups_by_modifier_type(*l.model);
    std::vector<std::string> names;
    for (const auto& g : by_type) names.push_back(g.name);
    EXPECT_EQ(names, (std::vector<std::string>{"histosys", "lumi", "normfactor", "normsys", "shapefactor", "shapesys",
                                               "staterror"}));
    for (const auto& g : by_type)
        for (const auto& s : g.parameter_sets) EXPECT_NE(s, l.model->poi_name()) << "the POI is never held";

    const auto by_pattern = infer::groups_by_pattern(*l.model, {{"stat", {"staterror_*"}}, {"xsec", {"*_xsec", "lumi"}}});
    ASSERT_EQ(by_pattern.size(), 2u);
    EXPECT_EQ(by_pattern[0].parameter_sets,
              (std::vector<std::string>{"staterror_CR_top", "staterror_CR_wjets", "staterror_SR"}));
    EXPECT_EQ(by_pattern[1].parameter_sets.size(), 3u);
    EXPECT_THROW(infer::groups_by_pattern(*l.model, {{"poi", {"mu"}}}), InputError) << "the POI alone matches nothing";

    const auto doc = json::parse(R"({"groups": [{"name": "stat", "parameters": ["staterror_*"]}]})");
    EXPECT_EQ(infer::groups_from_json(*l.model, doc, "g.json")[0].parameter_sets, by_pattern[0].parameter_sets);
    auto message = [&](const std::string& text) {
        try {
            infer::groups_from_json(*l.model, json::parse(text), "g.json");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message(R"({"groups": [{"name": "x", "parameters": ["NOPE*"]}]})").find("g.json: groups[0].parameters"),
              std::string::npos);
    EXPECT_NE(message(R"({"groups": [{"parameters": ["lumi"]}]})").find("groups[0].name: missing"), std::string::npos);
    EXPECT_NE(message(R"({"groups": [{"name": "x", "parameters": [3]}]})").find("groups[0].parameters[0]"),
              std::string::npos);
    EXPECT_NE(message(R"({"groups": []})").find("no group"), std::string::npos);
}

TEST(BreakdownCli, TablesJsonAndErrors) {
    const auto dir = std::filesystem::temp_directory_path() / ("hfcore_breakdown_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto j = run_cli("breakdown " + example() + " --hessian-uncertainties");
    ASSERT_EQ(j.rc, 0) << j.err;
    const auto v = json::parse(j.out);
    EXPECT_EQ(v["convention"].as_string(), "hessian");
    EXPECT_TRUE(v["converged"].as_bool());
    EXPECT_EQ(v["groups"].as_array().size(), 7u);

    const auto t = run_cli("breakdown " + example() + " --hessian-uncertainties --table csv");
    ASSERT_EQ(t.rc, 0) << t.err;
    EXPECT_EQ(t.out.rfind("row,impact,relative,parameters\ntotal,", 0), 0u) << t.out;
    for (const auto& format : {"text", "markdown", "latex"}) {
        const auto r = run_cli("breakdown " + example() + " --table " + format + " --group 'stat=staterror_*'");
        EXPECT_EQ(r.rc, 0) << r.err;
        EXPECT_NE(r.out.find("statistical"), std::string::npos) << format;
        EXPECT_NE(r.out.find("stat"), std::string::npos) << format;
    }

    const auto groups = dir / "groups.json";
    std::ofstream(groups) << R"({"groups": [{"name": "x", "parameters": ["NOPE*"]}]})";
    const auto out = dir / "out.json";
    for (const auto& args : {"--groups " + groups.string(), std::string("--group nonsense"),
                             std::string("--group x=NOPE")}) {
        const auto r = run_cli("breakdown " + example() + " " + args + " --output-file " + out.string());
        EXPECT_EQ(r.rc, 2) << args << "\n" << r.err;
        EXPECT_FALSE(std::filesystem::exists(out)) << args;
    }
    const auto named = run_cli("breakdown " + example() + " --groups " + groups.string());
    EXPECT_NE(named.err.find("groups[0].parameters"), std::string::npos) << named.err;
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hf::test
