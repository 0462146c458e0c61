// `hfcore scan` (and a profile scan) as a long run: interrupted by SIGINT/SIGTERM at random moments or killed
// (SIGKILL), then resumed, it ends with the output of an uninterrupted run byte for byte; a stopped or killed
// run leaves no final file (only its journal); an output path that cannot be written fails before the work.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
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

Process spawn(const std::vector<std::string>& args, const fs::path& err) {
    std::vector<std::string> argv_s{HFCORE_CLI_PATH};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    Process p;
    p.err = err;
    EXPECT_EQ(posix_spawn(&p.pid, argv[0], &fa, nullptr, argv.data(), environ), 0);
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

// Waits until the run has journaled its first unit (or ended), so a signal lands during the work, not while the
// program is still loading.
void wait_for_first_unit(const fs::path& journal, pid_t pid) {
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
        std::ifstream in(journal);
        std::string line;
        int lines = 0;
        while (std::getline(in, line)) ++lines;
        if (lines >= 2) return;
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
    double seconds = 0;             // how long the uninterrupted run took

    void SetUp() override {
        dir = fs::temp_directory_path() / ("hfcore_scan_interrupt_" + std::to_string(::getpid()));
        fs::remove_all(dir);
        fs::create_directories(dir);
        args = {"scan", example()};
        // 30 signals of different strengths; with upper limits each takes a few tens of ms.
        for (int i = 0; i < 30; ++i) {
            const auto f = dir / ("patch.s" + std::to_string(i) + ".json");
            std::ofstream(f) << R"([{"op": "replace", "path": "/channels/0/samples/0/data", "value": [)"
                             << 2.0 + 0.7 * i << ", " << 3.0 + 1.1 * i << "]}]";
            args.push_back(f.string());
        }
        args.insert(args.end(), {"--upper-limit", "--threads", "2"});
        const auto t0 = std::chrono::steady_clock::now();
        auto a = args;
        a.insert(a.end(), {"--output-file", (dir / "reference.json").string()});
        ASSERT_EQ(wait_for(spawn(a, dir / "reference.err")), 0) << read_text(dir / "reference.err");
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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

TEST_F(ScanInterrupt, StoppedBySignalsAtRandomMomentsThenResumedGivesTheSameOutput) {
    std::mt19937 rng(20261130);
    int interrupted = 0;
    for (int trial = 0; trial < 4; ++trial) {
        const int sig = trial % 2 == 0 ? SIGINT : SIGTERM;
        const auto out = dir / ("out" + std::to_string(trial) + ".json");
        const auto journal = fs::path(out.string() + ".journal.jsonl");
        auto p = spawn(with_output(out, false), dir / "run.err");
        wait_for_first_unit(journal, p.pid);
        const double delay = std::uniform_real_distribution<double>(0.0, 0.6)(rng) * seconds;
        std::this_thread::sleep_for(std::chrono::duration<double>(delay));
        ::kill(p.pid, sig);
        const int rc = wait_for(p);
        if (rc == 0) {  // finished before the signal
            EXPECT_EQ(read_text(out), reference);
            continue;
        }
        ++interrupted;
        EXPECT_EQ(rc, 128 + sig) << read_text(p.err);
        expect_no_partial_output(out);
        ASSERT_TRUE(fs::exists(journal));
        EXPECT_NE(read_text(p.err).find("--resume"), std::string::npos) << read_text(p.err);
        auto r = spawn(with_output(out, true), dir / "resume.err");
        ASSERT_EQ(wait_for(r), 0) << read_text(r.err);
        EXPECT_EQ(read_text(out), reference) << "trial " << trial << " after " << delay << " s";
        EXPECT_FALSE(fs::exists(journal));
    }
    EXPECT_GE(interrupted, 2) << "the scan finished before most signals (" << seconds << " s)";
}

TEST_F(ScanInterrupt, KilledLeavesNoFinalFileAndResumes) {
    const auto out = dir / "killed.json";
    auto p = spawn(with_output(out, false), dir / "kill.err");
    wait_for_first_unit(fs::path(out.string() + ".journal.jsonl"), p.pid);
    std::this_thread::sleep_for(std::chrono::duration<double>(0.2 * seconds));
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
    auto p = spawn(with_output(out, false), dir / "c.err");
    wait_for_first_unit(fs::path(out.string() + ".journal.jsonl"), p.pid);
    ::kill(p.pid, SIGKILL);
    wait_for(p);
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
    auto p = spawn(with("stopped.json", false), dir / "stop.err");
    wait_for_first_unit(dir / "stopped.json.journal.jsonl", p.pid);
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
