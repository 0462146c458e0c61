#!/usr/bin/env python3
"""pyhf's logpdf on the random workspaces of multimodal/random_workspaces.json at fixed parameter points.

For every workspace of that file (regenerated from ../shared/tools/random_workspace.py and checked against its
sha256), pyhf's twice_nll = -2 logpdf on the observed data at:
  - "suggested_init";
  - "random_0.3", "random_0.8": every free parameter moved from its init by u * k * max(1, |init|), u uniform in
    [-1, 1] from numpy.random.default_rng([SEED, crc32(workspace name)]), clipped to its suggested bounds;
  - the points where hfcore's fits reach a lower minimum than pyhf's best (--hfcore-points: the file the test
    writes with HFCORE_RANDOM_POINTS_OUT=FILE), on the data of that fit (observed, or pyhf's Asimov data: the
    expected data at pyhf's best mu = 0 fit). There pyhf's own logpdf says whether hfcore's lower minimum is a
    real point of pyhf's likelihood: the test accepts a minimum below pyhf's only down to these values.
The logpdf at pyhf's own best fits needs no new numbers: random_workspaces.json holds those points and values.

Usage (pyhf 0.7.6, numpy backend, 64b; pins in provenance.py):
    HFCORE_RANDOM_POINTS_OUT=/tmp/points.json build/release/bin/test_infer --gtest_filter='RandomWorkspaces.*'
    python3 tests/reference/make_random_logpdf_fixtures.py --hfcore-points /tmp/points.json
Writes tests/reference/multimodal/random_logpdf.json.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import zlib

import numpy
import pyhf

from provenance import provenance, SHARED

HERE = os.path.dirname(os.path.abspath(__file__))
WORKSPACES = os.path.join(HERE, "multimodal", "random_workspaces.json")
OUT = os.path.join(HERE, "multimodal", "random_logpdf.json")
GENERATOR = os.path.join(SHARED, "tools", "random_workspace.py")
SEED = 20261203
SCALES = (0.3, 0.8)


def twice_nll(model, pars, data):
    return float(-2.0 * model.logpdf(numpy.asarray(pars, dtype=float), numpy.asarray(data, dtype=float))[0])


def random_point(model, scale, rng):
    init = model.config.suggested_init()
    bounds = model.config.suggested_bounds()
    fixed = model.config.suggested_fixed()
    x = list(init)
    for i, (lo, hi) in enumerate(bounds):
        u = rng.uniform(-1.0, 1.0)  # drawn for every parameter, so that the stream does not depend on `fixed`
        if not fixed[i]:
            x[i] = min(hi, max(lo, init[i] + u * scale * max(1.0, abs(init[i]))))
    return [float(v) for v in x]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hfcore-points", help="HFCORE_RANDOM_POINTS_OUT file of the test")
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args()
    pyhf.set_backend("numpy", precision="64b")
    ref = json.load(open(WORKSPACES))
    hfcore_points = json.load(open(a.hfcore_points))["points"] if a.hfcore_points else []
    records = []
    for rec in ref["workspaces"]:
        raw = subprocess.run([sys.executable, GENERATOR] + rec["generator_args"], check=True,
                             capture_output=True).stdout
        if hashlib.sha256(raw).hexdigest() != rec["sha256"]:
            raise SystemExit(f"{rec['name']}: the generator's output is not the reference's workspace")
        model = pyhf.Workspace(json.loads(raw)).model()
        data = numpy.asarray(pyhf.Workspace(json.loads(raw)).data(model), dtype=float)
        assert model.config.par_names == rec["par_names"], rec["name"]
        rng = numpy.random.default_rng([SEED, zlib.crc32(rec["name"].encode())])
        points = [{"label": "suggested_init", "data": "observed", "pars": [float(v) for v in model.config.suggested_init()]}]
        for s in SCALES:
            points.append({"label": f"random_{s}", "data": "observed", "pars": random_point(model, s, rng)})
        asimov = numpy.asarray(model.expected_data(numpy.asarray(rec["fits"]["mu0"]["bestfit"])), dtype=float)
        for p in hfcore_points:
            if p["workspace"] == rec["name"]:
                kind = p["kind"]
                points.append({"label": "hfcore_" + kind, "kind": kind,
                               "data": "asimov" if kind.startswith("asimov_") else "observed",
                               "pars": [float(v) for v in p["pars"]], "hfcore_twice_nll": p["twice_nll"]})
        for p in points:
            p["twice_nll"] = twice_nll(model, p["pars"], asimov if p["data"] == "asimov" else data)
            if not numpy.isfinite(p["twice_nll"]):
                raise SystemExit(f"{rec['name']} {p['label']}: pyhf's logpdf is not finite")
        records.append({"name": rec["name"], "points": points})
        print(rec["name"], len(points), file=sys.stderr)
    out = {
        "description": __doc__.strip().splitlines()[0],
        "provenance": provenance("make_random_logpdf_fixtures.py", ["pyhf", "numpy", "scipy"],
                                 shared_inputs=["tools/random_workspace.py"],
                                 repo_inputs=["tests/reference/multimodal/random_workspaces.json"]),
        "command": " ".join(["python3", "tests/reference/make_random_logpdf_fixtures.py"] + sys.argv[1:]),
        "seed": SEED,
        "backend": "numpy, 64b; model = Workspace.model() (normsys code4, histosys code4p)",
        "workspaces": records,
    }
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1, allow_nan=False)
        f.write("\n")


if __name__ == "__main__":
    main()
