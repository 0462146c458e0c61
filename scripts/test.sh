#!/usr/bin/env bash
# Builds hfcore and runs every test: the stages in scripts/ci/ in the order of their numbers (build, the C++
# suites, and what later stages add). Installs missing Debian packages first, so a fresh machine needs nothing
# else. A failing stage stops the run with its name.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# PoCL compiles OpenCL kernels on first use; keep its cache with the build so later runs start warm.
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$PWD/build/pocl-cache}"
mkdir -p "$POCL_CACHE_DIR"
start=$SECONDS
for stage in scripts/ci/[0-9][0-9]-*.sh; do
    name=$(basename "$stage" .sh)
    echo "== test.sh: stage $name"
    t0=$SECONDS
    if ! bash "$stage"; then
        echo "== test.sh: stage $name FAILED after $((SECONDS - t0)) s" >&2
        exit 1
    fi
    echo "== test.sh: stage $name passed in $((SECONDS - t0)) s"
done
echo "== test.sh: all stages passed in $((SECONDS - start)) s"
