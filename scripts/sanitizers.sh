#!/usr/bin/env bash
# Sanitizer passes (issues 18, 34), each on a build of only what its suites need; CI stage 60-sanitizers runs both.
#     scripts/sanitizers.sh                 # both passes; SANITIZERS="asan" or "tsan" for one
#   asan  AddressSanitizer + UndefinedBehaviorSanitizer (preset asan: -O1 -g1, no CUDA, no benchmarks) over every
#         suite stage 20 runs (CUDA's aside: no CUDA in this build): model, workspace, inference, conformance (cpu
#         and opencl plugins), plugin loading, threads, run (executor, journal, interrupted CLI runs),
#         diagnostics, bad input (C++ API and CLI), opencl, analysis workflows and input gradients. Leak checking is on; the suppressions name the
#         OpenCL runtime only (scripts/sanitizers/lsan.supp). PoCL's kernel compiler (LLVM) runs inside the
#         process uninstrumented, which ASan allows: it only misses errors inside PoCL itself.
#   tsan  ThreadSanitizer (preset tsan) over the thread suite (one model and one backend shared by 8 threads,
#         per plugin: cpu, opencl), the executor and journal (units on 1-64 threads, resume), and the
#         diagnostics that run on threads (batched fixed fits, held fits in blocks: ranking and profiles).
#         No test that starts the CLI runs here, so the tsan tree does not build it (tests/CMakeLists.txt).
# Each suite binary runs once (not one process per test: plugin and PoCL start-up under a sanitizer cost seconds),
# two at a time. A sanitizer report fails the stage: UBSan does not recover (-fno-sanitize-recover), ASan and
# TSan halt on the first error. The suites that start the CLI (run, inputs, diagnostics) run the ASan build's
# hfcore, with the same options (the environment carries them).
set -euo pipefail
root=$PWD
supp=$root/scripts/sanitizers
passes=${SANITIZERS:-asan tsan}
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# run_suites BUILD_DIR SUITE[:GTEST_FILTER]... : two at a time, each log printed in full only when it fails.
run_suites() {
    local dir=$1; shift
    local logs=$dir/sanitizer-logs failed=0
    mkdir -p "$logs"
    local -a pids=() names=()
    for spec in "$@"; do
        local suite=${spec%%:*} filter='*'
        [ "$spec" != "$suite" ] && filter=${spec#*:}
        (
            t0=$SECONDS
            if "$dir/bin/$suite" --gtest_brief=1 --gtest_filter="$filter" > "$logs/$suite.log" 2>&1; then
                echo "sanitizers: $(basename "$dir") $suite passed in $((SECONDS - t0)) s:" \
                     "$(grep -E '^\[  PASSED  \]|tests? skipped|^\[  SKIPPED \] [0-9]' "$logs/$suite.log" | tr '\n' ' ')"
            else
                echo "sanitizers: $(basename "$dir") $suite FAILED after $((SECONDS - t0)) s; its log:"
                cat "$logs/$suite.log"
                exit 1
            fi
        ) &
        pids+=($!)
        names+=("$suite")
        if [ ${#pids[@]} -ge 2 ]; then
            wait "${pids[0]}" || failed=1
            pids=("${pids[@]:1}")
        fi
    done
    for p in "${pids[@]}"; do wait "$p" || failed=1; done
    return $failed
}

if [[ " $passes " == *" asan "* ]]; then
    export ASAN_OPTIONS="detect_leaks=1:protect_shadow_gap=0:halt_on_error=1:strict_string_checks=1"
    export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
    cmake --preset asan > /dev/null
    t0=$SECONDS
    cmake --build build/asan -j2 --target test_model test_workspace test_infer test_conformance test_plugins \
        test_threads test_run test_diagnostics test_inputs test_opencl test_analysis test_grad
    echo "sanitizers: asan build took $((SECONDS - t0)) s"
    t0=$SECONDS
    # Longest first, so that the two queues finish together.
    run_suites build/asan test_infer test_conformance test_run test_diagnostics test_opencl test_inputs test_model \
        test_workspace test_analysis test_grad test_plugins test_threads
    echo "sanitizers: asan suites took $((SECONDS - t0)) s"
fi

if [[ " $passes " == *" tsan "* ]]; then
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$supp/tsan.supp"
    cmake --preset tsan > /dev/null
    t0=$SECONDS
    cmake --build build/tsan -j2 --target test_threads test_run test_diagnostics
    echo "sanitizers: tsan build took $((SECONDS - t0)) s"
    t0=$SECONDS
    run_suites build/tsan test_threads "test_run:Executor.*:Journal.*:AtomicFile.*:Mpi.*" \
        "test_diagnostics:Engine.*Threads*"
    echo "sanitizers: tsan suites took $((SECONDS - t0)) s"
fi
