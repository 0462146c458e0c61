#!/usr/bin/env python3
"""Reference for limits when the POI may be negative: a validation workspace with POI bounds [-5, 5] and lowered data.

The workspace is ../shared/validation/pyhf-validation/2bin_2channel/workspace.json (its sha256 is recorded) with
the POI's bounds set to [-5, 5] and the observed counts of the `signal` channel lowered (floor(count * f) for
f = 0.99, 0.98, ... ) until pyhf's best fit has mu_hat < -0.1: the situation of public workspaces whose POI may
go negative and whose data lie below the background. Nothing else changes; the test (tests/infer/
test_negative_poi.cpp) applies the same change to the same file.

Records pyhf's free fit, CLs (qtilde, asymptotics: observed and the five expected) at a few mu > 0, and the
upper limit of toms748_scan on the bracket [0.01, 5] (a small positive mu to the upper bound: pyhf's own bracket
[-5, 5] would test negative mu, where qtilde is meaningless). pyhf warns that qtilde is used with a POI not
bounded at 0; the numbers are what it computes regardless (q~ with mu_hat allowed below 0).

Usage: /work/venvs/ref/bin/python tests/reference/make_negative_poi_fixture.py
Environment: pip install pyhf==0.7.6 scipy numpy (numpy backend, 64b; versions are recorded in the output).
Writes tests/reference/infer/negative_poi.json.
"""
import hashlib
import json
import logging
import math
import os

import numpy
import pyhf
import scipy

logging.disable(logging.WARNING)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("HFCORE_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
CASE = "2bin_2channel"
SOURCE = os.path.join(SHARED, "validation", "pyhf-validation", CASE, "workspace.json")
BOUNDS = [-5.0, 5.0]
CHANNEL = "signal"
MU_HAT_BELOW = -0.1
TESTED = [0.05, 0.2, 0.5, 1.0, 2.0]
BRACKET = [0.01, 5.0]


def lowered(spec, f):
    spec = json.loads(json.dumps(spec))
    for o in spec["observations"]:
        if o["name"] == CHANNEL:
            o["data"] = [float(math.floor(v * f)) for v in o["data"]]
    poi = spec["measurements"][0]["config"]["poi"]
    params = spec["measurements"][0]["config"].setdefault("parameters", [])
    params[:] = [p for p in params if p["name"] != poi] + [{"name": poi, "bounds": [BOUNDS]}]
    return spec


def main():
    raw = open(SOURCE, "rb").read()
    source = json.loads(raw)
    pyhf.set_backend("numpy", pyhf.optimize.scipy_optimizer(tolerance=1e-12))
    for k in range(1, 100):
        f = round(1.0 - 0.01 * k, 2)
        spec = lowered(source, f)
        ws = pyhf.Workspace(spec)
        model = ws.model()
        data = ws.data(model)
        bestfit, twice_nll = pyhf.infer.mle.fit(data, model, return_fitted_val=True)
        if bestfit[model.config.poi_index] < MU_HAT_BELOW:
            break
    poi = model.config.poi_index
    cls = {}
    for mu in TESTED:
        obs, exp = pyhf.infer.hypotest(mu, data, model, test_stat="qtilde", return_expected_set=True)
        cls[repr(mu)] = {"obs": float(obs), "exp": [float(e) for e in exp]}
    # pyhf at mu = 0 (q~ with mu_hat < 0: the s+b and b-only distributions coincide); "nan" when it gives NaN.
    with numpy.errstate(all="ignore"):
        obs0, exp0 = pyhf.infer.hypotest(0.0, data, model, test_stat="qtilde", return_expected_set=True)
    at0 = {"obs": float(obs0) if numpy.isfinite(obs0) else "nan",
           "exp": [float(e) if numpy.isfinite(e) else "nan" for e in exp0]}
    rtol = 1e-6
    obs_lim, exp_lim = pyhf.infer.intervals.upper_limits.toms748_scan(
        data, model, BRACKET[0], BRACKET[1], level=0.05, rtol=rtol, test_stat="qtilde")
    out = {
        "description": __doc__.strip().splitlines()[0],
        "made_by": "tests/reference/make_negative_poi_fixture.py",
        "versions": {"pyhf": pyhf.__version__, "numpy": numpy.__version__, "scipy": scipy.__version__},
        "optimizer": "scipy_optimizer(tolerance=1e-12), numpy backend, 64b",
        "source": {"path": f"validation/pyhf-validation/{CASE}/workspace.json (relative to ../shared)",
                   "sha256": hashlib.sha256(raw).hexdigest()},
        "poi_bounds": BOUNDS,
        "lowered_channel": CHANNEL,
        "factor": f,
        "observations": {o["name"]: o["data"] for o in spec["observations"]},
        "par_names": [n for n in model.config.par_names],
        "free_fit": {"bestfit": [float(v) for v in bestfit], "twice_nll": float(twice_nll),
                     "mu_hat": float(bestfit[poi])},
        "test_stat": "qtilde",
        "cls": cls,
        "cls_at_zero": at0,
        "upper_limit": {"bracket": BRACKET, "level": 0.05, "rtol": rtol, "obs": float(obs_lim),
                        "exp": [float(e) for e in exp_lim]},
    }
    os.makedirs(os.path.join(HERE, "infer"), exist_ok=True)
    with open(os.path.join(HERE, "infer", "negative_poi.json"), "w") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")
    print(json.dumps({k: out[k] for k in ("factor", "free_fit", "cls_at_zero", "upper_limit")}))


if __name__ == "__main__":
    main()
