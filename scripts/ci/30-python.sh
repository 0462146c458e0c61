#!/usr/bin/env bash
# The Python package, tested as users get it: `pip install` of this clone into a fresh venv (scikit-build-core
# builds the core, the cpu and opencl plugins and the nanobind module from the same CMake in build/pip-<tag>;
# ccache reuses the release build's objects, so only the module and the loader compile), then the pytest suite
# from outside the source tree against pyhf, a test-only dependency. The plot tests run the hfcore command of
# stage 10's release build (build/release/bin/hfcore) to make the JSON they plot.
set -euo pipefail
root=$PWD
venv=$root/build/python-venv
python=${HFCORE_PYTHON:-python3}
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --upgrade pip
# nanobind: test_package.py checks the .pyi stubs against nanobind's stubgen. cabinetry and iminuit:
# test_cabinetry.py runs cabinetry's workflow on pyhf and on hfcore (iminuit: hfcore's minuit extra).
"$venv/bin/pip" install --quiet "numpy>=1.21" "pytest>=7" "pyhf==0.7.6" nanobind "cabinetry==0.6.*" "iminuit>=2"
t0=$SECONDS
# With the plot extra (matplotlib, mplhep, scipy): tests/python/test_plot.py renders every plot kind; with the
# xml extra (uproot): tests/python/test_xml_*.py read and write HistFactory XML + ROOT files; with the minuit extra:
# minuit_optimizer's iminuit.Minuit.
# The release build's generator (Make) and compilers, so that ccache reuses stage 10's objects: its key holds the
# compile's paths relative to the working folder, which Ninja (scikit-build-core's default) sets otherwise, and
# the compiler's name (Python's sysconfig makes scikit-build-core choose g++ where CMake alone chooses c++).
release_compiler() { sed -n "s/^CMAKE_$1_COMPILER:FILEPATH=//p" "$root/build/release/CMakeCache.txt" 2>/dev/null; }
cc=$(release_compiler C) cxx=$(release_compiler CXX)
CMAKE_GENERATOR="Unix Makefiles" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
    CC="${cc:-${CC:-cc}}" CXX="${cxx:-${CXX:-c++}}" \
    "$venv/bin/pip" install --quiet "$root[plot,xml,minuit]"
echo "30-python: pip install of the clone took $((SECONDS - t0)) s"
cd "$root/tests/python"
# The installed package, not python/hfcore/ of the clone (which has no compiled part), is what gets imported.
"$venv/bin/python" -c "import hfcore, sys; assert 'site-packages' in hfcore.__file__, hfcore.__file__"
t0=$SECONDS
# test_scan_mpi.py runs mpirun: stage 40 (MPI) runs it, with this venv.
"$venv/bin/python" -m pytest -q -p no:cacheprovider -W ignore::DeprecationWarning -rs --ignore=test_scan_mpi.py . |
    tee "$root/build/pytest.log"
# A skipped test is a test that did not run: none is expected here.
if grep -Eq "[0-9]+ skipped" "$root/build/pytest.log"; then
    echo "30-python: tests were skipped (listed above); every test must run in CI" >&2
    exit 1
fi
echo "30-python: pytest took $((SECONDS - t0)) s"
