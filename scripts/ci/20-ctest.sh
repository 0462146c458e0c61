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
# (noTestsAction), and the count must reach a floor: when this was written 1204 tests besides the CUDA ones, and
# 404 CUDA tests where the cuda plugin is built (they skip without a GPU, but they must exist).
min_other=1150
min_cuda=380
n_tests=$(grep -oE 'tests? failed out of [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1 || true)
n_cuda=$(ctest --preset release -N 2>/dev/null | grep -Eci 'cuda' || true)
n_other=$((${n_tests:-0} - ${n_cuda:-0}))
if [ "$n_other" -lt "$min_other" ]; then
    echo "20-ctest: ${n_tests:-no} tests ran, $n_other of them not CUDA tests: fewer than the floor of $min_other" >&2
    exit 1
fi
if [ -e "$build/lib/libhfcore-backend-cuda.so" ] && [ "${n_cuda:-0}" -lt "$min_cuda" ]; then
    echo "20-ctest: the cuda plugin is built but only ${n_cuda:-0} CUDA tests exist (floor $min_cuda)" >&2
    exit 1
fi
echo "20-ctest: $n_tests tests ($n_other besides $n_cuda CUDA tests; floors $min_other and $min_cuda)"

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
