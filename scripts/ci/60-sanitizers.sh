#!/usr/bin/env bash
# Sanitizer passes (issues 18, 34): scripts/sanitizers.sh, both passes. ASan + UBSan over every suite stage 20
# runs (CUDA's aside): model, workspace, inference, conformance (cpu and opencl), plugin loading, threads, run
# (executor, journal, interrupted CLI runs), diagnostics, bad input and opencl; TSan over the thread suite, the
# executor and journal, and the diagnostics that run on threads. Each pass builds only its suites, in its own
# tree (build/asan, build/tsan). A sanitizer report fails the stage with the suite's full log.
set -euo pipefail
bash scripts/sanitizers.sh
