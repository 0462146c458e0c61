"""cabinetry 0.6's workflow with hfcore standing in for pyhf, against the same workflow on real pyhf: the 11
steps (workspace.load, model_and_data (+ Asimov), fit (+ MINOS, goodness of fit), ranking, scan, limit,
significance, prediction + tabulate.yields, and the data/MC, pulls and correlation plots) on the example workspace
and an sbottom model.

Each engine runs in a subprocess of its own (cabinetry_workflow.py says why); both run at once. Agreement:
best-fit values, uncertainties, MINOS intervals, impacts, scan and yields to 1e-4; limits and significances to
1e-3. Real pyhf runs Minuit at strategy 2, tolerance 1e-4; where its fit still ends above hfcore's minimum (its
-2 log L higher), hfcore's answer is the reference and the difference must come with that higher -2 log L.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT, VALIDATION, needs_shared

pytestmark = needs_shared

WORKFLOW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cabinetry_workflow.py")
# The sbottom model (66 parameters, 3 channels) runs the workflow without the ranking and the limit: on real
# pyhf these two take minutes there; the example workspace runs all 11 steps. (In region A the POI's best fit is
# on its bound, where real pyhf's Minuit fails the significance's Asimov fit at strategy 2.)
CASES = {
    "example": (ROOT / "examples" / "workspaces" / "example.json", []),
    "sbottom": (VALIDATION / "sbottom_regionC_1600_850_60" / "workspace.json", ["fit.ranking", "fit.limit"]),
}
STEPS = ["workspace.load", "model_utils.model_and_data", "fit.fit", "fit.ranking", "fit.scan", "fit.limit",
         "fit.significance", "model_utils.prediction + tabulate.yields", "visualize.data_mc", "visualize.pulls",
         "visualize.correlation_matrix"]


@pytest.fixture(scope="module", params=sorted(CASES))
def runs(request, tmp_path_factory):
    """{"pyhf": results, "hfcore": results} of one workspace, the two workflows run in parallel."""
    pytest.importorskip("cabinetry")
    workspace, skip = CASES[request.param]
    tmp = tmp_path_factory.mktemp(f"cabinetry-{request.param}")
    procs = {}
    for engine in ("pyhf", "hfcore"):
        cmd = [sys.executable, WORKFLOW, engine, str(workspace), str(tmp / f"{engine}.json"), str(tmp / engine)]
        if skip:
            cmd += ["--skip", ",".join(skip)]
        env = dict(os.environ, MPLBACKEND="Agg")
        procs[engine] = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    out = {}
    for engine, p in procs.items():
        log, _ = p.communicate(timeout=600)
        assert p.returncode == 0, f"cabinetry on {engine} failed:\n{log[-6000:]}"
        with open(tmp / f"{engine}.json") as f:
            out[engine] = json.load(f)
        out[engine]["case"] = request.param
    return out


def close(got, want, atol, what):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape, f"{what}: shapes {got.shape} vs {want.shape}"
    np.testing.assert_allclose(got, want, rtol=0, atol=atol, err_msg=what)


def test_every_step_runs_on_hfcore(runs):
    h = runs["hfcore"]
    assert h["pyhf_module"] == "hfcore" and runs["pyhf"]["pyhf_module"] == "pyhf"
    assert list(h["times"]) == [s for s in STEPS if s not in CASES[h["case"]][1]]
    p = runs["pyhf"]["model"]
    assert (h["model"]["par_names"], h["model"]["poi"], h["model"]["data"]) == (p["par_names"], p["poi"], p["data"])
    np.testing.assert_allclose(h["model"]["asimov"], p["asimov"], rtol=1e-12, err_msg="Asimov data")
    assert h["figures"] == runs["pyhf"]["figures"] and len(h["figures"]) >= 3


def shortfall(runs):
    """How far real pyhf's fit may sit from hfcore's minimum, in units of the parameters' uncertainties: 0 when
    its -2 log L is within 1e-8 of hfcore's (the same minimum), else 3 sqrt(delta), delta being how much higher
    it is (a point delta above a minimum in -2 log L lies sqrt(delta) sigma from it). hfcore's minimum must be
    the lower one: its answer is the reference, and pyhf's may differ by what its shortfall allows, no more."""
    p, h = runs["pyhf"]["fit"]["best_twice_nll"], runs["hfcore"]["fit"]["best_twice_nll"]
    assert h <= p + 1e-8, f"hfcore's minimum {h!r} is above pyhf's {p!r}"
    return 0.0 if p - h <= 1e-8 else 3.0 * np.sqrt(p - h)


