#!/usr/bin/env bash
# Fuzzing regression (issue 18): every libFuzzer target (fuzz/fuzz_*.cpp: workspace, JSON Patch, PatchSet, the
# parameter-point / data JSON of `hfcore eval`) built with clang (ASan + UBSan + libFuzzer, from the JSON and
# workspace sources only) and run for FUZZ_SECONDS (default 60) from its committed seed corpus fuzz/corpus/TARGET/
# (workspace also from the malformed test files), two targets at a time. The corpus copy grows in build/fuzz-ci/
# and is thrown away: the committed seeds stay as they are. A crash, leak, sanitizer report or broken invariant
# fails the stage and prints the reproducer's path. The long runs (10^7 executions each) are
# `scripts/run-fuzzer.sh SECONDS TARGET` with FUZZ_FLAGS=-runs=10000000 (figures in docs/workspace.md).
set -euo pipefail
root=$PWD
seconds=${FUZZ_SECONDS:-60}
build=$root/build/fuzz-ci
rm -rf "$build"
mkdir -p "$build"
t0=$SECONDS
BUILD_DIR=$build scripts/run-fuzzer.sh 0 all > "$build/build.log" 2>&1 || { cat "$build/build.log"; exit 1; }
echo "70-fuzz: built the targets in $((SECONDS - t0)) s"
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
run() {  # target
    local t=$1 seeds=$build/seeds-$1
    mkdir -p "$seeds" "$build/corpus-$t"
    cp "$root/fuzz/corpus/$t"/* "$seeds"/
    [ "$t" = workspace ] && for f in "$root"/tests/workspace/malformed/*.json; do
        { printf '\x00'; cat "$f"; } > "$seeds/malformed_$(basename "$f")"; done
    if (cd "$build" && "./fuzz_$t" "corpus-$t" "$seeds" -dict="$root/fuzz/workspace.dict" -max_total_time="$seconds" \
            -max_len=65536 -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/crash-$t-" \
            > "$build/$t.log" 2>&1); then
        echo "70-fuzz: $t: $(grep -E '^stat::number_of_executed_units' "$build/$t.log" | awk '{print $2}') executions" \
             "in ${seconds} s, no crash ($(ls "$build/corpus-$t" | wc -l) corpus files)"
    else
        echo "70-fuzz: $t FAILED; the end of its log:"
        tail -60 "$build/$t.log"
        return 1
    fi
}
failed=0
run workspace & a=$!
run patch & b=$!
wait $a || failed=1
wait $b || failed=1
run patchset & a=$!
run eval_inputs & b=$!
wait $a || failed=1
wait $b || failed=1
exit $failed
