#!/usr/bin/env python3
"""cabinetry's workflow timed step by step on real pyhf and on hfcore standing in for pyhf, one after the other
(never at once, so neither slows the other), and the ratio per step.

    python bench/compare_cabinetry.py [WORKSPACE.json ...] [--skip STEP,...] [--json OUT.json]

Needs cabinetry, iminuit, pyhf and hfcore installed in the running Python. The steps and their settings are
tests/python/cabinetry_workflow.py's (Minuit strategy 2, tolerance 1e-4; limit to a POI tolerance of 1e-4);
the first workspace defaults to examples/workspaces/example.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKFLOW = os.path.join(ROOT, "tests", "python", "cabinetry_workflow.py")


def time_engine(engine, workspace, skip, tmp):
    out = os.path.join(tmp, f"{engine}.json")
    cmd = [sys.executable, WORKFLOW, engine, workspace, out, os.path.join(tmp, f"figures-{engine}")]
    if skip:
        cmd += ["--skip", skip]
    subprocess.run(cmd, check=True, env=dict(os.environ, MPLBACKEND="Agg"))
    with open(out) as f:
        return json.load(f)["times"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspaces", nargs="*", default=[os.path.join(ROOT, "examples", "workspaces", "example.json")])
    parser.add_argument("--skip", default="", help="steps to leave out (fit.ranking, fit.limit), comma-separated")
    parser.add_argument("--json", help="write the times and ratios here")
    args = parser.parse_args(argv)
    report = {}
    for ws in args.workspaces:
        with tempfile.TemporaryDirectory() as tmp:
            t_p = time_engine("pyhf", ws, args.skip, tmp)
            t_h = time_engine("hfcore", ws, args.skip, tmp)
        print(f"\n{ws}")
        print(f"{'step':44s} {'pyhf [s]':>10s} {'hfcore [s]':>11s} {'ratio':>8s}")
        rows = {}
        for step in t_p:
            ratio = t_p[step] / t_h[step] if t_h[step] > 0 else float("inf")
            rows[step] = {"pyhf_s": t_p[step], "hfcore_s": t_h[step], "ratio": ratio}
            print(f"{step:44s} {t_p[step]:10.3f} {t_h[step]:11.3f} {ratio:7.1f}x")
        total_p, total_h = sum(t_p.values()), sum(t_h.values())
        print(f"{'total':44s} {total_p:10.3f} {total_h:11.3f} {total_p / total_h:7.1f}x")
        report[ws] = rows
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
