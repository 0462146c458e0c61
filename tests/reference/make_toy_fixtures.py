#!/usr/bin/env python3
"""pyhf's own toys on a small model: the reference distribution of tests/infer/test_toys.cpp.

pyhf.infer.calculators.ToyCalculator (qtilde, mu = 1) on a one-bin model with a few hundred events (its
workspace is written into the output, so the test builds the same model): NTOYS signal + background toys and
NTOYS background-only toys, every test statistic stored (sorted), with the observed test statistic and pyhf's
CLs_b, CL_b and CLs from them. hfcore's toys come from another random stream (Philox), so the test compares
the two samples statistically (two-sample Kolmogorov-Smirnov and the tail fractions, within their Monte Carlo
error), never toy by toy.

Usage (pyhf 0.7.6, numpy backend; see provenance.py for the pins):
    python3 tests/reference/make_toy_fixtures.py [--ntoys 4000] [--seed 20261203]
Writes tests/reference/infer/toys_pyhf.json (about 10 minutes on one core).
"""
import argparse
import json
import logging
import os
import sys
import time

import numpy
import pyhf

from provenance import provenance

logging.disable(logging.WARNING)
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "infer", "toys_pyhf.json")
MU_TEST = 1.0

# One bin of 400 background events with a 3% normsys and 20 signal events (two parameters, so that pyhf's toys -
# two SLSQP fits each - take minutes, not hours): asymptotic CLs 0.45 at mu = 1 (CLs_b 0.26, CL_b 0.58), tail
# fractions far from 0 and 1 so that their binomial errors are small.
WORKSPACE = {
    "channels": [{"name": "SR", "samples": [
        {"name": "signal", "data": [20.0],
         "modifiers": [{"name": "mu", "type": "normfactor", "data": None}]},
        {"name": "bkg", "data": [400.0],
         "modifiers": [{"name": "bkg_norm", "type": "normsys", "data": {"hi": 1.03, "lo": 0.97}}]}]}],
    "observations": [{"name": "SR", "data": [405.0]}],
    "measurements": [{"name": "meas", "config": {"poi": "mu", "parameters": []}}],
    "version": "1.0.0",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ntoys", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=20261203)
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args()
    pyhf.set_backend("numpy", precision="64b")
    ws = pyhf.Workspace(WORKSPACE)
    model = ws.model()
    data = ws.data(model)
    # pyhf's numpy backend draws toys from numpy's global generator.
    numpy.random.seed(a.seed)
    t0 = time.time()
    calc = pyhf.infer.calculators.ToyCalculator(data, model, test_stat="qtilde", ntoys=a.ntoys,
                                                track_progress=False)
    q_obs = float(calc.teststatistic(MU_TEST))
    sb, b = calc.distributions(MU_TEST)
    CLsb, CLb, CLs = (float(x) for x in calc.pvalues(q_obs, sb, b))
    asym = pyhf.infer.hypotest(MU_TEST, data, model, test_stat="qtilde", return_tail_probs=True)
    out = {
        "description": __doc__.strip().splitlines()[0],
        # The script holds the model: its hash ties the numbers to it.
        "provenance": provenance("make_toy_fixtures.py", ["pyhf", "numpy", "scipy"],
                                 repo_inputs=["tests/reference/make_toy_fixtures.py"]),
        "command": " ".join(["python3", "tests/reference/make_toy_fixtures.py"] + sys.argv[1:]),
        "calculator": "pyhf.infer.calculators.ToyCalculator(data, model, test_stat='qtilde', ntoys=NTOYS)",
        "seed": a.seed,
        "seed_note": "numpy.random.seed(seed) before the calculator (pyhf's numpy backend samples from it)",
        "ntoys": a.ntoys,
        "mu_test": MU_TEST,
        "test_stat": "qtilde",
        "workspace": WORKSPACE,
        "teststat_obs": q_obs,
        "CLsb_obs": CLsb,
        "CLb_obs": CLb,
        "CLs_obs": CLs,
        "asymptotic": {"CLs_obs": float(asym[0]), "CLsb_obs": float(asym[1][0]), "CLb_obs": float(asym[1][1])},
        "sb_teststats": sorted(round(float(x), 12) for x in sb.samples),
        "b_teststats": sorted(round(float(x), 12) for x in b.samples),
        "seconds": round(time.time() - t0, 1),
    }
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1, allow_nan=False)
        f.write("\n")
    print(f"q_obs {q_obs:.6g}  CLsb {CLsb:.4f}  CLb {CLb:.4f}  CLs {CLs:.4f}  ({out['seconds']} s)")


if __name__ == "__main__":
    main()
