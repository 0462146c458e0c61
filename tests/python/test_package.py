"""The package itself: pyhf's names are all there, the stubs of the compiled module are current."""

import importlib
import os
import subprocess
import sys

import pytest

import hfcore

PYHF_NAMES = [
    "Workspace", "Model", "PatchSet", "set_backend", "get_backend", "tensorlib", "optimizer", "default_backend",
    "exceptions", "infer", "simplemodels", "utils", "patchset", "pdf", "workspace", "tensor",
    "infer.hypotest", "infer.mle.fit", "infer.mle.fixed_poi_fit", "infer.mle.twice_nll",
    "infer.intervals.upper_limits.upper_limit", "infer.intervals.upper_limits.toms748_scan",
    "infer.intervals.upper_limits.linear_grid_scan", "infer.intervals.upperlimit",
    "infer.test_statistics.q0", "infer.test_statistics.qmu", "infer.test_statistics.qmu_tilde",
    "infer.test_statistics.tmu", "infer.test_statistics.tmu_tilde", "utils.digest",
    "simplemodels.uncorrelated_background", "simplemodels.correlated_background", "patchset.Patch",
    "Workspace.combine", "Workspace.sorted", "Workspace.build", "Workspace.prune", "Workspace.rename",
    "Workspace.get_measurement", "Workspace.model", "Workspace.data",
    "Model.logpdf", "Model.expected_data", "Model.expected_actualdata", "Model.expected_auxdata", "Model.pdf",
    "Model.config",
] + [f"exceptions.{n}" for n in (
    "InvalidSpecification", "InvalidModel", "InvalidMeasurement", "InvalidPatchSet", "InvalidPatchLookup",
    "PatchSetVerificationError", "InvalidWorkspaceOperation", "UnspecifiedPOI", "InvalidPdfParameters",
    "InvalidPdfData", "FailedMinimization", "InvalidTestStatistic", "InvalidInterpCode", "InvalidBackend",
    "InvalidOptimizer", "InvalidModifier", "Unsupported", "ImportBackendError", "InvalidNameReuse")]


@pytest.mark.parametrize("name", PYHF_NAMES)
def test_pyhf_name_exists(name):
    obj = hfcore
    for part in name.split("."):
        obj = getattr(obj, part)
    assert obj is not None


def test_scan_and_hfcore_extras():
    for name in ("backends", "backend", "infer.scan", "Model.logpdf_and_grad"):
        obj = hfcore
        for part in name.split("."):
            obj = getattr(obj, part)


def test_compiled_module_stub_is_current(tmp_path):
    """python/hfcore/_core.pyi is what nanobind's stubgen writes for the module (regenerate it with
    python -m nanobind.stubgen -m hfcore._core -o python/hfcore/_core.pyi)."""
    pytest.importorskip("nanobind")
    committed = os.path.join(os.path.dirname(hfcore.__file__), "_core.pyi")
    if not os.path.isfile(committed):
        pytest.skip("no _core.pyi beside the module")
    out = tmp_path / "_core.pyi"
    subprocess.check_call([sys.executable, "-m", "nanobind.stubgen", "-q", "-m", "hfcore._core", "-o", str(out)])
    with open(committed) as f:
        assert out.read_text() == f.read()
