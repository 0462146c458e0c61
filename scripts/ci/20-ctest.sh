#!/usr/bin/env bash
# The C++ suites (GoogleTest through CTest) on the release build.
set -euo pipefail
# Warm PoCL's kernel cache once (CLBlast's GEMM kernels take ~60 s per precision to build on 2 cores), so the
# parallel test processes below load compiled kernels instead of each building them.
if [ -x build/release/bin/test_opencl ]; then
    build/release/bin/test_opencl --gtest_brief=1 \
        --gtest_filter='*Matmul*:*MatchesCpuPlugin*:*Sorts*:*MaskedSelect*' >/dev/null 2>&1 || true
fi
ctest --preset release -j2
