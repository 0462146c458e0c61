// Yield tables against cabinetry 0.6.0 (tests/reference/yield_tables/, made by make_yield_table_fixtures.py): the
// numbers behind them (every sample, bin and channel sum with its standard deviation, pre-fit and post-fit from
// cabinetry's own fit) to 1e-6, and the cells of cabinetry.tabulate.yields' rows exactly; then the formats and
// the command line.
#include <algorithm>
#include <cmath>
#include <memory>

#include "cli_run.hpp"
#include "hfcore/diagnostics.hpp"
#include "hfcore/loader.hpp"
#include "hfcore/model.hpp"
#include "hfcore/workspace.hpp"
#include "hfcore/yield_tables.hpp"
#include "provenance.hpp"

namespace hf::test {
namespace {

std::filesystem::path fixture_dir() { return source_dir() / "tests" / "reference" / "yield_tables"; }

std::vector<double> numbers(const json::Value& v) {
    std::vector<double> out;
    for (const auto& x : v.as_array()) out.push_back(x.as_double());
    return out;
}

struct Case {
    json::Value expected;
    std::unique_ptr<Workspace> ws;
    std::unique_ptr<Model> model;
    std::vector<double> data;
};

Case load_case(const std::string& name) {
    Case c;
    c.expected = json::parse_file((fixture_dir() / (name + ".json")).string());
    const auto& prov = c.expected["provenance"];
    const bool shared = !prov["shared_sha256"].as_object().empty();
    const auto& hashes = shared ? prov["shared_sha256"] : prov["repo_sha256"];
    const std::filesystem::path path = (shared ? shared_dir() : source_dir()) / hashes.as_object().begin()->first;
    if (!std::filesystem::exists(path)) return c;
    c.ws = std::make_unique<Workspace>(Workspace::load_file(path.string()));
    c.model = std::make_unique<Model>(c.ws->model_spec(ModelRequest{}), load_backend("cpu"));
    c.data = c.model->data_from_observations(c.ws->spec().observations);
    return c;
}

double rel(double a, double b, double scale) { return std::fabs(a - b) / std::max(std::fabs(b), 1e-9 * scale); }

class CabinetryTables : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        c_ = load_case(GetParam());
        if (!c_.model) GTEST_SKIP() << "skipped: ../shared not found";
        ASSERT_TRUE(provenance_inputs_unchanged(c_.expected["provenance"]));
    }
    infer::YieldsResult ours(const std::string& stage) const {
        if (stage == "prefit") return infer::yields(*c_.model, c_.data, false);
        const auto& fit = c_.expected["fit"];
        std::vector<double> corr;
        for (const auto& row : fit["corr_mat"].as_array())
            for (double x : numbers(row)) corr.push_back(x);
        auto r = infer::yields_at(*c_.model, c_.data, numbers(fit["bestfit"]), numbers(fit["uncertainty"]), corr);
        r.postfit = true;
        return r;
    }
    Case c_;
};

