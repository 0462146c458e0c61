#!/usr/bin/env bash
# Builds hfcore (release preset) and runs the main job: CLs of the example workspace shipped in examples/.
# Installs missing Debian packages first, so a fresh machine needs nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target hfcore-cli hfcore-backend-cpu
build/release/bin/hfcore cls examples/workspaces/example.json "$@"
