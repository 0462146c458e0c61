"""hfcore.infer.diagnostics against cabinetry's numbers on examples/workspaces/example.json (the fixture of
tests/reference/make_diagnostics_fixtures.py: cabinetry 0.6, Minuit strategy 2 at tolerance 1e-6), at the issue's
tolerances and the C++ tests' (tests/diagnostics/test_reference.cpp, where the measured agreement is noted), and the
errors of bad requests."""

import json

import numpy as np
import pytest

import hfcore
from hfcore.infer import diagnostics

from conftest import REFERENCE, ROOT

FIXTURE = REFERENCE / "diagnostics" / "example.json"


@pytest.fixture(scope="module")
def example():
    ws = hfcore.Workspace(json.loads((ROOT / "examples" / "workspaces" / "example.json").read_text()))
    model = ws.model()
    return model, ws.data(model), json.loads(FIXTURE.read_text())


def rel(a, b, floor=1e-300):
    return abs(a - b) / max(abs(b), floor)


def test_pulls(example):
    model, data, ref = example
    r = diagnostics.pulls(data, model)
    assert r["fit_converged"]
    for mine, theirs, fresh in zip(r["parameters"], ref["pulls"], ref["hesse_bounded"]):
        assert mine["name"] == theirs["name"]
        assert abs(mine["value"] - theirs["value"]) <= 1e-4 * max(theirs["uncertainty"], abs(theirs["value"]))
        assert rel(mine["uncertainty"], fresh) <= 1e-4  # Minuit's convention, against a fresh HESSE
        assert (mine["pull"] is None) == (theirs["pull"] is None)
        if mine["pull"] is not None:
            assert abs(mine["pull"] - theirs["pull"]) <= 1e-4 * max(1.0, abs(theirs["pull"]))
    assert np.asarray(r["correlations"]["matrix"]).shape == (model.config.npars, model.config.npars)


def test_ranking(example):
    model, data, ref = example
    r = diagnostics.ranking(data, model, threads=2)
    assert r["converged"] and r["poi"] == "mu"
    ours = {e["name"]: e for e in r["ranking"]}
    floor = 1e-3 * r["poi_uncertainty"]
    for e in ref["ranking"]["entries"]:
        for key in ("impact_prefit_up", "impact_prefit_down", "impact_postfit_up", "impact_postfit_down"):
            assert rel(ours[e["name"]][key], e[key], floor) <= 1e-3, (e["name"], key)
    impacts = [max(abs(e["impact_postfit_up"]), abs(e["impact_postfit_down"])) for e in r["ranking"]]
    assert impacts == sorted(impacts, reverse=True)
    alone = diagnostics.ranking(data, model, batched=False, threads=2)
    for e in alone["ranking"]:
        assert abs(e["impact_postfit_up"] - ours[e["name"]]["impact_postfit_up"]) < 1e-5


def test_breakdown(example):
    """The same numbers as the command's JSON; groups by pattern; statistical <= total; bad groups named."""
    model, data, _ = example
    r = diagnostics.breakdown(data, model)
    assert r["converged"] and r["poi"] == "mu"
    impacts = [g["impact"] for g in r["groups"]]
    assert impacts == sorted(impacts, reverse=True) and len(impacts) == 7
    assert 0 < r["statistical"] < r["total"]
    assert r["systematic"] == pytest.approx((r["total"] ** 2 - r["statistical"] ** 2) ** 0.5, rel=1e-12)
    for g in r["groups"]:
        assert g["impact"] == pytest.approx(max(r["total"] ** 2 - g["held_uncertainty"] ** 2, 0) ** 0.5, rel=1e-12)
    stat = diagnostics.breakdown(data, model, groups={"stat": "staterror_*"}, hessian_uncertainties=True)
    assert stat["convention"] == "hessian"
    assert stat["groups"][0]["parameters"] == ["staterror_CR_top", "staterror_CR_wjets", "staterror_SR"]
    by_type = next(g for g in diagnostics.breakdown(data, model, hessian_uncertainties=True)["groups"]
                   if g["name"] == "staterror")
    assert stat["groups"][0]["impact"] == pytest.approx(by_type["impact"], rel=1e-9)
    with pytest.raises(ValueError, match="matches no parameter set"):
        diagnostics.breakdown(data, model, groups={"x": ["NOPE*"]})


def test_yields(example):
    model, data, ref = example
    for postfit, key, tol in ((False, "yields_prefit", 1e-6), (True, "yields_postfit", 1e-3)):
        r = diagnostics.yields(data, model, postfit=postfit)
        assert r["postfit"] is postfit
        for mine, theirs in zip(r["channels"], ref[key]):
            assert mine["name"] == theirs["name"]
            np.testing.assert_allclose(mine["total"], theirs["total"], rtol=1e-6)
            np.testing.assert_allclose(mine["total_stdev"], theirs["total_stdev"], rtol=tol)
            np.testing.assert_array_equal(mine["data"], theirs["data"])
            for s, t in zip(mine["samples"], theirs["samples"]):
                np.testing.assert_allclose(s["yields"], t["yields"], rtol=1e-6, atol=1e-12)


def test_goodness_of_fit(example):
    model, data, ref = example
    r = diagnostics.goodness_of_fit(data, model)
    g = ref["gof"]
    assert r["ndof"] == g["ndof"]
    assert rel(r["twice_nll_saturated"], g["twice_nll_saturated"]) <= 1e-12
    assert rel(r["p_value"], g["p_value"]) <= 1e-6


def test_profile_and_minos(example):
    model, data, ref = example
    prof = ref["profiles"][0]
    r = diagnostics.profile_scan(data, model, {prof["pars"][0]: prof["grids"][0]})
    assert r["converged"]
    for mine, theirs in zip(r["points"], prof["points"]):
        assert abs(mine["twice_nll"] - theirs["twice_nll"]) <= 1e-6
    lo, hi = r["intervals"]["68"]
    m = diagnostics.minos(data, model, "mu")
    assert m["minos_details"]["mu"]["valid"]
    ends = ref["minos"]["mu"]
    half = 0.5 * (ends[1] - ends[0])
    assert abs(m["minos"]["mu"][0] - ends[0]) <= 1e-3 * half and abs(m["minos"]["mu"][1] - ends[1]) <= 1e-3 * half
    assert lo < m["minos_details"]["mu"]["value"] < hi
    two = diagnostics.profile_scan(data, model, [("mu", [0.5, 1.5]), ("jes", [-1.0, 0.0, 1.0])])
    assert len(two["points"]) == 6 and "intervals" not in two


def test_bad_requests(example):
    model, data, _ = example
    with pytest.raises(ValueError, match="unknown parameter 'nope'"):
        diagnostics.profile_scan(data, model, {"nope": [0.0, 1.0]})
    with pytest.raises(hfcore.exceptions.InvalidFitInput, match="outside the parameter's bounds"):
        diagnostics.profile_scan(data, model, {"mu": [-1.0, 1.0]})
    fixed = model.config.suggested_fixed()
    fixed[model.config.par_names.index("jes")] = True
    with pytest.raises(ValueError, match="is fixed"):
        diagnostics.minos(data, model, ["jes"], fixed_params=fixed)
    with pytest.raises(ValueError, match="unknown parameter"):
        diagnostics.ranking(data, model, poi_name="nope")
    everything = [i != model.config.poi_index for i in range(model.config.npars)]
    with pytest.raises(ValueError, match="no free nuisance parameter"):
        diagnostics.ranking(data, model, fixed_params=everything)
