#!/usr/bin/env bash
# Builds hfcore and runs every test: the stages in scripts/ci/ in the order of their numbers (build, the C++
# suites, and what later stages add). Installs missing Debian packages first, so a fresh machine needs nothing
# else. A failing stage stops the run with its name.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

# What every CI run has and needs: the reference data in ../shared and an OpenCL platform with a device (PoCL).
# A missing one fails the run here, saying what is missing, instead of turning hundreds of tests into skips
# (the stage 20-ctest.sh also requires the cpu and opencl plugins to be usable, and no skipped test but CUDA's).
fail_prerequisite() {
    echo "== test.sh: missing prerequisite: $*" >&2
    exit 1
}
shared="${HFCORE_SHARED_DIR:-$PWD/../shared}"
for f in validation/pyhf-validation/index.json data/atlas-3l-erjr/BkgOnly.json data/atlas-3l-erjr/expected.json; do
    [ -f "$shared/$f" ] || fail_prerequisite "the shared reference data: $shared/$f not found." \
        "Tests read ../shared beside the repository (validation cases, ATLAS models); clone or link it there, or" \
        "set HFCORE_SHARED_DIR to its location."
done
if ! clinfo -l 2>/dev/null | grep -q "Device #"; then
    fail_prerequisite "an OpenCL platform with a device (PoCL, Debian package pocl-opencl-icd): 'clinfo -l' lists" \
        "none (OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-unset}, vendors in /etc/OpenCL/vendors:" \
        "$(ls /etc/OpenCL/vendors 2>/dev/null | tr '\n' ' ')). The OpenCL suites need it."
fi
echo "== test.sh: prerequisites found: shared data in $shared, OpenCL platform: $(clinfo -l | head -n 1)"
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
