#!/usr/bin/env python3
"""A large pyhf workspace for the memory and size limits of docs/performance.md ("Memory and size limits").

usage: bench/make_large_workspace.py [--channels 100] [--bins 1000] [--pars 1000] [--seed 1] > large.json

channels x bins main bins (default 10^5) and exactly `pars` parameters (default 10^3): mu (normfactor of the
signal), lumi, and a pool of shared normsys (80 %) and histosys (20 %) parameters, each channel's background
carrying 8 normsys and 2 histosys of the pool (every pool parameter used at least once). No staterror or
shapesys, which would add a parameter per bin. Observations: the nominal total, rounded. Standard library only.
With --pad-mb N the document is padded (an unused "padding" sample-free channel list is not allowed by the schema,
so the padding is extra measurements) to about N MB, for the size limit.
"""
import argparse
import json
import random
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--channels", type=int, default=100)
    ap.add_argument("--bins", type=int, default=1000)
    ap.add_argument("--pars", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pad-mb", type=float, default=0.0)
    a = ap.parse_args()
    r = random.Random(a.seed)
    pool = a.pars - 2
    n_hist = pool // 5
    norms = [f"alpha_{i}" for i in range(pool - n_hist)]
    hists = [f"theta_{i}" for i in range(n_hist)]
    channels, observations = [], []
    for c in range(a.channels):
        sig = [round(r.uniform(0.1, 5.0), 3) for _ in range(a.bins)]
        bkg = [round(r.uniform(20.0, 200.0), 3) for _ in range(a.bins)]
        # Round-robin over the pool (so every parameter is used), then random extras.
        my_norms = {norms[(8 * c + k) % len(norms)] for k in range(8)}
        my_hists = {hists[(2 * c + k) % len(hists)] for k in range(2)}
        mods = [{"name": "lumi", "type": "lumi", "data": None}]
        for n in sorted(my_norms):
            mods.append({"name": n, "type": "normsys",
                         "data": {"hi": round(r.uniform(1.01, 1.1), 4), "lo": round(r.uniform(0.9, 0.99), 4)}})
        for h in sorted(my_hists):
            up = r.uniform(1.0, 1.05)
            mods.append({"name": h, "type": "histosys",
                         "data": {"hi_data": [round(b * up, 3) for b in bkg],
                                  "lo_data": [round(b / up, 3) for b in bkg]}})
        channels.append({"name": f"ch{c:04d}", "samples": [
            {"name": "signal", "data": sig, "modifiers": [{"name": "mu", "type": "normfactor", "data": None}]},
            {"name": "bkg", "data": bkg, "modifiers": mods}]})
        observations.append({"name": f"ch{c:04d}", "data": [round(b) for b in bkg]})
    used = {m["name"] for ch in channels for s in ch["samples"] for m in s["modifiers"]}
    assert len(used) == a.pars or a.channels * 8 < len(norms), (len(used), a.pars)
    meas = {"name": "meas", "config": {"poi": "mu", "parameters": [
        {"name": "lumi", "auxdata": [1.0], "sigmas": [0.02], "bounds": [[0.9, 1.1]], "inits": [1.0]}]}}
    measurements = [meas]
    ws = {"channels": channels, "observations": observations, "measurements": measurements, "version": "1.0.0"}
    if a.pad_mb > 0:
        # Extra measurements with long parameter lists of unused names: valid, ignored by the model.
        size = len(json.dumps(ws))
        k = 0
        pad = [{"name": f"unused_{i}", "inits": [1.0], "bounds": [[0.0, 2.0]]} for i in range(1000)]
        one = len(json.dumps({"name": "pad_00000", "config": {"poi": "mu", "parameters": pad}})) + 2
        while size < a.pad_mb * 1e6:
            measurements.append({"name": f"pad_{k:05d}", "config": {"poi": "mu", "parameters": pad}})
            size += one
            k += 1
    json.dump(ws, sys.stdout)


if __name__ == "__main__":
    main()
