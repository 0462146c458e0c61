// The x86-64 vector level host kernels run at, shared by libhfcore (core/numerics/lanes.cpp) and the cpu plugin
// (plugins/cpu/simd.cpp), and offered to out-of-tree plugins: one detection, one cap (HFCORE_CPU_SIMD), one way to
// compile a kernel per level and call the chosen one. Header-only: each binary that includes it keeps its own
// choice, and all of them read the CPU and the variable the same way, so they agree.
//
// Why a switch over functions compiled with target attributes rather than ifuncs (target_clones): no resolver
// runs while a library is relocated (under ThreadSanitizer one crashed dlopen), and each level may use its own
// vector width in the source. docs/decisions/host-vector-levels.md.
#pragma once

#include <cstdlib>
#include <string>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HFCORE_VECTOR_LEVELS 1
#define HFCORE_TARGET_V4 __attribute__((target("arch=x86-64-v4")))
#define HFCORE_TARGET_V3 __attribute__((target("arch=x86-64-v3")))
#else
#define HFCORE_VECTOR_LEVELS 0
#define HFCORE_TARGET_V4
#define HFCORE_TARGET_V3
#endif

namespace hf::vector_level {

// avx512: x86-64-v4 (AVX-512 F/DQ/VL/BW); avx2: x86-64-v3 (AVX2 and FMA); baseline: what the build targets.
enum class Level { baseline, avx2, avx512 };

inline const char* name_of(Level l) {
    switch (l) {
        case Level::avx512: return "avx512";
        case Level::avx2: return "avx2";
        default: return "baseline";
    }
}

// Bytes of the level's widest vector register, for kernels that pick their vector width per level.
constexpr int native_bytes(Level l) { return l == Level::avx512 ? 64 : l == Level::avx2 ? 32 : 16; }

inline Level cpu_level() {
#if HFCORE_VECTOR_LEVELS
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw"))
        return Level::avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Level::avx2;
#endif
    return Level::baseline;
}

// The outcome of HFCORE_CPU_SIMD = `cap` (null or empty: not set) on this CPU. A name the CPU or build cannot
// run, or no level at all, is a problem (non-empty), never quietly replaced by another level: a test run at a
// level it did not get would pass for the wrong reason. With a problem, `level` is the CPU's.
struct Choice {
    Level level = Level::baseline;
    Level cpu = Level::baseline;
    bool capped = false;
    std::string problem;
};

inline Choice choose(const char* cap, Level cpu) {
    Choice r;
    r.cpu = r.level = cpu;
    if (!cap || !*cap) return r;
    const std::string want = cap;
    Level asked;
    if (want == "avx512") asked = Level::avx512;
    else if (want == "avx2") asked = Level::avx2;
    else if (want == "baseline") asked = Level::baseline;
    else {
        r.problem = "HFCORE_CPU_SIMD=" + want + " is not a vector level (avx512, avx2 or baseline)";
        return r;
    }
    if (!HFCORE_VECTOR_LEVELS && asked != Level::baseline) {
        r.problem = "HFCORE_CPU_SIMD=" + want + ": this build has the baseline level only";
        return r;
    }
    if (asked > cpu) {
        r.problem = "HFCORE_CPU_SIMD=" + want + ": this CPU supports up to " + name_of(cpu);
        return r;
    }
    r.capped = asked != cpu;
    r.level = asked;
    return r;
}

inline Choice choose_from_environment() { return choose(std::getenv("HFCORE_CPU_SIMD"), cpu_level()); }

// The level of this binary's kernels, chosen when the binary is loaded: a dynamic initialiser, so that a call of
// a host kernel (core's lanes run millions per toy study) costs one load where a function's static would cost a
// guard check at every call. Only the enum is kept, so that binaries built against different versions of this
// header never share a layout.
inline const Level chosen_level = choose_from_environment().level;
inline Level level() { return chosen_level; }

// "vector level: avx2 (HFCORE_CPU_SIMD; the CPU has avx512)", or the problem.
inline std::string description() {
    const Choice c = choose_from_environment();
    if (!c.problem.empty()) return c.problem;
    std::string d = std::string("vector level: ") + name_of(c.level);
    if (c.capped) d += std::string(" (HFCORE_CPU_SIMD; the CPU has ") + name_of(c.cpu) + ")";
    return d;
}

}  // namespace hf::vector_level

// Defines RET NAME PARAMS, which calls IMPL<bytes> ARGS compiled for the level() of this binary (bytes: the
// level's native_bytes). IMPL is a function template, inlined (always_inline) into the three per-level bodies
// so that its code takes their target. Use inside a namespace.
#define HFCORE_VECTOR_ENTRY(RET, NAME, PARAMS, ARGS, IMPL)                        \
    namespace {                                                                    \
    HFCORE_TARGET_V4 RET NAME##_avx512 PARAMS { return IMPL<64> ARGS; }            \
    HFCORE_TARGET_V3 RET NAME##_avx2 PARAMS { return IMPL<32> ARGS; }              \
    RET NAME##_baseline PARAMS { return IMPL<16> ARGS; }                           \
    }                                                                              \
    RET NAME PARAMS {                                                              \
        switch (::hf::vector_level::level()) {                                     \
            case ::hf::vector_level::Level::avx512: return NAME##_avx512 ARGS;     \
            case ::hf::vector_level::Level::avx2: return NAME##_avx2 ARGS;         \
            default: return NAME##_baseline ARGS;                                  \
        }                                                                          \
    }
