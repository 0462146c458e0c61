#!/usr/bin/env python3
"""hfcore's diagnostics side by side with NextStat and cabinetry, on the same workspaces, in one run.

    python3 bench/compare_diagnostics.py [--hfcore build/release/bin/hfcore] [--out build/bench/diagnostics.json]
                                         [--markdown table.md] [--reps 3] [--cabinetry-pars 6] [--only NAME ...]

Run it with a Python that has nextstat, cabinetry (with iminuit) and pyhf (e.g. /work/venvs/ref/bin/python;
to recreate: pip install nextstat==0.10.1 cabinetry==0.6.0 pyhf==0.7.6 iminuit==2.33.0). It records the versions,
the machine and the sha256 of every input in its JSON output.

Workspaces: the ATLAS 3L eRJR likelihood with one signal patch, the five ATLAS sbottom models of pyhf's
regression tests, and a synthetic model of 200 parameters (bench/make_synthetic.py's generator, 50 bins,
199 nuisance parameters: staterror, shapesys, normsys, histosys).

Tasks, each timed on wall clock (median of --reps runs; the machine's load is recorded):
  - ranking of every nuisance parameter: `hfcore ranking WS` (process start and model compilation included,
    default batched fits, --threads = CPUs), nextstat.ranking(model) (model built outside the timing), and
    cabinetry.fit.ranking (cabinetry's defaults). cabinetry's ranking is one Minuit fit per impact from the
    suggested init; it is timed on its nominal fit plus the four fits of --cabinetry-pars parameters (the
    same fits cabinetry.fit.ranking runs) and extrapolated to all parameters - the table says so.
  - a 31-point profile scan of the POI over [max(lower bound, mu_hat - 3 sigma), mu_hat + 3 sigma]: `hfcore
    profile`, nextstat.profile_scan, and cabinetry.fit.scan (timed on 4 points and extrapolated).
Answers are compared where the definitions agree: NextStat's delta_mu_up/down against hfcore's post-fit
impacts (largest difference in units of the POI's uncertainty), the profiles' 2 Delta NLL point by point,
cabinetry's impacts on the timed parameters.
"""
import argparse
import hashlib
import json
import logging
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import make_synthetic  # noqa: E402
from compare_pyhf import ERJR_PATCH, SBOTTOM  # noqa: E402  (the same workloads as the pyhf comparison)

