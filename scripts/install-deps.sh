#!/usr/bin/env bash
# Installs the Debian packages hfcore needs, only those missing. Safe to run repeatedly.
set -euo pipefail
pkgs=(cmake g++ make libxtensor-dev libxtensor-blas-dev libxsimd-dev libopenblas-dev libsimdjson-dev
      pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo libclblast-dev libboost-dev
      libnlopt-cxx-dev libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev libfmt-dev libssl-dev
      python3-dev python3-venv ccache pkgconf libopenmpi-dev openmpi-bin
      clang libclang-rt-dev llvm)  # clang + libFuzzer runtime for scripts/ci/70-fuzz.sh; llvm-symbolizer for traces
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
