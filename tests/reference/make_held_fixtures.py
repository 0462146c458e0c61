#!/usr/bin/env python3
"""Reference held fits of pyhf + Minuit (strategy 2) on small random workspaces, for tests/infer/test_held_fits.cpp.

For each seed (generator arguments as the test's: --channels 2 --bins 3 --samples 3) and each parameter of the
model, the parameter is held at two values (the POI at 0.5 and 1.5; a normal-constrained parameter at -1 and +1;
any other at its init times 0.8 and 1.2, within its bounds) and every other parameter fitted with
pyhf.infer.mle.fit (fixed_params) and pyhf.optimize.minuit_optimizer(strategy=2), from pyhf's suggested init.
The twice_nll of each fit is recorded with Minuit's success flag. hfcore's held fit at the same value must be at
or below it (1e-6): Minuit may stop in a higher basin, never below the lowest minimum.

Workspaces are regenerated from ../shared/tools/random_workspace.py (never stored here); each record holds the
generator's arguments and the sha256 of its output, which the test checks before it uses a workspace.

Usage (environment: pip install pyhf==0.7.6 iminuit numpy):
    python3 tests/reference/make_held_fixtures.py [--seeds 1-12] [--out FILE]
"""
import argparse
import hashlib
import json
import logging
import os
import subprocess
import sys

import pyhf

from provenance import HERE, provenance, shared_path

logging.disable(logging.WARNING)
GENERATOR = shared_path(os.path.join("tools", "random_workspace.py"))
DEFAULT_OUT = os.path.join(HERE, "held", "minuit_held_fits.json")
ARGS = ["--channels", "2", "--bins", "3", "--samples", "3"]


def seeds(text):
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def held_values(model, name):
    """Two values of parameter `name` (a scalar parameter), inside its bounds."""
    ps = model.config.param_set(name)
    lo, hi = ps.suggested_bounds[0]
    if name == model.config.poi_name:
        vals = [0.5, 1.5]
    elif getattr(ps, "pdf_type", None) == "normal":
        vals = [-1.0, 1.0]
    else:
        init = ps.suggested_init[0]
        vals = [0.8 * init, 1.2 * init]
    return [min(max(v, lo), hi) for v in vals]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="1-12")
    ap.add_argument("--out", default=DEFAULT_OUT)
    a = ap.parse_args()
    pyhf.set_backend("numpy", pyhf.optimize.minuit_optimizer(strategy=2))
    records = []
    for seed in seeds(a.seeds):
        args = [str(seed)] + ARGS
        raw = subprocess.run([sys.executable, GENERATOR] + args, check=True, capture_output=True).stdout
        ws = pyhf.Workspace(json.loads(raw))
        model = ws.model()
        data = ws.data(model)
        init = model.config.suggested_init()
        bounds = model.config.suggested_bounds()
        fixed = model.config.suggested_fixed()
        fits = []
        for name in model.config.par_order:
            if model.config.param_set(name).n_parameters != 1:
                continue  # vector parameters (staterror, shapesys, shapefactor): the scalar ones suffice here
            i = model.config.par_slice(name).start
            for v in held_values(model, name):
                start = list(init)
                start[i] = v
                fx = list(fixed)
                fx[i] = True
                b = list(bounds)
                b[i] = (min(b[i][0], v), max(b[i][1], v))
                try:
                    x, twice_nll = pyhf.infer.mle.fit(data, model, init_pars=start, par_bounds=b, fixed_params=fx,
                                                      return_fitted_val=True)
                    ok = True
                except Exception as e:  # pyhf raises when Minuit reports failure; its point is lost then
                    fits.append({"par": name, "value": v, "success": False, "error": str(e)})
                    continue
                fits.append({"par": name, "value": v, "success": ok, "twice_nll": float(twice_nll)})
        records.append({"generator_args": args, "sha256": hashlib.sha256(raw).hexdigest(), "fits": fits})
        print(f"seed {seed}: {len(fits)} held fits", file=sys.stderr)
    doc = {
        "provenance": provenance("make_held_fixtures.py", ["pyhf", "iminuit", "numpy", "scipy"],
                                 shared_inputs=("tools/random_workspace.py",)),
        "optimizer": "pyhf.optimize.minuit_optimizer(strategy=2), numpy backend, from pyhf's suggested init",
        "workspaces": records,
    }
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
