#!/usr/bin/env bash
# Builds hfcore (release preset: core, cpu, opencl and cuda plugins, CLI, tests) and runs every test.
# Installs missing Debian packages first, so a fresh machine needs nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# PoCL compiles OpenCL kernels on first use; keep its cache with the build so later runs start warm.
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$PWD/build/pocl-cache}"
mkdir -p "$POCL_CACHE_DIR"
cmake --preset release
cmake --build --preset release
# Warm PoCL's kernel cache once (CLBlast's GEMM kernels take ~60 s per precision to build on 2 cores), so the
# parallel test processes below load compiled kernels instead of each building them.
if [ -x build/release/bin/test_opencl ]; then
    build/release/bin/test_opencl --gtest_brief=1 \
        --gtest_filter='*Matmul*:*MatchesCpuPlugin*:*Sorts*:*MaskedSelect*' >/dev/null 2>&1 || true
fi
ctest --preset release -j2