// Every number a table shows, to 1e-6 relative (the largest difference is printed).
TEST_P(CabinetryTables, NumbersMatch) {
    for (const std::string stage : {"prefit", "postfit"}) {
        SCOPED_TRACE(stage);
        const auto r = ours(stage);
        const auto& ref = c_.expected[stage]["yields"].as_array();
        ASSERT_EQ(r.channels.size(), ref.size());
        double worst = 0;
        for (std::size_t c = 0; c < ref.size(); ++c) {
            const auto& o = r.channels[c];
            const auto& e = ref[c];
            ASSERT_EQ(o.name, e["name"].as_string());
            const double scale = e["channel_total"].as_double();
            auto check = [&](double mine, double theirs, const std::string& what) {
                const double d = rel(mine, theirs, scale);
                worst = std::max(worst, d);
                EXPECT_LE(d, 1e-6) << o.name << " " << what << ": " << mine << " vs cabinetry " << theirs;
            };
            auto check_all = [&](const std::vector<double>& mine, const json::Value& theirs, const std::string& what) {
                const auto t = numbers(theirs);
                ASSERT_EQ(mine.size(), t.size()) << what;
                for (std::size_t b = 0; b < t.size(); ++b) check(mine[b], t[b], what + "[" + std::to_string(b) + "]");
            };
            for (std::size_t s = 0; s < o.samples.size(); ++s) {
                const auto& es = e["samples"][s];
                ASSERT_EQ(o.samples[s], es["name"].as_string());
                check_all(o.yields[s], es["yields"], o.samples[s] + " yields");
                check_all(o.stdev[s], es["stdev"], o.samples[s] + " stdev");
                check(o.sample_sums[s], es["channel_sum"].as_double(), o.samples[s] + " channel sum");
                check(o.sample_sums_stdev[s], es["channel_sum_stdev"].as_double(), o.samples[s] + " channel stdev");
            }
            check_all(o.total, e["total"], "total");
            check_all(o.total_stdev, e["total_stdev"], "total stdev");
            check_all(o.data, e["data"], "data");
            check(o.channel_total, e["channel_total"].as_double(), "channel total");
            check(o.channel_total_stdev, e["channel_total_stdev"].as_double(), "channel total stdev");
        }
        measured(GetParam() + " " + stage + " worst relative difference", worst);
    }
}

// The cells of our tables (two decimals, text) equal cabinetry.tabulate.yields' rows: per bin from the channel
// tables, per channel from the overview.
TEST_P(CabinetryTables, CellsMatchCabinetry) {
    for (const std::string stage : {"prefit", "postfit"}) {
        SCOPED_TRACE(stage);
        const auto tables = infer::yield_tables(ours(stage));
        const auto& per_bin = c_.expected[stage]["tables"]["per_bin"].as_array();
        const auto& per_channel = c_.expected[stage]["tables"]["per_channel"].as_array();
        const std::size_t nch = tables.size() - 1;
        int compared = 0;
        for (const auto& row : per_bin) {  // cabinetry: {"sample": name, "<channel>\nbin <k>": cell, ...}
            const std::string name = row["sample"].as_string();
            for (const auto& [key, cell] : row.as_object()) {
                if (key == "sample") continue;
                const auto nl = key.find("\nbin ");
                const std::string channel = key.substr(0, nl);
                const std::size_t col = std::stoul(key.substr(nl + 5));
                std::size_t t = 0;
                while (t < nch && tables[t].title.rfind(channel + " (", 0) != 0) ++t;
                ASSERT_LT(t, nch) << channel;
                const auto& rows = tables[t].rows;
                const auto it = std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r[0] == name; });
                ASSERT_NE(it, rows.end()) << name;
                EXPECT_EQ((*it)[col], cell.as_string()) << channel << " bin " << col << " " << name;
                ++compared;
            }
        }
        const auto& overview = tables.back().rows;
        for (const auto& row : per_channel) {
            const std::string name = row["sample"].as_string();
            const auto it =
                std::find_if(overview.begin(), overview.end(), [&](const auto& r) { return r[0] == name; });
            ASSERT_NE(it, overview.end()) << name;
            for (const auto& [key, cell] : row.as_object()) {
                if (key == "sample") continue;
                const auto col = std::find(overview[0].begin(), overview[0].end(), key) - overview[0].begin();
                ASSERT_LT(static_cast<std::size_t>(col), overview[0].size()) << key;
                EXPECT_EQ((*it)[static_cast<std::size_t>(col)], cell.as_string()) << key << " " << name;
                ++compared;
            }
        }
        EXPECT_GT(compared, 10);
    }
}

INSTANTIATE_TEST_SUITE_P(YieldTables, CabinetryTables,
                         ::testing::Values("example", "sbottom_regionA_1300_205_60"));

}  // namespace
}  // namespace hf::test