SHARED = os.environ.get("HFCORE_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
SCAN_POINTS = 31


def sha256_bytes(b):
    return hashlib.sha256(b).hexdigest()


def workspaces(tmp):
    """(name, path of the complete workspace, description of the input) for every workload."""
    out = []
    import jsonpatch

    bkg_path = os.path.join(SHARED, "data", "atlas-3l-erjr", "BkgOnly.json")
    patch_path = os.path.join(SHARED, "data", "atlas-3l-erjr", ERJR_PATCH)
    if os.path.exists(bkg_path):
        bkg, patch = open(bkg_path, "rb").read(), open(patch_path, "rb").read()
        ws = jsonpatch.apply_patch(json.loads(bkg), json.loads(patch))
        path = os.path.join(tmp, "erjr.json")
        json.dump(ws, open(path, "w"))
        out.append(("eRJR " + ERJR_PATCH[6:-5], path,
                    {"BkgOnly.json": sha256_bytes(bkg), ERJR_PATCH: sha256_bytes(patch)}))
    for name in SBOTTOM:
        path = os.path.join(SHARED, "validation", "pyhf-validation", name, "workspace.json")
        if os.path.exists(path):
            out.append((name, path, {"workspace.json": sha256_bytes(open(path, "rb").read())}))
    path = os.path.join(tmp, "synth_b50_n199.json")
    json.dump(make_synthetic.make_workspace(50, 199, 1), open(path, "w"))
    out.append(("synthetic 200 pars", path,
                {"make_synthetic.make_workspace(50, 199, seed=1)": sha256_bytes(open(path, "rb").read())}))
    return out


def timed(fn, reps):
    """Median wall time and median CPU time (this process and the children it waited for) over reps calls."""
    walls, cpus, result = [], [], None
    for _ in range(reps):
        r0, c0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        result = fn()
        walls.append(time.perf_counter() - t0)
        r1, c1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(sum(b.ru_utime + b.ru_stime - a.ru_utime - a.ru_stime for a, b in ((r0, r1), (c0, c1))))
    return statistics.median(walls), walls, statistics.median(cpus), result


def hfcore_json(exe, args):
    p = subprocess.run([exe] + args, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"hfcore {' '.join(args)}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def cabinetry_ranking(row, args, model, data, fr, t_nominal, ours, sigma_poi):
    """cabinetry.fit.ranking's fits for the --cabinetry-pars largest impacts, extrapolated to every parameter."""
    import cabinetry

    labels = model.config.par_names
    poi = model.config.poi_index
    prefit = cabinetry.model_utils.prefit_uncertainties(model)
    order = sorted((i for i in range(len(labels)) if i != poi), key=lambda i: -abs(ours.get(labels[i], {}).get("impact_postfit_up", 0)))
    chosen = order[: args.cabinetry_pars]
    n_total_fits = sum(1 for i in range(len(labels)) if i != poi
                       for v in (prefit[i], prefit[i], fr.uncertainty[i], fr.uncertainty[i]) if v != 0)
    fit_times, cab_worst = [], 0.0
    for i in chosen:
        fix = list(model.config.suggested_fixed())
        fix[i] = True
        for w, v in enumerate((fr.bestfit[i] + prefit[i], fr.bestfit[i] - prefit[i],
                               fr.bestfit[i] + fr.uncertainty[i], fr.bestfit[i] - fr.uncertainty[i])):
            if v == fr.bestfit[i]:
                continue
            init = list(model.config.suggested_init())
            init[i] = v
            t0 = time.perf_counter()
            try:
                f = cabinetry.fit._fit_model(model, data, init_pars=init, fix_pars=fix)
            except Exception as exc:  # noqa: BLE001 - cabinetry raises when Minuit's minimum is invalid
                row.setdefault("cabinetry_errors", []).append(f"{labels[i]}: {exc}")
                fit_times.append(time.perf_counter() - t0)
                continue
            fit_times.append(time.perf_counter() - t0)
            key = ["impact_prefit_up", "impact_prefit_down", "impact_postfit_up", "impact_postfit_down"][w]
            if labels[i] in ours:
                cab_worst = max(cab_worst, abs((f.bestfit[poi] - fr.bestfit[poi]) - ours[labels[i]][key]))
    row["cabinetry_ranking_s"] = t_nominal + statistics.mean(fit_times) * n_total_fits
    row["cabinetry_ranking_extrapolated_from_fits"] = len(fit_times)
    row["cabinetry_ranking_total_fits"] = n_total_fits
    row["cabinetry_vs_hfcore_impact_max_diff_in_sigma_poi"] = cab_worst / sigma_poi if sigma_poi > 0 else None


def run_one(name, path, args):
    import cabinetry
    import nextstat
    import numpy as np
    import pyhf

    logging.disable(logging.WARNING)
    row = {"name": name}
    spec = json.load(open(path))
    model, data = cabinetry.model_utils.model_and_data(spec)
    ns_model = nextstat.HistFactoryModel.from_workspace(open(path).read())
    poi_name = model.config.poi_name
    row["n_pars"] = model.config.npars

    # ---- ranking
    t, times, cpu, hf = timed(lambda: hfcore_json(args.hfcore, ["ranking", path]), args.reps)
    row["hfcore_ranking_s"], row["hfcore_ranking_runs"], row["hfcore_ranking_cpu_s"] = t, times, cpu
    row["hfcore_ranking_fits"] = hf["n_fits"]
    row["hfcore_ranking_converged"] = hf["converged"]
    t, times, cpu, ns = timed(lambda: nextstat.ranking(ns_model), args.reps)
    row["nextstat_ranking_s"], row["nextstat_ranking_runs"], row["nextstat_ranking_cpu_s"] = t, times, cpu
    sigma_poi = hf["poi_uncertainty"]
    ours = {e["name"]: e for e in hf["ranking"]}
    worst, compared = 0.0, 0
    for e in ns:
        o = ours.get(e["name"])
        if o is None:
            continue
        compared += 1
        worst = max(worst, abs(e["delta_mu_up"] - o["impact_postfit_up"]), abs(e["delta_mu_down"] - o["impact_postfit_down"]))
    row["nextstat_vs_hfcore_postfit_impact_max_diff_in_sigma_poi"] = worst / sigma_poi if sigma_poi > 0 else None
    row["nextstat_ranking_compared"] = compared

    # cabinetry: nominal fit + the four fits of a few parameters (cabinetry.fit.ranking's own loop body).
    # Its nominal fit can fail where pyhf's does (eRJR); hfcore and NextStat are still compared then.
    t0 = time.perf_counter()
    try:
        fr = cabinetry.fit.fit(model, data)
    except Exception as exc:  # noqa: BLE001 - cabinetry raises when Minuit's minimum is invalid
        row["cabinetry_error"] = f"nominal fit: {exc}"
        fr = None
    t_nominal = time.perf_counter() - t0
    if fr is not None:
        cabinetry_ranking(row, args, model, data, fr, t_nominal, ours, sigma_poi)

    # ---- 31-point profile of the POI
    lo_b, hi_b = model.config.suggested_bounds()[poi]
    mu = hf["poi_hat"]
    lo, hi = max(lo_b, mu - 3 * sigma_poi), min(hi_b, mu + 3 * sigma_poi)
    grid = [lo + (hi - lo) * k / (SCAN_POINTS - 1) for k in range(SCAN_POINTS)]
    rng = f"{lo!r},{hi!r},{SCAN_POINTS}"
    t, times, cpu, hp = timed(lambda: hfcore_json(args.hfcore, ["profile", path, "--par", poi_name, f"--range={rng}"]),
                              args.reps)
    row["hfcore_profile_s"], row["hfcore_profile_runs"], row["hfcore_profile_cpu_s"] = t, times, cpu
    row["hfcore_profile_converged"] = hp["converged"]
    t, times, cpu, nsp = timed(lambda: nextstat.profile_scan(ns_model, grid), args.reps)
    row["nextstat_profile_s"], row["nextstat_profile_runs"], row["nextstat_profile_cpu_s"] = t, times, cpu
    ns_min = min(p["nll_mu"] for p in nsp["points"])
    ns_delta = [2 * (p["nll_mu"] - min(ns_min, nsp["nll_hat"])) for p in nsp["points"]]
    ours_delta = [p["delta_twice_nll"] for p in hp["points"]]
    row["nextstat_vs_hfcore_profile_max_diff"] = max(abs(a - b) for a, b in zip(ns_delta, ours_delta))
    row["nextstat_profile_min_vs_hfcore_twice_nll"] = 2 * min(ns_min, nsp["nll_hat"]) - hp["twice_nll_min"]
    # cabinetry.fit.scan: one Minuit fit per point from the suggested init; 4 points timed, extrapolated to 31
    if fr is not None:
        t0 = time.perf_counter()
        cabinetry.fit.scan(model, data, poi_name, par_range=(grid[0], grid[3]), n_steps=4)
        t4 = time.perf_counter() - t0  # includes its own nominal fit
        row["cabinetry_profile_s"] = t4 - t_nominal + (t4 - t_nominal) / 4 * (SCAN_POINTS - 4) + t_nominal
        row["cabinetry_profile_extrapolated_from_points"] = 4
    del pyhf, np
    return row


def markdown(rows):
    lines = [
        "| workspace | pars | ranking fits | ranking: hfcore | NextStat | cabinetry* | vs NextStat (CPU) | "
        "vs cabinetry | profile 31 pts: hfcore | NextStat | vs NextStat (CPU) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['name']} | error: {r['error']} |")
            continue
        if "cabinetry_ranking_s" in r:
            cab = f"{r['cabinetry_ranking_s']:.0f} s"
            cab_ratio = f"{r['cabinetry_ranking_s'] / r['hfcore_ranking_s']:.0f}x"
        else:  # its nominal fit failed (the error is in the JSON)
            cab, cab_ratio = "fit failed", "-"
        lines.append(
            f"| {r['name']} | {r['n_pars']} | {r['hfcore_ranking_fits']} | {r['hfcore_ranking_s']:.3f} s | "
            f"{r['nextstat_ranking_s']:.2f} s | {cab} | "
            f"{r['nextstat_ranking_s'] / r['hfcore_ranking_s']:.0f}x "
            f"({r['nextstat_ranking_cpu_s'] / r['hfcore_ranking_cpu_s']:.0f}x) | "
            f"{cab_ratio} | {r['hfcore_profile_s']:.3f} s | "
            f"{r['nextstat_profile_s']:.2f} s | {r['nextstat_profile_s'] / r['hfcore_profile_s']:.0f}x "
            f"({r['nextstat_profile_cpu_s'] / r['hfcore_profile_cpu_s']:.0f}x) |")
    lines.append("")
    lines.append("Wall-clock medians; in parentheses the ratio of CPU time (all threads). *cabinetry's ranking is "
                 "extrapolated from its nominal fit and the fits of a few parameters.")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hfcore", default=os.path.join(ROOT, "build", "release", "bin", "hfcore"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench", "diagnostics.json"))
    ap.add_argument("--markdown")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cabinetry-pars", type=int, default=6)
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    import cabinetry
    import iminuit
    import nextstat
    import pyhf

    info = {
        "software": {"nextstat": nextstat.__version__ if hasattr(nextstat, "__version__") else "?",
                     "cabinetry": cabinetry.__version__, "pyhf": pyhf.__version__, "iminuit": iminuit.__version__,
                     "python": platform.python_version()},
        "machine": {"cpu": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                    "loadavg_start": os.getloadavg()},
        "hfcore": args.hfcore,
    }
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, path, inputs in workspaces(tmp):
            if args.only and not any(o in name for o in args.only):
                continue
            print(f"{name} ...", file=sys.stderr, flush=True)
            try:
                row = run_one(name, path, args)
            except Exception as exc:  # noqa: BLE001 - one workload failing is reported, the others go on
                row = {"name": name, "error": str(exc)}
            row["inputs_sha256"] = inputs
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
    info["machine"]["loadavg_end"] = os.getloadavg()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    json.dump({"info": info, "rows": rows}, open(args.out, "w"), indent=1)
    table = markdown(rows)
    print(table)
    if args.markdown:
        open(args.markdown, "w").write(table + "\n")


if __name__ == "__main__":
    main()
