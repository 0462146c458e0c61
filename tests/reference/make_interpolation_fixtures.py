#!/usr/bin/env python3
"""pyhf's interpolation codes evaluated on a grid of alphas: the reference of tests/conformance/test_interpolation.cpp.

histosys codes code0, code2, code4p give the additive delta of a bin from (lo, nom, hi); normsys codes code1 and
code4 (alpha0 = 1) the multiplicative factor from (lo, hi) factors (nominal 1), as pyhf.interpolators computes
them (numpy backend, 64b). The alphas cover |alpha| < 1, |alpha| > 1, the kink at 0 and the joins at +-1 (with
points just inside and outside). The test also writes each code as a closed form and checks those against these
numbers, so neither the test nor the plugins are their own reference.

Usage: python3 tests/reference/make_interpolation_fixtures.py   (pyhf 0.7.6, numpy)
Writes tests/reference/interpolation/pyhf_interpolators.json.
"""
import json
import os

import numpy as np
import pyhf

from provenance import HERE, provenance

pyhf.set_backend("numpy", precision="64b")

ALPHAS = [-2.5, -1.5, -1.001, -1.0, -0.999, -0.7, -0.3, -1e-3, 0.0, 1e-3, 0.4, 0.8, 0.999, 1.0, 1.001, 1.6, 3.0]
# (lo, nom, hi) per bin: asymmetric, both variations up, symmetric, one-sided, both down (every rate stays
# positive at every alpha).
HISTOSYS_BINS = [[7.0, 10.0, 14.0], [12.0, 10.0, 13.0], [8.0, 10.0, 12.0], [10.0, 10.0, 15.0], [4.0, 5.0, 4.5]]
# (lo, hi) factors per bin: asymmetric, both up, symmetric, both down.
NORMSYS_BINS = [[0.8, 1.3], [1.1, 1.2], [0.9, 1.1], [0.6, 0.95]]


def evaluate(code, histos):
    """histos: per bin (lo, nom, hi). Returns values[alpha][bin]."""
    hs = np.array([[[[b[0] for b in histos], [b[1] for b in histos], [b[2] for b in histos]]]])
    key = "4p" if code == "code4p" else int(code[4:])
    interp = pyhf.interpolators.get(key)(hs.tolist())
    out = interp(np.array([ALPHAS]))  # shape (1 set, 1 histo, alphas, bins)
    return [[float(v) for v in row] for row in np.asarray(out)[0, 0]]


def main():
    normsys_histos = [[lo, 1.0, hi] for lo, hi in NORMSYS_BINS]
    out = {
        "description": __doc__.strip().splitlines()[0],
        "provenance": provenance("make_interpolation_fixtures.py", ["pyhf", "numpy"]),
        "alphas": ALPHAS,
        "histosys": {"bins_lo_nom_hi": HISTOSYS_BINS,
                     "delta": {c: evaluate(c, HISTOSYS_BINS) for c in ("code0", "code2", "code4p")}},
        "normsys": {"bins_lo_hi": NORMSYS_BINS,
                    "factor": {c: evaluate(c, normsys_histos) for c in ("code1", "code4")}},
    }
    os.makedirs(os.path.join(HERE, "interpolation"), exist_ok=True)
    with open(os.path.join(HERE, "interpolation", "pyhf_interpolators.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
