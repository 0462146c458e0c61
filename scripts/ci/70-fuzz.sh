#!/usr/bin/env bash
# Fuzzing regression (issues 18, 34): every libFuzzer target (fuzz/fuzz_*.cpp: workspace, JSON Patch, PatchSet,
# the parameter-point / data JSON of `hfcore eval`, model construction and the packer, the journal and its
# --resume reader, the command line's options) built with clang (ASan + UBSan + libFuzzer, from the libhfcore
# sources each exercises; scripts/run-fuzzer.sh), and the atheris target of the Python module's conversions
# (fuzz/python/fuzz_conversions.py, in stage 30's venv with atheris added), each run for FUZZ_SECONDS (default
# 20) from its committed seeds fuzz/corpus/TARGET/ (workspace also from tests/workspace/malformed/), two at a
# time. The corpus copy grows in build/fuzz-ci/ and is thrown away: the committed seeds stay as they are.
#
# Fails on a crash, leak, sanitizer report or broken invariant (printing the reproducer's path), and on a run
# that executed fewer inputs than its floor (libFuzzer's stat::number_of_executed_units, -print_final_stats=1):
# a target that stalls (a slow path, a seed that times out, a build that starts and stops at once) would otherwise pass
# having tested nothing. The floors, per 30 s and scaled to FUZZ_SECONDS, are a third or less of what each target
# executed on the shared 2-core development machine while other builds loaded it about tenfold, far below a quiet
# CI machine's counts for the first four (the stage's log shows each run's count against its floor); cli_options,
# which runs whole CLI commands, made 387 in 20 s niced under a load of 10 (2026-12-06), so its floor is lower. The
# long runs (10^7 executions each) are `scripts/run-fuzzer.sh SECONDS TARGET` with
# FUZZ_FLAGS=-runs=10000000 (figures in docs/workspace.md).
set -euo pipefail
root=$PWD
seconds=${FUZZ_SECONDS:-20}
build=$root/build/fuzz-ci
venv=${FUZZ_VENV:-$root/build/python-venv}
declare -A floor_per_30s=(
    [workspace]=20000 [patch]=20000 [patchset]=20000 [eval_inputs]=20000
    [model]=3000 [journal]=1500 [cli_options]=450 [conversions]=3000
)
rm -rf "$build"
mkdir -p "$build"
t0=$SECONDS
BUILD_DIR=$build scripts/run-fuzzer.sh 0 all > "$build/build.log" 2>&1 || { cat "$build/build.log"; exit 1; }
echo "70-fuzz: built the libFuzzer targets in $((SECONDS - t0)) s"
[ -x "$venv/bin/python" ] || { echo "70-fuzz: no Python venv at $venv (stage 30 makes it; or set FUZZ_VENV)" >&2; exit 1; }
t0=$SECONDS
"$venv/bin/python" -c "import atheris" 2>/dev/null || "$venv/bin/pip" install --quiet atheris
echo "70-fuzz: atheris ready in $venv in $((SECONDS - t0)) s"
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1"
# The command line's seeds name ws.json in the working folder: the example workspace.
cp "$root/examples/workspaces/example.json" "$build/ws.json"

run() {  # target
    local t=$1 seeds=$build/seeds-$1 dict=$root/fuzz/$1.dict
    local -a program
    mkdir -p "$seeds" "$build/corpus-$t"
    cp "$root/fuzz/corpus/$t"/* "$seeds"/
    [ "$t" = workspace ] && for f in "$root"/tests/workspace/malformed/*.json; do
        { printf '\x00'; cat "$f"; } > "$seeds/malformed_$(basename "$f")"; done
    [ -f "$dict" ] || dict=$root/fuzz/workspace.dict
    if [ "$t" = conversions ]; then
        program=("$venv/bin/python" "$root/fuzz/python/fuzz_conversions.py")
    else
        program=("./fuzz_$t" -dict="$dict")
    fi
    if (cd "$build" && "${program[@]}" "corpus-$t" "$seeds" -max_total_time="$seconds" -max_len=65536 -timeout=20 \
            -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/crash-$t-" > "$build/$t.log" 2>&1); then
        local runs floor
        runs=$(awk '/^stat::number_of_executed_units/ {print $2}' "$build/$t.log")
        floor=$(( ${floor_per_30s[$t]} * seconds / 30 ))
        if [ -z "$runs" ] || [ "$runs" -lt "$floor" ]; then
            echo "70-fuzz: $t executed ${runs:-no (no final stats)} inputs in ${seconds} s, below its floor of $floor;" \
                 "the end of its log:"
            tail -30 "$build/$t.log"
            return 1
        fi
        echo "70-fuzz: $t: $runs executions in ${seconds} s (floor $floor), no crash" \
             "($(ls "$build/corpus-$t" | wc -l) corpus files)"
    else
        echo "70-fuzz: $t FAILED; the end of its log:"
        tail -60 "$build/$t.log"
        return 1
    fi
}
failed=0
for pair in "workspace patch" "patchset eval_inputs" "model journal" "cli_options conversions"; do
    read -r first second <<<"$pair"
    run "$first" & a=$!
    run "$second" & b=$!
    wait $a || failed=1
    wait $b || failed=1
done
exit $failed
