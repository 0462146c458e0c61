#!/usr/bin/env bash
# Release build of the whole tree: core, plugins (cpu, opencl, cuda when nvcc is found), CLI, tests, benchmarks.
set -euo pipefail
cmake --preset release
cmake --build --preset release
