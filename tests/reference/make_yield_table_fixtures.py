#!/usr/bin/env python3
"""Reference numbers for `hfcore yields --table` and hfcore.tabulate.yields: cabinetry's yield tables.

For each case this records, with cabinetry 0.6.0 and pyhf 0.7.6 (default interpolation codes, code4/code4p, as
cabinetry.model_utils.model_and_data builds the model):
  - the fit cabinetry.fit.fit makes (bestfit, uncertainty, correlation matrix), so a test can feed the same
    parameters, uncertainties and correlations to hfcore and check the propagation alone;
  - pre-fit and post-fit predictions (cabinetry.model_utils.prediction, i.e. model_utils.yield_stdev): per
    channel, sample and bin the yield and its standard deviation, the same summed over the channel's bins (with
    the standard deviation of that sum), the total over samples per bin and per channel with theirs, the data;
  - cabinetry.tabulate.yields(per_bin=True, per_channel=True) for both predictions: the rows as cabinetry
    returns them (cells "yield ± stdev" with two decimals).

Usage: python3 tests/reference/make_yield_table_fixtures.py [NAME ...]     (default: all; see CASES)
Environment: pip install cabinetry==0.6.0 pyhf==0.7.6 (their versions are recorded). Inputs are read from ../shared
(HFCORE_SHARED_DIR) and the repository; their sha256 is recorded. Writes tests/reference/yield_tables/<name>.json.
"""
import json
import logging
import os
import sys

import cabinetry
import numpy as np
import pyhf

from provenance import provenance

logging.disable(logging.WARNING)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("HFCORE_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
OUT = os.path.join(HERE, "yield_tables")

# name -> (root: "repo" or "shared", path under it)
CASES = {
    "example": ("repo", "examples/workspaces/example.json"),
    "sbottom_regionA_1300_205_60": ("shared", "validation/pyhf-validation/sbottom_regionA_1300_205_60/workspace.json"),
}


def floats(x):
    return [float(v) for v in np.asarray(x, dtype=float).ravel()]


def prediction_dict(model, data, pred):
    data_ch = cabinetry.model_utils._data_per_channel(model, data)
    channels = []
    for c, ch in enumerate(model.config.channels):
        per_bin = np.asarray(pred.model_yields[c], dtype=float)  # [sample, bin]
        stdev_bins = pred.total_stdev_model_bins[c]                # [sample + total, bin]
        stdev_chan = pred.total_stdev_model_channels[c]            # [sample + total]
        samples = []
        for s, name in enumerate(model.config.samples):
            samples.append({"name": name, "yields": floats(per_bin[s]), "stdev": floats(stdev_bins[s]),
                            "channel_sum": float(per_bin[s].sum()), "channel_sum_stdev": float(stdev_chan[s])})
        channels.append({
            "name": ch,
            "samples": samples,
            "total": floats(per_bin.sum(axis=0)),
            "total_stdev": floats(stdev_bins[-1]),
            "channel_total": float(per_bin.sum()),
            "channel_total_stdev": float(stdev_chan[-1]),
            "data": floats(data_ch[c]),
        })
    return channels


def tables(pred, data):
    t = cabinetry.tabulate.yields(pred, data, per_bin=True, per_channel=True, save_tables=False)
    return {"per_bin": t["yields_per_bin"], "per_channel": t["yields_per_channel"]}


def run(name):
    where, rel = CASES[name]
    path = os.path.join(ROOT if where == "repo" else SHARED, rel)
    ws = pyhf.Workspace(json.load(open(path)))
    model, data = cabinetry.model_utils.model_and_data(ws)
    fr = cabinetry.fit.fit(model, data)
    prefit = cabinetry.model_utils.prediction(model)
    postfit = cabinetry.model_utils.prediction(model, fit_results=fr)
    out = {
        "description": f"cabinetry yield tables for {rel}",
        "provenance": provenance("make_yield_table_fixtures.py", ["cabinetry", "pyhf", "numpy"],
                                 shared_inputs=[rel] if where == "shared" else [],
                                 repo_inputs=[rel] if where == "repo" else []),
        "par_names": list(model.config.par_names),
        "fit": {"bestfit": floats(fr.bestfit), "uncertainty": floats(fr.uncertainty),
                "corr_mat": [floats(r) for r in np.asarray(fr.corr_mat)]},
        "prefit": {"yields": prediction_dict(model, data, prefit), "tables": tables(prefit, data)},
        "postfit": {"yields": prediction_dict(model, data, postfit), "tables": tables(postfit, data)},
    }
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(out, f, indent=1, allow_nan=False, ensure_ascii=False)
    print(f"{name}: written", file=sys.stderr)


def main():
    names = sys.argv[1:] or list(CASES)
    for n in names:
        if n not in CASES:
            sys.exit(f"unknown case {n}; known: {', '.join(CASES)}")
        run(n)


if __name__ == "__main__":
    main()
