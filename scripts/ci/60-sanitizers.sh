#!/usr/bin/env bash
# Sanitizer passes (issue 18): scripts/sanitizers.sh, both passes. ASan + UBSan over the model, workspace,
# inference, conformance (cpu and opencl), plugin-loading and thread suites; TSan over the thread suite (one
# model and one backend shared by 8 threads, per plugin). Each pass builds only its suites, in its own tree
# (build/asan, build/tsan). A sanitizer report fails the stage with the suite's full log.
set -euo pipefail
scripts/sanitizers.sh
