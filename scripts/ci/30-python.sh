#!/usr/bin/env bash
# The Python package: `pip install .` of this clone into a fresh venv (scikit-build-core builds the core, the cpu
# and opencl plugins and the nanobind module from the same CMake; ccache reuses the release build's objects),
# then the pytest suite against pyhf (a test-only dependency) from outside the source tree, so the installed
# package is what is tested.
set -euo pipefail
root=$PWD
venv=$root/build/python-venv
python=${HFCORE_PYTHON:-python3}
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --upgrade pip
"$venv/bin/pip" install --quiet "numpy>=1.21" "pytest>=7" "pyhf==0.7.6"
t0=$SECONDS
"$venv/bin/pip" install --quiet "$root"
echo "30-python: pip install of the clone took $((SECONDS - t0)) s"
cd "$root/tests/python"
# -p no:cacheprovider: the clone stays clean; HFCORE_SHARED_DIR is honoured by conftest.py
"$venv/bin/python" -m pytest -q -p no:cacheprovider -W ignore::DeprecationWarning -rs .
