"""Shared fixtures of the Python tests: where the reference data are, pyhf with tight fits, small helpers.

The reference workspaces live in ../shared beside the project root (HFCORE_SHARED_DIR overrides); tests that
need them are skipped, and say so, when it is absent. pyhf is a test dependency only.
"""

import json
import logging
import os
import pathlib

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = pathlib.Path(os.environ.get("HFCORE_SHARED_DIR", ROOT.parent / "shared"))
VALIDATION = SHARED / "validation" / "pyhf-validation"
EXAMPLES = SHARED / "validation" / "pyhf-examples"
ERJR = SHARED / "data" / "atlas-3l-erjr"
REFERENCE = ROOT / "tests" / "reference"

needs_shared = pytest.mark.skipif(not VALIDATION.is_dir(), reason=f"reference data not found at {SHARED}")

logging.getLogger("pyhf").setLevel(logging.ERROR)


def load(path):
    with open(path) as f:
        return json.load(f)


def validation_cases(calctype=None):
    if not VALIDATION.is_dir():
        return []
    out = []
    for d in sorted(VALIDATION.iterdir()):
        if (d / "expected.json").is_file():
            if calctype is None or load(d / "expected.json")["calctype"] == calctype:
                out.append(d.name)
    return out


def case(name):
    """(workspace dict, expected.json, the interpolation codes pyhf used) of a validation case."""
    d = VALIDATION / name
    expected = load(d / "expected.json")
    return load(d / "workspace.json"), expected, expected["model_settings"]["effective_interpcodes"]


def erjr_points():
    if not ERJR.is_dir():
        return []
    return sorted(p.name[len("patch."):-len(".json")] for p in ERJR.glob("patch.ERJR_*.json"))


def rel(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))


@pytest.fixture(scope="session")
def pyhf_tight():
    """pyhf, numpy backend at 64b, with scipy's SLSQP at a tight tolerance: its default fit stops 1e-9..1e-7
    above the minimum in twice_nll (see tests/reference/README.md), hfcore's does not."""
    pyhf = pytest.importorskip("pyhf")
    pyhf.set_backend("numpy", pyhf.optimize.scipy_optimizer(tolerance=1e-15))
    yield pyhf
    pyhf.set_backend("numpy", "scipy")


@pytest.fixture(scope="session")
def pyhf():
    pyhf = pytest.importorskip("pyhf")
    return pyhf


@pytest.fixture(autouse=True)
def _default_backend():
    """Every test starts on the cpu backend at 64b, whatever the one before it chose."""
    import hfcore

    hfcore.set_backend("cpu")
    yield
