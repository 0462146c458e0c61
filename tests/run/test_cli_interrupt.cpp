// `hfcore scan` (and a profile scan) as a long run: interrupted by SIGINT/SIGTERM at different points or killed
// (SIGKILL), then resumed, it ends with the output of an uninterrupted run byte for byte; a stopped or killed
// run leaves no final file (only its journal); an output path that cannot be written fails before the work.
// The runs to be stopped are held after a given number of units (HFCORE_TEST_HOLD_AFTER_UNITS, the executor's
// test hook), so a signal always lands mid-run, however fast or loaded the machine.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "cli_run.hpp"

extern char** environ;

namespace hf::test {
namespace {

namespace fs = std::filesystem;

std::string example() { return (source_dir() / "examples" / "workspaces" / "example.json").string(); }

// A running `hfcore` with its stderr in a file.
struct Process {
    pid_t pid = -1;
    fs::path err;
};

// hold_after >= 0: the run deals no unit after that many are done until a signal arrives.
Process spawn(const std::vector<std::string>& args, const fs::path& err, int hold_after = -1) {
    std::vector<std::string> argv_s{HFCORE_CLI_PATH};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> env_s;
    for (char** e = environ; *e; ++e)
        if (std::string(*e).rfind("HFCORE_TEST_HOLD_AFTER_UNITS=", 0) != 0) env_s.emplace_back(*e);
    if (hold_after >= 0) env_s.push_back("HFCORE_TEST_HOLD_AFTER_UNITS=" + std::to_string(hold_after));
    std::vector<char*> envp;
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
    Process p;
    p.err = err;
    EXPECT_EQ(posix_spawn(&p.pid, argv[0], &fa, nullptr, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&fa);
    return p;
}

// Exit code, or 128 + signal when a signal ended it.
int wait_for(const Process& p) {
    int status = 0;
    waitpid(p.pid, &status, 0);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

// Waits until the run has journaled `units` units (its header line and then one line per unit) or ended. A run
// spawned with hold_after = units is then held: the signal that follows lands during the work. (The 10-minute
// limit only keeps a broken run from hanging the suite; nothing here depends on how fast the run is.)
void wait_for_units(const fs::path& journal, pid_t pid, int units = 1) {
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::minutes(10)) {
        std::ifstream in(journal);
        std::string line;
        int lines = 0;
        while (std::getline(in, line)) ++lines;
        if (lines >= 1 + units) return;
        siginfo_t info{};  // ended? (WNOWAIT: not reaped, wait_for() still sees it)
        if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0)
            return;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

class ScanInterrupt : public ::testing::Test {
protected:
    fs::path dir;
    std::vector<std::string> args;  // scan arguments without --output-file
    std::string reference;          // the uninterrupted output

    void SetUp() override {
        dir = fs::temp_directory_path() / ("hfcore_scan_interrupt_" + std::to_string(::getpid()));
        fs::remove_all(dir);
        fs::create_directories(dir);
        args = {"scan", example()};
        // 30 signals of different strengths (30 units).
        for (int i = 0; i < 30; ++i) {
            const auto f = dir / ("patch.s" + std::to_string(i) + ".json");
            std::ofstream(f) << R"([{"op": "replace", "path": "/channels/0/samples/0/data", "value": [)"
                             << 2.0 + 0.7 * i << ", " << 3.0 + 1.1 * i << "]}]";
            args.push_back(f.string());
        }
        args.insert(args.end(), {"--upper-limit", "--threads", "2"});
        auto a = args;
        a.insert(a.end(), {"--output-file", (dir / "reference.json").string()});
        ASSERT_EQ(wait_for(spawn(a, dir / "reference.err")), 0) << read_text(dir / "reference.err");
        reference = read_text(dir / "reference.json");
        ASSERT_FALSE(fs::exists(dir / "reference.json.journal.jsonl"));  // a finished run removes its journal
    }
    void TearDown() override { fs::remove_all(dir); }

    std::vector<std::string> with_output(const fs::path& out, bool resume) const {
        auto a = args;
        a.insert(a.end(), {"--output-file", out.string()});
        if (resume) a.push_back("--resume");
        return a;
    }

    // Only the output and (while unfinished) its journal: no temporary or partial file.
    void expect_no_partial_output(const fs::path& out) const {
        EXPECT_FALSE(fs::exists(out));
        for (const auto& e : fs::directory_iterator(dir))
            EXPECT_EQ(e.path().filename().string().find(out.filename().string() + ".tmp"), std::string::npos)
                << e.path();
    }
};

TEST_F(ScanInterrupt, StoppedBySignalsAtSeveralPointsThenResumedGivesTheSameOutput) {
    // of the 30 units; with 2 threads one more may finish after the hold, so at most 28 leaves work undone
    const int stop_after[] = {1, 7, 16, 27};
    for (int trial = 0; trial < 4; ++trial) {
        const int sig = trial % 2 == 0 ? SIGINT : SIGTERM;
        const auto out = dir / ("out" + std::to_string(trial) + ".json");
        const auto journal = fs::path(out.string() + ".journal.jsonl");
        auto p = spawn(with_output(out, false), dir / "run.err", stop_after[trial]);
        wait_for_units(journal, p.pid, stop_after[trial]);
        ::kill(p.pid, sig);
        const int rc = wait_for(p);
        ASSERT_EQ(rc, 128 + sig) << "trial " << trial << ": " << read_text(p.err);
        expect_no_partial_output(out);
        ASSERT_TRUE(fs::exists(journal));
        EXPECT_NE(read_text(p.err).find("--resume"), std::string::npos) << read_text(p.err);
        auto r = spawn(with_output(out, true), dir / "resume.err");
        ASSERT_EQ(wait_for(r), 0) << read_text(r.err);
        EXPECT_EQ(read_text(out), reference) << "trial " << trial << ", stopped after " << stop_after[trial] << " units";
        EXPECT_FALSE(fs::exists(journal));
    }
}

TEST_F(ScanInterrupt, KilledLeavesNoFinalFileAndResumes) {
    const auto out = dir / "killed.json";
    auto p = spawn(with_output(out, false), dir / "kill.err", 6);
    wait_for_units(fs::path(out.string() + ".journal.jsonl"), p.pid, 6);
    ::kill(p.pid, SIGKILL);
    ASSERT_EQ(wait_for(p), 128 + SIGKILL);
    expect_no_partial_output(out);
    // Without --resume the journal is not silently overwritten.
    auto again = spawn(with_output(out, false), dir / "again.err");
    EXPECT_EQ(wait_for(again), 2);
    EXPECT_NE(read_text(again.err).find("--resume"), std::string::npos) << read_text(again.err);
    auto r = spawn(with_output(out, true), dir / "resume.err");
    ASSERT_EQ(wait_for(r), 0) << read_text(r.err);
    EXPECT_EQ(read_text(out), reference);
}

TEST_F(ScanInterrupt, ResumeRefusesChangedOptions) {
    const auto out = dir / "changed.json";
    auto p = spawn(with_output(out, false), dir / "c.err", 1);
    wait_for_units(fs::path(out.string() + ".journal.jsonl"), p.pid, 1);
    ::kill(p.pid, SIGKILL);
    ASSERT_EQ(wait_for(p), 128 + SIGKILL);
    auto a = with_output(out, true);
    a.insert(a.end(), {"--test-poi", "2"});
    auto r = spawn(a, dir / "r.err");
    EXPECT_EQ(wait_for(r), 2);
    EXPECT_NE(read_text(r.err).find("differ"), std::string::npos) << read_text(r.err);
    EXPECT_FALSE(fs::exists(out));
}

// A profile scan's held fits are journaled by block: stopped by SIGINT after its first block, it resumes to the
// output of an uninterrupted run (6400 grid points, about 2 s).
TEST(ProfileInterrupt, StoppedThenResumedGivesTheSameOutput) {
    const fs::path dir = fs::temp_directory_path() / ("hfcore_profile_interrupt_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::vector<std::string> args{"profile", example(), "--par", "mu", "--range", "0,3,80", "--par", "jes",
                                        "--range", "-2,2,80", "--threads", "2", "--output-file"};
    auto with = [&](const std::string& out, bool resume) {
        auto a = args;
        a.push_back((dir / out).string());
        if (resume) a.push_back("--resume");
        return a;
    };
    ASSERT_EQ(wait_for(spawn(with("reference.json", false), dir / "ref.err")), 0) << read_text(dir / "ref.err");
    auto p = spawn(with("stopped.json", false), dir / "stop.err", 1);
    wait_for_units(dir / "stopped.json.journal.jsonl", p.pid, 1);
    ::kill(p.pid, SIGINT);
    ASSERT_EQ(wait_for(p), 130) << read_text(p.err);
    EXPECT_FALSE(fs::exists(dir / "stopped.json"));
    auto r = spawn(with("stopped.json", true), dir / "resume.err");
    ASSERT_EQ(wait_for(r), 0) << read_text(r.err);
    EXPECT_NE(read_text(r.err).find("resuming"), std::string::npos) << read_text(r.err);
    EXPECT_EQ(read_text(dir / "stopped.json"), read_text(dir / "reference.json"));
    fs::remove_all(dir);
}

TEST(CliOutput, AnUnwritableOutputFailsBeforeTheWork) {
    // 10^5 toys per point would run for many minutes: the check comes before them.
    auto r = run_cli("upper-limit " + example() + " --calctype toybased --ntoys 100000 --output-file /nonexistent/dir/out.json");
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("/nonexistent/dir/out.json"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
    auto d = run_cli("sort " + example() + " --output-file " + fs::temp_directory_path().string());
    EXPECT_EQ(d.rc, 2);
}

}  // namespace
}  // namespace hf::test
