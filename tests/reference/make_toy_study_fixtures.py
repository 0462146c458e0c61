#!/usr/bin/env python3
"""pyhf's toy study of a small model: the reference of tests/analysis/test_toy_study.cpp.

Toys from pyhf's model.make_pdf(truth).sample at the nominal nuisance parameters with the POI injected at a few
values (main data Poisson, auxiliary data drawn around the truth), each fitted by pyhf.infer.mle.fit with the
POI free and MINUIT's Hesse uncertainties; per injected value the bias and pulls of every parameter, the POI's
coverage of its 68.27% and 95% intervals, and the linearity of the fitted POI over the injected values, with
the statistical errors of each. hfcore draws its toys from another random stream (Philox), so the test
compares the two studies within their errors, never toy by toy.

Usage (pyhf 0.7.6 with iminuit, numpy backend; see provenance.py for the pins):
    python3 tests/reference/make_toy_study_fixtures.py [--ntoys 500] [--seed 20261204]
Writes tests/reference/analysis/toy_study_pyhf.json (under a minute on one core).
"""
import argparse
import json
import logging
import math
import os
import sys
import time

import numpy
import pyhf

from provenance import provenance

logging.disable(logging.WARNING)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "analysis", "toy_study_pyhf.json")
MU_TRUE = [1.0, 2.0]

# Two bins, a signal of 40 events at mu = 1 over 80 background events with a 5% normsys and a shapesys of
# 10% per bin (Poisson constraints, tau = 100): four parameters, POI uncertainty about 0.3. The POI's lower bound
# is moved to -1 so that its interval at the injected values is not cut by the bound.
WORKSPACE = {
    "channels": [{"name": "SR", "samples": [
        {"name": "signal", "data": [25.0, 15.0],
         "modifiers": [{"name": "mu", "type": "normfactor", "data": None}]},
        {"name": "bkg", "data": [50.0, 30.0],
         "modifiers": [{"name": "bkg_norm", "type": "normsys", "data": {"hi": 1.05, "lo": 0.95}},
                       {"name": "bkg_stat", "type": "shapesys", "data": [5.0, 3.0]}]}]}],
    "observations": [{"name": "SR", "data": [75.0, 45.0]}],
    "measurements": [{"name": "meas", "config": {"poi": "mu", "parameters": [
        {"name": "mu", "bounds": [[-1.0, 10.0]]}]}}],
    "version": "1.0.0",
}


def mean_and_error(x):
    x = numpy.asarray(x, dtype=float)
    sd = float(numpy.std(x, ddof=1))
    return float(numpy.mean(x)), sd / math.sqrt(len(x)), sd


def study(model, mu, ntoys):
    truth = numpy.asarray(model.config.suggested_init(), dtype=float)
    poi = model.config.poi_index
    truth[poi] = mu
    toys = model.make_pdf(pyhf.tensorlib.astensor(truth)).sample((ntoys,))
    fitted, sigma, failed = [], [], 0
    for toy in toys:
        pars, result = pyhf.infer.mle.fit(toy, model, return_uncertainties=True, return_result_obj=True)
        if not result.success:
            failed += 1
            continue
        fitted.append(numpy.asarray(pars)[:, 0])
        sigma.append(numpy.asarray(pars)[:, 1])
    fitted, sigma = numpy.array(fitted), numpy.array(sigma)
    names = [f"{p}[{i}]" if model.config.param_set(p).n_parameters > 1 else p
             for p in model.config.par_order for i in range(model.config.param_set(p).n_parameters)]
    pars = []
    for i, name in enumerate(names):
        m, m_err, spread = mean_and_error(fitted[:, i])
        pulls = (fitted[:, i] - truth[i]) / sigma[:, i]
        pm, pm_err, pw = mean_and_error(pulls)
        pars.append({"name": name, "truth": float(truth[i]), "n": len(pulls), "mean": m, "bias": m - float(truth[i]),
                     "bias_error": m_err, "spread": spread, "pull_mean": pm, "pull_mean_error": pm_err,
                     "pull_width": pw, "pull_width_error": pw / math.sqrt(2.0 * (len(pulls) - 1))})
    coverage = {}
    for label, z in (("68", 1.0), ("95", 1.959963984540054)):
        inside = numpy.abs(fitted[:, poi] - mu) <= z * sigma[:, poi]
        f = float(numpy.mean(inside))
        coverage[label] = {"z": z, "n": len(inside), "fraction": f, "error": math.sqrt(f * (1 - f) / len(inside))}
    return {"poi_value": mu, "ntoys": ntoys, "failed": failed, "parameters": pars, "poi_coverage": coverage}


def linearity(points, poi_name):
    x = numpy.array([p["poi_value"] for p in points])
    q = [next(e for e in p["parameters"] if e["name"] == poi_name) for p in points]
    y = numpy.array([e["mean"] for e in q])
    w = 1.0 / numpy.array([e["bias_error"] for e in q]) ** 2
    s, sx, sxx, sy, sxy = w.sum(), (w * x).sum(), (w * x * x).sum(), (w * y).sum(), (w * x * y).sum()
    d = s * sxx - sx * sx
    return {"slope": float((s * sxy - sx * sy) / d), "slope_error": float(math.sqrt(s / d)),
            "offset": float((sxx * sy - sx * sxy) / d), "offset_error": float(math.sqrt(sxx / d))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ntoys", type=int, default=500)
    ap.add_argument("--seed", type=int, default=20261204)
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args()
    pyhf.set_backend("numpy", pyhf.optimize.minuit_optimizer(tolerance=1e-6), precision="64b")
    ws = pyhf.Workspace(WORKSPACE)
    model = ws.model()
    # pyhf's numpy backend draws toys from numpy's global generator.
    numpy.random.seed(a.seed)
    t0 = time.time()
    points = [study(model, mu, a.ntoys) for mu in MU_TRUE]
    out = {
        "description": __doc__.strip().splitlines()[0],
        # The script holds the model: its hash ties the numbers to it.
        "provenance": provenance("make_toy_study_fixtures.py", ["pyhf", "numpy", "scipy", "iminuit"],
                                 repo_inputs=["tests/reference/make_toy_study_fixtures.py"]),
        "command": " ".join(["python3", "tests/reference/make_toy_study_fixtures.py"] + sys.argv[1:]),
        "sampling": "model.make_pdf(truth).sample((ntoys,)), truth = suggested init with the POI injected",
        "fit": "pyhf.infer.mle.fit(toy, model, return_uncertainties=True) with minuit_optimizer(tolerance=1e-6)",
        "seed": a.seed,
        "seed_note": "numpy.random.seed(seed) before the first injected value (pyhf's numpy backend samples from it)",
        "poi": model.config.poi_name,
        "workspace": WORKSPACE,
        "points": points,
        "linearity": linearity(points, model.config.poi_name),
        "seconds": round(time.time() - t0, 1),
    }
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1, allow_nan=False)
        f.write("\n")
    for p in points:
        q = next(e for e in p["parameters"] if e["name"] == model.config.poi_name)
        print(f"mu {p['poi_value']}: bias {q['bias']:.4f} +- {q['bias_error']:.4f}  pull width "
              f"{q['pull_width']:.3f} +- {q['pull_width_error']:.3f}  coverage68 {p['poi_coverage']['68']['fraction']:.3f}"
              f"  failed {p['failed']}")
    print(f"linearity {out['linearity']}  ({out['seconds']} s)")


if __name__ == "__main__":
    main()
