#!/usr/bin/env bash
# Sanitizer passes (issue 18): scripts/sanitizers.sh, both passes. ASan + UBSan over the model, workspace,
# inference, conformance (cpu and opencl), plugin-loading and thread suites; TSan over the thread suite (one
# model and one backend shared by 8 threads, per plugin). Each pass builds only its suites, in its own tree
# (build/asan, build/tsan). A sanitizer report fails the stage with the suite's full log. Measured on the 2-core
# machine (with other work running): asan build 453 s, its suites 187 s; tsan build (the library,
# the cpu and opencl plugins and one suite) 92 s, its suite 2 s.
set -euo pipefail
bash scripts/sanitizers.sh
