// Global minima, logpdf and CLs on random workspaces of ../shared/tools/random_workspace.py (4 channels, up to 8
// bins; histosys and normsys parameters shared by several samples and channels, shapesys, staterror,
// shapefactors, normfactors), against pyhf:
//  - logpdf at fixed points (the suggested init, two random points, pyhf's own best fits) equal to pyhf's;
//  - every fit (free, mu = 0, mu = 1, and the fits to pyhf's Asimov data) checked from both sides: never above
//    pyhf's best minimum (the lower of scipy SLSQP at tolerance 1e-10 and Minuit at strategy 2), and below it
//    only down to the value pyhf's own logpdf gives at hfcore's point (recorded offline): a likelihood that is
//    wrong and lower somewhere gives minima that nothing explains, and fails;
//  - CLs (qtilde, mu = 1: observed and the five expected) equal to pyhf's where hfcore's minima equal pyhf's,
//    on at least 90% of the workspaces.
// References: tests/reference/make_multimodal_fixtures.py (minima, CLs) and make_random_logpdf_fixtures.py
// (logpdf); the workspaces are regenerated from the shared generator and checked against the sha256 the
// reference recorded. HFCORE_RANDOM_REFERENCE names another reference file of the format of
// random_workspaces.json (e.g. other seeds, kept out of the tree; the logpdf checks then use only pyhf's best
// fits, and a lower minimum fails). HFCORE_RANDOM_POINTS_OUT=FILE writes the points where hfcore's minimum is
// below pyhf's, for make_random_logpdf_fixtures.py.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>

#include "infer_support.hpp"

