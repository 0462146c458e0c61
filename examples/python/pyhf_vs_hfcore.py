#!/usr/bin/env python3
"""The same analysis with pyhf and with hfcore, printed side by side.

    python examples/python/pyhf_vs_hfcore.py [WORKSPACE.json] [--backend cpu|opencl|cuda] [--precision 64b|32b]

Default workspace: examples/workspaces/example.json. The analysis is written once against pyhf's API and run
with each module (``import hfcore as pyhf`` is all it takes): model and data, logpdf at the initial point, a
maximum-likelihood fit with uncertainties, CLs at mu = 1 with the expected band, and the upper limits on mu.
pyhf is only needed for its column (pip install pyhf); without it the hfcore column is printed alone.
"""

import argparse
import json
import importlib
import os
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, "..", "workspaces", "example.json")


def analysis(pyhf, path):
    """pyhf's calls, nothing else: works for pyhf and for hfcore."""
    t0 = time.perf_counter()
    with open(path) as f:
        ws = pyhf.Workspace(json.load(f))
    model = ws.model()
    data = ws.data(model)
    out = {"par_names": model.config.par_names, "poi": model.config.poi_name}
    out["logpdf(init)"] = float(model.logpdf(model.config.suggested_init(), data)[0])
    bestfit, twice_nll = pyhf.infer.mle.fit(data, model, return_fitted_val=True)
    out["fit: twice_nll"] = float(twice_nll)
    out["fit: mu_hat"] = float(bestfit[model.config.poi_index])
    cls_obs, cls_exp = pyhf.infer.hypotest(1.0, data, model, test_stat="qtilde", return_expected_set=True)
    out["CLs_obs(mu=1)"] = float(cls_obs)
    out["CLs_exp(mu=1)"] = [float(x) for x in cls_exp]
    obs, exp = pyhf.infer.intervals.upper_limits.upper_limit(data, model)
    out["upper limit obs"] = float(obs)
    out["upper limit exp"] = [float(x) for x in exp]
    out["seconds"] = time.perf_counter() - t0
    return out


def fmt(v):
    if isinstance(v, float):
        return f"{v:.8g}"
    if isinstance(v, list) and v and isinstance(v[0], float):
        return "[" + ", ".join(f"{x:.5g}" for x in v) + "]"
    return str(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workspace", nargs="?", default=DEFAULT)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--precision", default="64b")
    args = ap.parse_args()

    import hfcore

    hfcore.set_backend(args.backend, precision=args.precision)
    results = {"hfcore (" + hfcore.get_backend()[0].backend.description + ")": analysis(hfcore, args.workspace)}
    try:
        pyhf = importlib.import_module("pyhf")
        pyhf.set_backend("numpy")
        results = {f"pyhf {pyhf.__version__} (numpy, scipy)": analysis(pyhf, args.workspace), **results}
    except ImportError:
        print("(pyhf is not installed: hfcore only)")

    names = list(results)
    keys = [k for k in results[names[0]] if k != "par_names"]
    width = max(len(k) for k in keys)
    print(f"{'':{width}}  " + "  |  ".join(names))
    for k in keys:
        print(f"{k:{width}}  " + "  |  ".join(fmt(results[n][k]) for n in names))
    if len(names) == 2:
        a, b = (results[n] for n in names)
        print(f"\nspeed-up of the whole analysis: {a['seconds'] / b['seconds']:.1f}x")
        print(f"max relative difference of CLs_exp: "
              f"{np.max(np.abs(np.subtract(a['CLs_exp(mu=1)'], b['CLs_exp(mu=1)'])) / np.asarray(a['CLs_exp(mu=1)'])):.2e}")


if __name__ == "__main__":
    main()
