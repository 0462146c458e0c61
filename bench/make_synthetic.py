#!/usr/bin/env python3
"""A synthetic scaling family of pyhf workspaces for benchmarks (not committed: written where you say).

Every workspace has one channel "SR" of B bins, a signal sample with a normfactor POI "mu" (bounds [0, 10])
and four background samples carrying N nuisance parameters:
  - per-bin modifiers where they fit in the budget: a staterror over all backgrounds (B parameters) when
    2B <= N, and also a shapesys on bkg_0 (B more) when 4B <= N;
  - the rest split between normsys (one half, rounded up) and histosys (the other half), assigned round-robin
    to the backgrounds.
Observations are Poisson draws around background + 0.3 x signal (seeded, reproducible).

    python3 bench/make_synthetic.py OUTDIR [--family default|small] [--seed 1]

writes OUTDIR/synth_b{B}_n{N}.json and OUTDIR/index.json (the list, with each member's composition).
Families: default = bins 1, 10, 100, 1000, 10^4 at N = 100, and N = 10, 1000 at B = 100;
small = B 1, 10, 100 at N = 10 (quick checks).
"""
import argparse
import json
import math
import os
import random

AMP = (100.0, 60.0, 40.0, 20.0)
SLOPE = (1.0, 2.0, 0.5, 3.0)

FAMILIES = {
    "default": [(1, 100), (10, 100), (100, 100), (1000, 100), (10000, 100), (100, 10), (100, 1000)],
    "small": [(1, 10), (10, 10), (100, 10)],
}


def poisson(rng, lam):
    if lam < 30.0:  # Knuth
        limit, k, p = math.exp(-lam), 0, 1.0
        while True:
            p *= rng.random()
            if p <= limit:
                return float(k)
            k += 1
    return float(max(0, round(rng.gauss(lam, math.sqrt(lam)))))


def composition(bins, nuisance):
    stat = 2 * bins <= nuisance
    shapesys = 4 * bins <= nuisance
    rest = nuisance - (bins if stat else 0) - (bins if shapesys else 0)
    return {
        "staterror": bins if stat else 0,
        "shapesys": bins if shapesys else 0,
        "normsys": rest - rest // 2,
        "histosys": rest // 2,
    }


def make_workspace(bins, nuisance, seed=1):
    rng = random.Random(seed * 1_000_003 + bins * 7919 + nuisance)
    xs = [(i + 0.5) / bins for i in range(bins)]
    bkg = [[AMP[s] * math.exp(-SLOPE[s] * x) for x in xs] for s in range(4)]
    sig = [20.0 * math.exp(-0.5 * ((x - 0.5) / 0.1) ** 2) + 0.5 for x in xs]
    comp = composition(bins, nuisance)
    mods = [[] for _ in range(4)]
    for j in range(comp["normsys"]):
        hi, lo = 1.0 + rng.uniform(0.02, 0.15), 1.0 - rng.uniform(0.02, 0.15)
        mods[j % 4].append({"name": f"norm_{j}", "type": "normsys", "data": {"hi": hi, "lo": lo}})
    for j in range(comp["histosys"]):
        s, a = j % 4, rng.uniform(0.02, 0.1)
        hi = [b * (1.0 + a * (0.5 + (x - 0.5))) for b, x in zip(bkg[s], xs)]
        lo = [b * (1.0 - a * (0.5 - 0.8 * (x - 0.5))) for b, x in zip(bkg[s], xs)]
        mods[s].append({"name": f"shape_{j}", "type": "histosys", "data": {"hi_data": hi, "lo_data": lo}})
    for s in range(4):
        if comp["staterror"]:
            mods[s].append({"name": "staterror_SR", "type": "staterror", "data": [0.05 * b for b in bkg[s]]})
        if comp["shapesys"] and s == 0:
            mods[s].append({"name": "shapesys_bkg_0", "type": "shapesys", "data": [0.1 * b for b in bkg[s]]})
    samples = [{"name": "signal", "data": sig, "modifiers": [{"name": "mu", "type": "normfactor", "data": None}]}]
    samples += [{"name": f"bkg_{s}", "data": bkg[s], "modifiers": mods[s]} for s in range(4)]
    obs = [poisson(rng, 0.3 * sig[i] + sum(bkg[s][i] for s in range(4))) for i in range(bins)]
    return {
        "channels": [{"name": "SR", "samples": samples}],
        "observations": [{"name": "SR", "data": obs}],
        "measurements": [{"name": "meas", "config": {"poi": "mu", "parameters": []}}],
        "version": "1.0.0",
    }


def write_family(outdir, family="default", seed=1):
    """Writes the family's workspaces and index.json; returns the index entries."""
    os.makedirs(outdir, exist_ok=True)
    entries = []
    for bins, nuisance in FAMILIES[family]:
        name = f"synth_b{bins}_n{nuisance}"
        path = os.path.join(outdir, name + ".json")
        with open(path, "w") as f:
            json.dump(make_workspace(bins, nuisance, seed), f)
        entries.append({"name": name, "path": os.path.abspath(path), "bins": bins, "nuisance": nuisance,
                        "n_pars": 1 + nuisance, "composition": composition(bins, nuisance)})
    with open(os.path.join(outdir, "index.json"), "w") as f:
        json.dump({"family": family, "seed": seed, "workspaces": entries}, f, indent=1)
    return entries


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--family", choices=sorted(FAMILIES), default="default")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for e in write_family(args.outdir, args.family, args.seed):
        print(f"{e['path']}: {e['bins']} bins, {e['nuisance']} nuisance parameters {e['composition']}")


if __name__ == "__main__":
    main()
