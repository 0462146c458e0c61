#!/usr/bin/env bash
# Fills .devicedeps/ with the Debian packages hfcore builds against, for tests/gpu/run-on-device.sh on a GPU
# machine that has nvcc, CMake and g++ but neither network nor hfcore's dependencies. Run it here (Debian 12,
# apt with network), then carry the folder along: the device tool's `carry: [".devicedeps"]` (it is ignored
# by git: .gitignore).
#
# Usage: tests/gpu/prepare-device-deps.sh [dest]        (dest defaults to <repo>/.devicedeps)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DEST=${1:-$ROOT/.devicedeps}
# The carried tree (sources + this folder) must stay under the device tool's 64 MiB.
LIMIT_MIB=${HFCORE_DEVICEDEPS_LIMIT_MIB:-52}

# What CMakeLists.txt finds, and what the cpu plugin and the benchmarks need. Runtime libraries are included
# because the device image has none of them (libssl3 probably has a twin there; carrying ours is harmless).
PKGS=(
  libboost1.74-dev                                   # Boost headers (Boost.DLL, Boost.Math): 9.5 MB of the total
  libsimdjson-dev libsimdjson14
  libnlopt-cxx-dev libnlopt-cxx0 libnlopt-dev libnlopt0
  libssl-dev libssl3
  libgtest-dev libgmock-dev
  libxtensor-dev xtl-dev libxsimd-dev nlohmann-json3-dev libxtensor-blas-dev
  libopenblas-dev libopenblas0 libopenblas0-pthread libopenblas-pthread-dev libgfortran5 libquadmath0
  libcli11-dev libfmt-dev libfmt9
  libbenchmark-dev libbenchmark1debian
)

mkdir -p "$DEST"
cd "$DEST"
rm -f ./*.deb
if ! apt-get download "${PKGS[@]}" >/dev/null 2>download.err; then
  echo "prepare-device-deps: apt-get download failed, refreshing the package lists once" >&2
  if [ "$(id -u)" -eq 0 ]; then apt-get update -qq; else sudo apt-get update -qq; fi
  apt-get download "${PKGS[@]}" >/dev/null
fi
rm -f download.err

total_kib=$(du -sk . | cut -f1)
printf '%-34s %10s\n' "package" "size"
for f in ./*.deb; do printf '%-34s %8s KiB\n' "$(basename "$f" | cut -d_ -f1)" "$(du -k "$f" | cut -f1)"; done
printf '%-34s %8s KiB  (%d files)\n' "total" "$total_kib" "$(ls ./*.deb | wc -l)"
if [ "$total_kib" -gt $((LIMIT_MIB * 1024)) ]; then
  echo "prepare-device-deps: $DEST holds more than $LIMIT_MIB MiB: the device tool carries 64 MiB in all" >&2
  exit 1
fi
echo "prepare-device-deps: ready in $DEST; on the device: bash tests/gpu/run-on-device.sh (carry .devicedeps)"
