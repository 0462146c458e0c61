// The executor of long runs: units dealt to threads, results in unit order whatever the layout, errors kept
// per unit, the journal (append, fsync, resume, digest check, torn last line), interrupts, atomic writes.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "hfcore/executor.hpp"
#include "test_support.hpp"

namespace hf::test {
namespace {

namespace fs = std::filesystem;

fs::path temp_path(const std::string& name) {
    return fs::temp_directory_path() / ("hfcore_run_" + std::to_string(::getpid()) + "_" + name);
}

std::vector<std::string> keys_of(std::size_t n) {
    std::vector<std::string> k;
    for (std::size_t i = 0; i < n; ++i) {
        std::string key = "u";  // appended, not "u" + ...: GCC 12 warns falsely (-Wrestrict) on the latter here
        key += std::to_string(i);
        k.push_back(std::move(key));
    }
    return k;
}

// Unit i -> {"i": i, "sq": i*i / 7} (a non-trivial double that must survive the journal bit for bit).
run::UnitFn square(std::atomic<int>* calls = nullptr) {
    return [calls](std::size_t i) {
        if (calls) ++*calls;
        json::Object o;
        o.set("i", json::Value(static_cast<std::int64_t>(i)));
        o.set("sq", json::Value(static_cast<double>(i * i) / 7.0));
        return json::Value(std::move(o));
    };
}

TEST(Executor, ResultsInUnitOrderForAnyThreadCount) {
    const auto keys = keys_of(57);
    std::vector<json::Value> first;
    for (int threads : {1, 2, 5, 64}) {
        run::ExecutorOptions opt;
        opt.threads = threads;
        std::atomic<int> factories{0};
        auto res = run::run_units(keys, [&](int) { ++factories; return square(); }, opt);
        ASSERT_EQ(res.results.size(), keys.size());
        EXPECT_FALSE(res.interrupted);
        EXPECT_EQ(res.computed, keys.size());
        EXPECT_LE(factories.load(), threads);  // one state per worker thread, made in that thread
        for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(res.results[i]["i"].as_double(), double(i));
        if (first.empty()) first = res.results;
        EXPECT_EQ(json::dump(json::Value(json::Array(res.results.begin(), res.results.end()))),
                  json::dump(json::Value(json::Array(first.begin(), first.end()))))
            << threads << " threads";
    }
}

TEST(Executor, AFailingUnitIsAnErrorWhileTheOthersFinish) {
    run::ExecutorOptions opt;
    opt.threads = 3;
    auto res = run::run_units(keys_of(10), [](int) -> run::UnitFn {
        return [](std::size_t i) -> json::Value {
            if (i == 4) throw InputError("patch.json", "/0/path", "no such path");
            return json::Value(static_cast<std::int64_t>(i));
        };
    }, opt);
    ASSERT_EQ(res.results.size(), 10u);
    EXPECT_TRUE(run::is_error(res.results[4]));
    EXPECT_NE(res.results[4]["error"].as_string().find("patch.json: /0/path: no such path"), std::string::npos);
    for (std::size_t i : {0u, 3u, 5u, 9u}) EXPECT_EQ(res.results[i].as_double(), double(i));
}

TEST(Executor, DefaultThreadsFollowHfcoreNumThreads) {
    ::setenv("HFCORE_NUM_THREADS", "3", 1);
    EXPECT_EQ(run::default_threads(), 3);
    EXPECT_EQ(run::resolve_threads(0), 3);
    EXPECT_EQ(run::resolve_threads(5), 5);
    ::setenv("HFCORE_NUM_THREADS", "zero", 1);
    EXPECT_EQ(run::default_threads(), run::available_cores());
    ::unsetenv("HFCORE_NUM_THREADS");
    EXPECT_GE(run::available_cores(), 1);
}

TEST(Journal, ResumeSkipsJournaledUnitsAndGivesTheSameResults) {
    const auto path = temp_path("resume.jsonl");
    fs::remove(path);
    const auto keys = keys_of(20);
    std::vector<json::Value> full;
    {
        run::ExecutorOptions opt;
        opt.threads = 2;
        full = run::run_units(keys, [](int) { return square(); }, opt).results;
    }
    // A first run stopped after 7 units (by a signal), then resumed.
    {
        auto j = run::Journal::open(path.string(), "test", "digest-1", false);
        run::ExecutorOptions opt;
        opt.threads = 1;
        opt.journal = j.get();
        std::atomic<int> calls{0};
        auto res = run::run_units(keys, [&](int) -> run::UnitFn {
            return [&](std::size_t i) {
                if (++calls == 7) run::request_stop(SIGINT);
                return square()(i);
            };
        }, opt);
        run::clear_stop();
        EXPECT_TRUE(res.interrupted);
        EXPECT_EQ(res.computed, 7u);
        EXPECT_EQ(j->size(), 7u);
    }
    {
        auto j = run::Journal::open(path.string(), "test", "digest-1", true);
        EXPECT_EQ(j->resumed(), 7u);
        run::ExecutorOptions opt;
        opt.threads = 3;
        opt.journal = j.get();
        std::atomic<int> calls{0};
        auto res = run::run_units(keys, [&](int) { return square(&calls); }, opt);
        EXPECT_FALSE(res.interrupted);
        EXPECT_EQ(calls.load(), 13);
        EXPECT_EQ(res.resumed, 7u);
        for (std::size_t i = 0; i < keys.size(); ++i)
            EXPECT_EQ(json::dump(res.results[i]), json::dump(full[i])) << i;
        j->remove();
    }
    EXPECT_FALSE(fs::exists(path));
}

TEST(Journal, RefusesOtherInputsAnOverwriteAndForeignFiles) {
    const auto path = temp_path("digest.jsonl");
    fs::remove(path);
    { auto j = run::Journal::open(path.string(), "scan", "aaaa", false); j->record("k", json::Value(1.5)); }
    EXPECT_THROW(run::Journal::open(path.string(), "scan", "aaaa", false), InputError);  // would lose results
    try {
        run::Journal::open(path.string(), "scan", "bbbb", true);
        FAIL() << "a changed digest was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("differ"), std::string::npos) << e.what();
    }
    EXPECT_THROW(run::Journal::open(path.string(), "cls", "aaaa", true), InputError);
    auto j = run::Journal::open(path.string(), "scan", "aaaa", true);
    ASSERT_NE(j->find("k"), nullptr);
    EXPECT_EQ(j->find("k")->as_double(), 1.5);
    j->remove();
    std::ofstream(path) << "{\"not\": \"a journal\"}\n";
    EXPECT_THROW(run::Journal::open(path.string(), "scan", "aaaa", true), InputError);
    fs::remove(path);
}

TEST(Journal, ATornLastLineIsDroppedAndOverwritten) {
    const auto path = temp_path("torn.jsonl");
    fs::remove(path);
    {
        auto j = run::Journal::open(path.string(), "scan", "d", false);
        j->record("a", json::Value(1.0));
        j->record("b", json::Value(2.0));
    }
    { std::ofstream(path, std::ios::app) << R"({"key": "c", "result": 3.)"; }  // killed mid-line
    {
        auto j = run::Journal::open(path.string(), "scan", "d", true);
        EXPECT_EQ(j->resumed(), 2u);
        EXPECT_EQ(j->find("c"), nullptr);
        j->record("c", json::Value(3.25));
    }
    auto j = run::Journal::open(path.string(), "scan", "d", true);
    EXPECT_EQ(j->resumed(), 3u);
    EXPECT_EQ(j->find("c")->as_double(), 3.25);
    j->remove();
}

TEST(Journal, NonFiniteResultsSurviveTheJournal) {
    const auto path = temp_path("nan.jsonl");
    fs::remove(path);
    const auto keys = keys_of(2);
    auto nan_unit = [](int) -> run::UnitFn {
        return [](std::size_t i) {
            json::Array a{json::Value(std::nan("")), json::Value(i == 0 ? HUGE_VAL : -HUGE_VAL), json::Value(0.5)};
            return json::Value(std::move(a));
        };
    };
    {
        auto j = run::Journal::open(path.string(), "t", "d", false);
        run::ExecutorOptions opt;
        opt.journal = j.get();
        run::run_units(keys, nan_unit, opt);
    }
    auto j = run::Journal::open(path.string(), "t", "d", true);
    run::ExecutorOptions opt;
    opt.journal = j.get();
    auto res = run::run_units(keys, [](int) -> run::UnitFn { return [](std::size_t) -> json::Value { throw Error("recomputed"); }; }, opt);
    EXPECT_EQ(res.resumed, 2u);
    EXPECT_TRUE(std::isnan(res.results[0][0].as_double()));
    EXPECT_EQ(res.results[0][1].as_double(), HUGE_VAL);
    EXPECT_EQ(res.results[1][1].as_double(), -HUGE_VAL);
    EXPECT_EQ(res.results[1][2].as_double(), 0.5);
    j->remove();
}

TEST(AtomicFile, ReplacesWholeAndChecksWritableBeforeWork) {
    const auto dir = temp_path("atomic");
    fs::create_directories(dir);
    const auto out = dir / "out.json";
    run::write_file_atomic(out.string(), "first");
    run::write_file_atomic(out.string(), "second, longer");
    EXPECT_EQ(read_text(out), "second, longer");
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
    EXPECT_EQ(files, 1u);  // no temporary file left
    EXPECT_NO_THROW(run::check_writable(out.string()));
    EXPECT_NO_THROW(run::check_writable((dir / "new.json").string()));
    EXPECT_FALSE(fs::exists(dir / "new.json"));
    EXPECT_THROW(run::check_writable((dir / "no" / "such" / "dir.json").string()), InputError);
    EXPECT_THROW(run::check_writable(dir.string()), InputError);  // a folder in the way
    EXPECT_THROW(run::write_file_atomic((dir / "no" / "x.json").string(), "x"), InputError);
    // Folders nobody may create a file in, root included (CI runs as root, which a chmod does not stop): a
    // "folder" that is a regular file, and sysfs, which has no way to create a file whatever the permissions.
    run::write_file_atomic((dir / "plain").string(), "a file, not a folder");
    EXPECT_THROW(run::check_writable((dir / "plain" / "x.json").string()), InputError);
    EXPECT_THROW(run::write_file_atomic((dir / "plain" / "x.json").string(), "x"), InputError);
    ASSERT_TRUE(fs::is_directory("/sys"));
    EXPECT_THROW(run::check_writable("/sys/hfcore-check-writable.json"), InputError);
    EXPECT_THROW(run::write_file_atomic("/sys/hfcore-check-writable.json", "x"), InputError);
    // A folder without write permission stops only other users (root writes anywhere).
    if (::geteuid() != 0) {
        fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
        EXPECT_THROW(run::check_writable((dir / "x.json").string()), InputError);
        fs::permissions(dir, fs::perms::owner_all);
    }
    fs::remove_all(dir);
}

TEST(Mpi, WithoutMpirunOneProcess) {
    const run::Communicator c = run::Communicator::world();
    EXPECT_EQ(c.size(), 1);
    EXPECT_EQ(c.rank(), 0);
    EXPECT_FALSE(c.distributed());
    EXPECT_NE(run::mpi_description().find("MPI: "), std::string::npos);
}

}  // namespace
}  // namespace hf::test
