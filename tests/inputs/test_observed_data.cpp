// One check of observed data for every entry point (issue 34, hfcore/observed_data.hpp): its rules and messages,
// every C++ inference entry point refusing bad data before any fit with the element named, and the CLI refusing
// the same data. The Python entry points are tests/python/test_errors.py's.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

#include "cli_run.hpp"
#include "hfcore/diagnostics.hpp"
#include "hfcore/infer.hpp"
#include "hfcore/json.hpp"
#include "hfcore/loader.hpp"
#include "hfcore/model.hpp"
#include "hfcore/observed_data.hpp"
#include "hfcore/workspace.hpp"
#include "test_support.hpp"

namespace hf::test {
namespace {

std::string example() { return (source_dir() / "examples" / "workspaces" / "example.json").string(); }

struct Example {
    Workspace ws = Workspace::load_file(example());
    Model model{ws.model_spec(), load_backend("cpu")};
    std::vector<double> data = model.data_from_observations(ws.spec().observations, true, ws.source());
};
const Example& ex() {
    static const Example e;
    return e;
}

// The position in the data of the first aux datum of a Poisson (or of a normal) constraint.
std::size_t first_aux(const Model& m, bool poisson) {
    std::size_t i = static_cast<std::size_t>(m.n_main());
    for (const auto& ps : m.parameter_sets()) {
        if (!ps.constrained) continue;
        if ((ps.constraint == "poisson") == poisson) return i;
        i += ps.auxdata.size();
    }
    ADD_FAILURE() << "the example has no " << (poisson ? "Poisson" : "normal") << " constraint";
    return 0;
}

// The InputError check_observed_data throws for the example's data with data[i] = x ("" when none).
std::string refusal(std::size_t i, double x) {
    std::vector<double> d = ex().data;
    d[i] = x;
    try {
        check_observed_data(ex().model, d, "src");
    } catch (const InputError& e) {
        EXPECT_EQ(e.json_path(), "data[" + std::to_string(i) + "]") << e.what();
        return e.what();
    }
    return "";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(ObservedData, LayoutIsTheModels) {
    const auto layout = observed_data_layout(ex().model);
    std::int64_t n_main = 0;
    for (const auto& c : layout.channels) n_main += c.nbins;
    EXPECT_EQ(n_main, ex().model.n_main());
    EXPECT_EQ(static_cast<std::int64_t>(layout.aux_is_count.size()), ex().model.n_aux());
    EXPECT_NO_THROW(check_observed_data(ex().model, ex().data, "src"));
}

TEST(ObservedData, NamesTheElementAndWhy) {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    // Main bins: channels in the model's (sorted) order, so data[0] is bin 0 of the first channel.
    const std::string first = ex().model.channels()[0];
    EXPECT_TRUE(has(refusal(0, -1), "src: data[0]: -1.0 (channel '" + first + "', bin 0) is negative")) << refusal(0, -1);
    EXPECT_TRUE(has(refusal(1, -0.5), "is negative; an observed count must be >= 0")) << refusal(1, -0.5);
    EXPECT_TRUE(has(refusal(2, nan), "is NaN")) << refusal(2, nan);
    EXPECT_TRUE(has(refusal(3, inf), "is infinite")) << refusal(3, inf);
    EXPECT_EQ(refusal(3, 0.5), "");  // a fraction is a count, as in pyhf
    // Aux data: a Poisson constraint's is a count, a normal one's any finite number.
    const std::size_t poisson = first_aux(ex().model, true), normal = first_aux(ex().model, false);
    EXPECT_TRUE(has(refusal(poisson, -2), "of a Poisson constraint) is negative")) << refusal(poisson, -2);
    EXPECT_EQ(refusal(normal, -2), "");
    EXPECT_TRUE(has(refusal(normal, nan), "of a normal constraint) is not a finite number")) << refusal(normal, nan);
    // The length.
    std::vector<double> shorter(ex().data.begin(), ex().data.end() - 1);
    try {
        check_observed_data(ex().model, shorter, "src");
        ADD_FAILURE() << "a data set one value short was accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(e.json_path(), "data");
        EXPECT_TRUE(has(e.what(), "has " + std::to_string(shorter.size()) + " values but the model takes " +
                                      std::to_string(ex().model.n_main()) + " main bins")) << e.what();
    }
}

// Data the check accepts have a finite likelihood: a count below lam / DBL_MAX (denormal) once overflowed lam / n
// in the Poisson terms and made logpdf NaN (pyhf: finite; found by fuzz/python/fuzz_conversions.py). To the
// likelihood such a count is 0.
TEST(ObservedData, DenormalCountsGiveTheLikelihoodOfZero) {
    const Model& m = ex().model;
    const auto pars = m.suggested_init();
    for (const std::size_t i : {std::size_t{1}, first_aux(m, true)}) {
        std::vector<double> zero = ex().data, tiny = ex().data;
        zero[i] = 0.0;
        tiny[i] = 1e-310;
        const double at_zero = m.logpdf(pars, zero), at_tiny = m.logpdf(pars, tiny);
        EXPECT_TRUE(std::isfinite(at_tiny)) << "data[" << i << "] = 1e-310: logpdf " << at_tiny;
        EXPECT_NEAR(at_tiny, at_zero, 1e-9 * std::abs(at_zero)) << "data[" << i << "]";
    }
}

// Every C++ entry point that takes observed data refuses a negative count, naming it, before any fit.
TEST(ObservedData, EveryInferenceEntryPointChecks) {
    namespace inf = infer;
    const Model& m = ex().model;
    std::vector<double> bad = ex().data;
    bad[1] = -3;
    inf::HypotestOptions toys;
    toys.calctype = inf::CalcType::toybased;
    toys.ntoys = 10;
    const std::vector<std::pair<const char*, std::function<void()>>> calls = {
        {"fit", [&] { inf::fit(m, bad); }},
        {"fixed_poi_fit", [&] { inf::fixed_poi_fit(1.0, m, bad); }},
        {"asimov_data", [&] { inf::asimov_data(0.0, m, bad); }},
        {"test_statistic", [&] { inf::test_statistic(inf::TestStat::qtilde, 1.0, m, bad); }},
        {"hypotest asymptotics", [&] { inf::hypotest(1.0, m, bad); }},
        {"hypotest toys", [&] { inf::hypotest(1.0, m, bad, toys); }},
        {"AsymptoticCalculator", [&] { inf::AsymptoticCalculator calc(m, bad); }},
        {"upper_limit_scan", [&] { inf::upper_limit_scan(m, bad, {0.5, 1.0, 2.0}); }},
        {"upper_limit", [&] { inf::upper_limit(m, bad); }},
        {"pulls", [&] { inf::pulls(m, bad); }},
        {"ranking", [&] { inf::ranking(m, bad); }},
        {"yields prefit", [&] { inf::yields(m, bad, false); }},
        {"yields postfit", [&] { inf::yields(m, bad, true); }},
        {"goodness_of_fit", [&] { inf::goodness_of_fit(m, bad); }},
        {"twice_nll_saturated", [&] { inf::twice_nll_saturated(m, bad); }},
        {"constraint_centres", [&] { inf::constraint_centres(m, bad); }},
        {"minos", [&] { inf::minos(m, bad, {"mu"}); }},
        {"profile_scan", [&] { inf::profile_scan(m, bad, {inf::ScanAxis::linear("mu", 0.5, 1.5, 3)}); }},
    };
    for (const auto& [name, call] : calls) {
        try {
            call();
            ADD_FAILURE() << name << " accepted data[1] = -3";
        } catch (const InputError& e) {
            EXPECT_EQ(e.json_path(), "data[1]") << name << ": " << e.what();
            EXPECT_TRUE(has(e.what(), "-3.0 (channel")) << name << ": " << e.what();
        }
    }
}

// The CLI: `hfcore eval --data` as a list (N + A values) refuses a negative count and a negative Poisson aux
// datum, which its JSON reader alone cannot tell from a normal one, with the file and the element.
TEST(ObservedData, CliRefusesTheSameData) {
    const auto write = [](const char* name, const std::vector<double>& v) {
        const auto p = std::filesystem::temp_directory_path() / name;
        std::string text = "[";
        for (std::size_t i = 0; i < v.size(); ++i) text += (i ? ", " : "") + json::format_double(v[i]);
        std::ofstream(p) << text << "]";
        return p.string();
    };
    std::vector<double> d = ex().data;
    const CliRun good = run_cli("eval " + example() + " --data " + write("hfcore_observed_good.json", d));
    EXPECT_EQ(good.rc, 0) << good.err;
    d[1] = -3;
    const std::string neg = write("hfcore_observed_neg.json", d);
    const CliRun r = run_cli("eval " + example() + " --data " + neg);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_TRUE(has(r.err, neg + ": data[1]: -3.0 (channel")) << r.err;
    d = ex().data;
    const std::size_t poisson = first_aux(ex().model, true);
    d[poisson] = -1;
    const std::string aux = write("hfcore_observed_aux.json", d);
    const CliRun a = run_cli("eval " + example() + " --data " + aux);
    EXPECT_EQ(a.rc, 2) << a.err;
    EXPECT_TRUE(has(a.err, aux + ": data[" + std::to_string(poisson) + "]: -1.0 (aux datum")) << a.err;
}

}  // namespace
}  // namespace hf::test