def test_fit(runs):
    p, h = runs["pyhf"]["fit"], runs["hfcore"]["fit"]
    assert h["labels"] == p["labels"]
    slack = shortfall(runs)
    unc = np.asarray(h["uncertainty"])
    diff = np.abs(np.asarray(h["bestfit"]) - p["bestfit"])
    assert np.all(diff <= 1e-4 + slack * unc), f"best-fit values differ by {diff.max():.3g} (slack {slack:.3g} sigma)"
    close(h["uncertainty"], p["uncertainty"], 1e-4 + slack, "uncertainties")
    close(h["corr_mat"], p["corr_mat"], 1e-3 + slack, "correlations")
    assert h["goodness_of_fit"] == pytest.approx(p["goodness_of_fit"], abs=1e-4)
    assert h["minos"].keys() == p["minos"].keys() and len(h["minos"]) == 1
    for name in p["minos"]:
        close(h["minos"][name], p["minos"][name], 1e-4 + slack, f"MINOS interval of {name}")


@pytest.mark.parametrize("runs", ["example"], indirect=True)
def test_ranking(runs):
    p, h = runs["pyhf"]["ranking"], runs["hfcore"]["ranking"]
    assert h["labels"] == p["labels"] and len(h["labels"]) >= 6
    for key in ("bestfit", "uncertainty", "prefit_up", "prefit_down", "postfit_up", "postfit_down"):
        close(h[key], p[key], 1e-4, f"ranking {key}")


def test_scan(runs):
    p, h = runs["pyhf"]["scan"], runs["hfcore"]["scan"]
    close(h["parameter_values"], p["parameter_values"], 1e-4, "scan points")
    close(h["delta_nlls"], p["delta_nlls"], 1e-4, "scan delta NLL")


@pytest.mark.parametrize("runs", ["example"], indirect=True)
def test_limit(runs):
    p, h = runs["pyhf"]["limit"], runs["hfcore"]["limit"]
    assert h["observed_limit"] == pytest.approx(p["observed_limit"], abs=1e-3)
    close(h["expected_limit"], p["expected_limit"], 1e-3, "expected limits")


def test_significance(runs):
    p, h = runs["pyhf"]["significance"], runs["hfcore"]["significance"]
    for key in p:
        assert h[key] == pytest.approx(p[key], abs=1e-3), key


def test_prediction_and_yields(runs):
    p, h = runs["pyhf"], runs["hfcore"]
    slack = shortfall(runs)  # the post-fit yields follow the fit's point
    for which in ("prefit", "postfit"):
        for key in ("model_yields", "total_stdev_model_bins", "total_stdev_model_channels"):
            a, b = h["prediction"][which][key], p["prediction"][which][key]
            for ch_a, ch_b in zip(a, b):
                # yields are event counts: 1e-4 relative to the bin's content
                close(np.asarray(ch_a) / np.maximum(np.abs(ch_b), 1.0), np.asarray(ch_b) / np.maximum(np.abs(ch_b), 1.0),
                      1e-4 + slack, f"{which} {key}")
    assert h["yields_table"].keys() == p["yields_table"].keys()
    for kind in p["yields_table"]:
        for row_h, row_p in zip(h["yields_table"][kind], p["yields_table"][kind]):
            assert row_h.keys() == row_p.keys() and row_h["sample"] == row_p["sample"]
