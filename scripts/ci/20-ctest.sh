#!/usr/bin/env bash
# The C++ suites (GoogleTest through CTest) on the release build. CI always has the cpu and opencl plugins
# usable: a missing one fails here with the reason. A skipped test is not a passed one: after ctest the stage
# fails when any test was skipped other than the CUDA ones on a machine without an NVIDIA GPU, and prints the
# number skipped.
set -euo pipefail
build=build/release

backends=$("$build/bin/hfcore" backends 2>&1) || true
for plugin in cpu opencl; do
    if ! grep -Eq "^$plugin +usable" <<<"$backends"; then
        echo "20-ctest: the $plugin plugin is not usable here, and every CI run needs it. 'hfcore backends' says:" >&2
        sed 's/^/    /' <<<"$backends" >&2
        exit 1
    fi
done

# Warm PoCL's kernel cache once (CLBlast's GEMM kernels take ~60 s per precision to build on 2 cores), so the
# parallel test processes below load compiled kernels instead of each building them.
"$build/bin/test_opencl" --gtest_brief=1 \
    --gtest_filter='*Matmul*:*MatchesCpuPlugin*:*Sorts*:*MaskedSelect*' >/dev/null 2>&1 || true

log="$build/ctest.log"
t0=$SECONDS
set +e
ctest --preset release -j2 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
echo "20-ctest: ctest took $((SECONDS - t0)) s"

# A tree configured without tests, or with a suite that lost its tests, must not pass: ctest's preset fails on none
# (noTestsAction), and the count must reach a floor (1608 tests when this was written, less those added since).
min_tests=1500
n_tests=$(grep -oE 'tests? failed out of [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1 || true)
if [ -z "$n_tests" ] || [ "$n_tests" -lt "$min_tests" ]; then
    echo "20-ctest: ${n_tests:-no} tests ran, fewer than the floor of $min_tests" >&2
    exit 1
fi
echo "20-ctest: $n_tests tests (floor $min_tests)"

# CTest lists every test that did not run at the end: "  123 - Suite.Name/param (Skipped)".
not_run=$(sed -n '/The following tests did not run:/,/^$/p' "$log" | grep -E '^[[:space:]]+[0-9]+ - ' || true)
gpu=no
if { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; } || [ -e /dev/nvidia0 ]; then gpu=yes; fi
if [ "$gpu" = no ]; then
    allowed='[Cc][Uu][Dd][Aa]'          # every CUDA test may skip without a GPU
else
    allowed='CudaWithoutDevice\.'       # with a GPU, only the checks of the no-device path
fi
n_skipped=$(grep -c . <<<"$not_run" || true)
[ -n "$not_run" ] || n_skipped=0
unexpected=$(grep -Ev -- "$allowed" <<<"$not_run" || true)
n_unexpected=0
[ -z "$unexpected" ] || n_unexpected=$(grep -c . <<<"$unexpected")
echo "20-ctest: $n_skipped tests skipped ($((n_skipped - n_unexpected)) CUDA tests, NVIDIA GPU here: $gpu)"
if [ "$n_unexpected" -gt 0 ]; then
    echo "20-ctest: $n_unexpected tests skipped that must run on every CI machine (a skip is not a pass):" >&2
    sed 's/^/    /' <<<"$unexpected" >&2
    exit 1
fi
exit "$rc"