namespace hf::test {
namespace {

// hfcore's minimum is never above pyhf's best by more than this (twice_nll).
constexpr double kAbove = 1e-6;
// A minimum below pyhf's best by more than this needs pyhf's own logpdf at hfcore's point to reach it (to within
// this too); where every minimum of the hypotest is within this of pyhf's, CLs must match: a difference dq moves
// sqrt(q) by dq / (2 sqrt(q)), which this keeps far below the CLs tolerance.
constexpr double kSameMinimum = 1e-5;
constexpr double kClsRel = 1e-4, kClsAbs = 1e-9;
// hfcore's twice_nll against pyhf's at the same point and data: relative, with an absolute floor for values near 0.
constexpr double kLogpdfRel = 1e-10, kLogpdfAbs = 1e-9;
// CLs compared on at least this fraction of the workspaces (the rest have a minimum of pyhf's in a higher basin).
constexpr double kMinClsFraction = 0.9;

json::Value load_multimodal_reference(const std::string& file) {
    json::Value doc = json::parse_file((source_dir() / "tests" / "reference" / "multimodal" / file).string());
    const auto* prov = doc.find("provenance");
    if (!prov) throw std::runtime_error(file + " records no provenance");
    if (const auto ok = provenance_inputs_unchanged(*prov); !ok) throw std::runtime_error(file + ": " + ok.message());
    return doc;
}

std::filesystem::path reference_file() {
    if (const char* env = std::getenv("HFCORE_RANDOM_REFERENCE")) return env;
    return source_dir() / "tests" / "reference" / "multimodal" / "random_workspaces.json";
}

// The generator's output for these arguments (the bytes the reference hashed).
std::string generate(const json::Value& args) {
    std::string joined;
    for (const auto& a : args.as_array()) joined += (joined.empty() ? "" : " ") + a.as_string();
    return random_workspace(joined);
}

struct Loaded {
    std::unique_ptr<Workspace> ws;
    std::unique_ptr<Model> model;
    std::vector<double> data;
};

Loaded load(const json::Value& rec) {
    Loaded l;
    const std::string text = generate(rec["generator_args"]);
    if (text.empty()) {
        ADD_FAILURE() << "the generator did not run (python3 on PATH?)";
        return l;
    }
    if (hash_hex("sha256", text) != rec["sha256"].as_string()) {
        ADD_FAILURE() << "the generator's output for " << rec["name"].as_string()
                      << " is not the workspace of the reference (sha256 differs)";
        return l;
    }
    l.ws = std::make_unique<Workspace>(Workspace::load_string(text, rec["name"].as_string()));
    l.model = std::make_unique<Model>(l.ws->model_spec(ModelRequest{}), load_backend("cpu"));
    l.data = l.model->data_from_observations(l.ws->spec().observations);
    return l;
}

// pyhf's twice_nll at recorded points (random_logpdf.json), by workspace name.
struct PyhfPoint {
    std::string label, kind, data;  // kind: the fit it was hfcore's minimum of ("" for the fixed points)
    std::vector<double> pars;
    double twice_nll = 0;
};

// None for another reference file (HFCORE_RANDOM_REFERENCE), and when the points are being written for a first
// random_logpdf.json (HFCORE_RANDOM_POINTS_OUT without the file).
std::map<std::string, std::vector<PyhfPoint>> pyhf_points(bool default_reference, bool writing_points) {
    std::map<std::string, std::vector<PyhfPoint>> out;
    const auto file = source_dir() / "tests" / "reference" / "multimodal" / "random_logpdf.json";
    if (!default_reference || (writing_points && !std::filesystem::exists(file))) return out;
    const auto doc = load_multimodal_reference("random_logpdf.json");
    for (const auto& w : doc["workspaces"].as_array())
        for (const auto& p : w["points"].as_array()) {
            PyhfPoint q;
            q.label = p["label"].as_string();
            q.kind = p.find("kind") ? p["kind"].as_string() : "";
            q.data = p["data"].as_string();
            q.pars = numbers(p["pars"]);
            q.twice_nll = p["twice_nll"].as_double();
            out[w["name"].as_string()].push_back(std::move(q));
        }
    return out;
}

bool same_twice_nll(double ours, double pyhf) {
    return std::abs(ours - pyhf) <= std::max(kLogpdfAbs, kLogpdfRel * std::abs(pyhf));
}

TEST(RandomWorkspaces, MinimaAndLogpdfAgreeWithPyhfAndClsWhereMinimaAgree) {
    HF_REQUIRE_SHARED();
    const bool default_reference = std::getenv("HFCORE_RANDOM_REFERENCE") == nullptr;
    const auto doc = json::parse_file(reference_file().string());
    const auto& recs = doc["workspaces"].as_array();
    ASSERT_GT(recs.size(), 0u);
    const char* points_out = std::getenv("HFCORE_RANDOM_POINTS_OUT");
    const auto at_points = pyhf_points(default_reference, points_out != nullptr);
    json::Array lower_points;  // for HFCORE_RANDOM_POINTS_OUT
    int n_fits = 0, n_below = 0, n_cls = 0, n_moved = 0, n_logpdf = 0;
    double worst_above = -1e300, worst_cls = 0.0, worst_logpdf = 0.0;
    for (const auto& rec : recs) {
        const std::string name = rec["name"].as_string();
        SCOPED_TRACE(name);
        Loaded l = load(rec);
        if (!l.model) continue;
        const Model& m = *l.model;
        ASSERT_EQ(m.par_names().size(), rec["par_names"].as_array().size());
        const auto nll = [&](const std::vector<double>& pars, const std::vector<double>& data) {
            return -2.0 * m.logpdf(pars, data);
        };
        // pyhf's Asimov data: the expectation at its mu = 0 minimum.
        const auto asimov = m.expected_data(numbers(rec["fits"]["mu0"]["bestfit"]));
        auto logpdf_check = [&](const std::vector<double>& pars, const std::vector<double>& data, double pyhf,
                                const std::string& what) {
            const double ours = nll(pars, data);
            EXPECT_TRUE(same_twice_nll(ours, pyhf)) << what << ": hfcore's twice_nll " << ours << ", pyhf's " << pyhf;
            worst_logpdf = std::max(worst_logpdf, std::abs(ours - pyhf) / std::max(1.0, std::abs(pyhf)));
            ++n_logpdf;
        };
        // logpdf at pyhf's best-fit points (their twice_nll is pyhf's objective there) and the fixed points.
        const std::map<std::string, const json::Value*> pyhf_fits = {
            {"free", &rec["fits"]["free"]},           {"mu0", &rec["fits"]["mu0"]},
            {"mu1", &rec["fits"]["mu1"]},             {"asimov_free", &rec["asimov_fits"]["free"]},
            {"asimov_mu1", &rec["asimov_fits"]["mu1"]}};
        for (const auto& [kind, f] : pyhf_fits)
            logpdf_check(numbers((*f)["bestfit"]), kind.rfind("asimov_", 0) == 0 ? asimov : l.data,
                         (*f)["twice_nll"].as_double(), "pyhf's " + kind + " best fit");
        // The lowest pyhf twice_nll at a point where hfcore's fit of that kind ended (hfcore's lower minima).
        std::map<std::string, double> verified;
        if (!at_points.empty()) {
            const auto it = at_points.find(name);
            ASSERT_NE(it, at_points.end()) << "random_logpdf.json has no points of " << name;
            int fixed_points = 0;
            for (const auto& p : it->second) {
                logpdf_check(p.pars, p.data == "asimov" ? asimov : l.data, p.twice_nll, p.label);
                if (p.kind.empty()) ++fixed_points;
                else if (!verified.count(p.kind) || p.twice_nll < verified[p.kind]) verified[p.kind] = p.twice_nll;
            }
            EXPECT_GE(fixed_points, 3);
        }
        // Two-sided: at most kAbove above pyhf's best; more than kSameMinimum below it only where pyhf's logpdf at
        // hfcore's point of that fit (recorded) is as low. Returns whether the minimum is pyhf's.
        auto check_minimum = [&](const std::string& kind, double ours, const std::vector<double>& at,
                                 const std::string& what) {
            const double ref = pyhf_fits.at(kind)->find("twice_nll")->as_double();
            ++n_fits;
            worst_above = std::max(worst_above, ours - ref);
            EXPECT_LE(ours, ref + kAbove) << what << ": above pyhf's best (" << (*pyhf_fits.at(kind))["best"].as_string()
                                          << ") by " << ours - ref;
            if (ours >= ref - kSameMinimum) return ours <= ref + kSameMinimum;
            ++n_below;
            if (points_out) {
                json::Object o;
                o.set("workspace", json::Value(name));
                o.set("kind", json::Value(kind));
                o.set("twice_nll", json::Value(ours));
                json::Array pa;
                for (double x : at) pa.push_back(json::Value(x));
                o.set("pars", json::Value(std::move(pa)));
                lower_points.push_back(json::Value(std::move(o)));
            }
            const auto v = verified.find(kind);
            if (v == verified.end()) {
                ADD_FAILURE() << what << ": " << ours << ", below pyhf's best " << ref << " by " << ref - ours
                              << ", and pyhf's logpdf was never evaluated at hfcore's point (a likelihood that is "
                                 "too low there, or a new minimum: record it with make_random_logpdf_fixtures.py)";
            } else {
                EXPECT_GE(ours, v->second - kSameMinimum)
                    << what << ": " << ours << " is below pyhf's own twice_nll at hfcore's recorded point ("
                    << v->second << ")";
            }
            return false;
        };
        // The three fits on their own (hfcore fit, hfcore fit --fixed-poi 0 / 1).
        for (const char* kind : {"free", "mu0", "mu1"}) {
            const std::string k = kind;
            const auto r = k == "free" ? infer::fit(m, l.data)
                                       : infer::fixed_poi_fit(k == "mu0" ? 0.0 : 1.0, m, l.data);
            EXPECT_TRUE(r.converged) << k << ": " << r.reason;
            EXPECT_NEAR(nll(r.bestfit, l.data), r.twice_nll, 1e-9 * std::max(1.0, std::abs(r.twice_nll))) << k;
            check_minimum(k, r.twice_nll, r.bestfit, k + " fit");
            n_moved += r.minimizer.other_basin;
        }
        // The hypotest and its five fits. The three fits to the observed data inside it: CLs compared where all
        // three are pyhf's (the Asimov data then come from the same minimum).
        const auto h = infer::hypotest(1.0, m, l.data);
        EXPECT_TRUE(h.converged);
        bool same = check_minimum("free", h.twice_nll_free, h.free_fit_to_data, "the hypotest's free fit");
        same = check_minimum("mu0", nll(h.asimov_pars, l.data), h.asimov_pars,
                             "the hypotest's mu = 0 fit (the Asimov parameters)") && same;
        same = check_minimum("mu1", nll(h.fixed_poi_fit_to_data, l.data), h.fixed_poi_fit_to_data,
                             "the hypotest's mu = 1 fit") && same;
        // The fits to the Asimov data, on pyhf's Asimov data: a flat direction of that minimum moves the Asimov
        // data, so the hypotest's own cannot be compared. pyhf's expected CLs come from its fits to the Asimov
        // data: where one of them stopped in a higher basin (seed3_samples6: mu = 1, by 4.45), its expected band
        // is not the likelihood's.
        const auto free_asimov = infer::fit(m, asimov);
        const auto mu1_asimov = infer::fixed_poi_fit(1.0, m, asimov);
        same = check_minimum("asimov_free", free_asimov.twice_nll, free_asimov.bestfit, "free fit to pyhf's Asimov data") && same;
        same = check_minimum("asimov_mu1", mu1_asimov.twice_nll, mu1_asimov.bestfit, "mu = 1 fit to pyhf's Asimov data") && same;
        if (!same) continue;
        ++n_cls;
        const auto exp = numbers(rec["cls"]["exp"]);
        const double obs = rec["cls"]["obs"].as_double();
        auto check = [&](double ours, double ref, const std::string& what) {
            const double d = std::abs(ours - ref);
            EXPECT_TRUE(d <= kClsAbs || d <= kClsRel * std::abs(ref)) << what << " " << ours << " vs pyhf " << ref;
            if (d > kClsAbs) worst_cls = std::max(worst_cls, d / std::abs(ref));
        };
        check(h.obs, obs, "CLs_obs");
        for (int i = 0; i < 5; ++i) check(h.exp[i], exp[i], "CLs_exp[" + std::to_string(i) + "]");
    }
    if (points_out) {
        json::Object o;
        o.set("points", json::Value(std::move(lower_points)));
        std::ofstream(points_out) << json::dump(json::Value(std::move(o))) << "\n";
    }
    // CLs compared on most workspaces: a likelihood that moves the minima cannot turn the comparison off.
    EXPECT_GE(n_cls, static_cast<int>(std::ceil(kMinClsFraction * static_cast<double>(recs.size()))))
        << "CLs compared on " << n_cls << " of " << recs.size() << " workspaces";
    // The figures for the record (docs and the issue quote them).
    std::printf("[random workspaces] %zu workspaces, %d fits: max (hfcore - pyhf best) twice_nll %.3g, %d below "
                "pyhf's by > %.0e (each down to pyhf's own logpdf at hfcore's point; %d standalone fits from another "
                "basin than the first descent's); logpdf at %d points, max deviation %.3g (relative above 1); CLs "
                "compared on %d workspaces, max relative deviation %.3g\n",
                recs.size(), n_fits, worst_above, n_below, kSameMinimum, n_moved, n_logpdf, worst_logpdf, n_cls,
                worst_cls);
    report_agreement("random workspaces", "twice_nll at fixed points (rel)", worst_logpdf, kLogpdfRel);
}

}  // namespace
}  // namespace hf::test
