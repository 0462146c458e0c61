// libFuzzer target for the journal of long runs and its `--resume` reader (core/run/journal.cpp) with the
// executor's resume (core/run/executor.cpp): the input is written as a journal file, opened with resume for
// command "cls" and the digest of the seeds (fuzz/corpus/journal/), and a run of 4 units resumes from it. Beyond
// "only hf::Error": the run has a result for every unit (taken from the journal or computed), computed units
// give their own values (NaN and infinities through the journal's {"$nonfinite"} form), and the journal
// read back afterwards holds every unit with the result the run reported.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "hfcore/executor.hpp"
#include "hfcore/json.hpp"

namespace {

[[noreturn]] void bug(const std::string& what) { hf::fuzz::bug("fuzz_journal", what); }

constexpr const char* kCommand = "cls";
constexpr const char* kDigest = "f00dfeed";

// Unit u's own result: numbers that the journal must carry exactly, NaN and infinity included.
hf::json::Value computed(std::size_t u) {
    hf::json::Object o;
    const double values[] = {0.25, std::nan(""), HUGE_VAL, -1e300};
    o.set("value", hf::json::Value(values[u % 4]));
    o.set("unit", hf::json::Value(static_cast<std::int64_t>(u)));
    return hf::json::Value(std::move(o));
}

bool same(const hf::json::Value& a, const hf::json::Value& b) {
    return hf::json::dump_canonical(a) == hf::json::dump_canonical(b);
}

// A journal result compared through JSON text, where NaN and infinities have no form: as the executor's
// {"$nonfinite"} objects, which the run decodes back.
std::string text_of(const hf::json::Value& v) {
    if (v.is_number() && !std::isfinite(v.as_double()))
        return std::isnan(v.as_double()) ? "nan" : v.as_double() > 0 ? "inf" : "-inf";
    if (v.is_object()) {
        std::string s = "{";
        for (const auto& [k, x] : v.as_object()) s += k + ":" + text_of(x) + ",";
        return s + "}";
    }
    if (v.is_array()) {
        std::string s = "[";
        for (const auto& x : v.as_array()) s += text_of(x) + ",";
        return s + "]";
    }
    return hf::json::dump_canonical(v);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // tmpfs when there is one: every recorded unit is fdatasync'ed.
    static const std::string path =
        (access("/dev/shm", W_OK) == 0 ? std::string("/dev/shm") : std::string("/tmp")) + "/hfcore_fuzz_journal_" +
        std::to_string(getpid()) + ".jsonl";
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    const std::vector<std::string> keys = {"toys:0", "toys:1", "toys:2", "toys:3"};
    try {
        auto journal = hf::run::Journal::open(path, kCommand, kDigest, true);
        std::vector<hf::json::Value> before(keys.size());
        std::vector<bool> was_there(keys.size(), false);
        for (std::size_t u = 0; u < keys.size(); ++u)
            if (const auto* r = journal->find(keys[u])) {
                before[u] = *r;
                was_there[u] = true;
            }
        hf::run::ExecutorOptions options;
        options.threads = 1;
        options.journal = journal.get();
        const auto run = hf::run::run_units(
            keys, [](int) { return [](std::size_t u) { return computed(u); }; }, options);
        if (run.results.size() != keys.size()) bug("a run without a result for every unit");
        for (std::size_t u = 0; u < keys.size(); ++u)
            if (!was_there[u] && text_of(run.results[u]) != text_of(computed(u)))
                bug("unit " + keys[u] + " computed gives " + text_of(run.results[u]));
        journal.reset();
        // Read back: every unit there, as the run reported it.
        auto again = hf::run::Journal::open(path, kCommand, kDigest, true);
        for (std::size_t u = 0; u < keys.size(); ++u) {
            const auto* r = again->find(keys[u]);
            if (!r) bug("unit " + keys[u] + " is not in the journal after the run");
            if (was_there[u] && !same(*r, before[u])) bug("unit " + keys[u] + " changed in the journal");
        }
    } catch (const hf::Error&) {
    }
    unlink(path.c_str());
    return 0;
}
