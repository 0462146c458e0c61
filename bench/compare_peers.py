#!/usr/bin/env python3
"""hfcore, NextStat and pyhf side by side on the same workloads, in one run, alternating the tools.

    python3 bench/compare_peers.py [--quick] [--full] [--only erjr,example,sbottom,synthetic]
                                   [--out build/bench/compare_peers.json] [--markdown build/bench/compare_peers.md]

The first run creates a virtual environment (build/bench/peers-venv, or --venv; an existing environment that
already has the pins is used as it is, e.g. --venv /work/venvs/ref) with pyhf 0.7.6 (numpy backend), nextstat
0.10.1 and scipy, and re-runs itself inside it. hfcore is driven through build/bench/bin/hfcore_timer (one
long-lived process; model compilation is outside the timings, as NextStat's and pyhf's model building is).

Threads: every tool gets 2 (--threads): hfcore's toys run their blocks on 2 worker threads (each with its own
model) and its ranking / profile scans refit on 2 threads; nextstat.set_threads(2); numpy's BLAS at 2 threads.
hfcore's single fit, hypotest and upper limit, and pyhf, run on one thread whatever the setting.

Workloads: the ATLAS 3L eRJR workspace with one signal patch, the example workspace of examples/workspaces,
one ATLAS sbottom model, and a 250-parameter synthetic model (bench/make_synthetic.py: 50 bins, 249 nuisance
parameters). Figures per model: logpdf at the suggested init, MLE fit, asymptotic hypotest (qtilde, mu = 1),
upper limit (rtol 1e-4), toy-based hypotest at mu = 1 (1000 toys per hypothesis; 10^4 with --full), ranking of
the nuisance parameters, a 31-point profile scan of the POI. pyhf has no ranking or profile scan; its toys are
timed on --pyhf-toys toys and scaled to the full count (the table says so), and it is left out where one of its
fits takes over --pyhf-fit-limit seconds (the 250-parameter model: finite-difference gradients). NextStat's toys
are scaled the same way where a full run would take over --peer-toy-limit seconds.

Answers are compared: twice_nll of the fits (a tool above the lowest minimum is "not converged"), CLs of the
hypotests and upper limits against hfcore (a tool whose fit is not converged is "wrong"), toy CLs (observed and
median expected) against hfcore within the Monte Carlo error of the two toy samples, the ranking's post-fit
impacts and the profiles' 2 Delta NLL. The JSON output records the versions, the machine, the load average before
and after, the commit and the sha256 of every input.
"""
import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import make_synthetic  # noqa: E402
from compare_pyhf import (ERJR_PATCH, HfcoreTimer, PyhfWorkload, cpu_model, ensure_venv, fmt_speedup,  # noqa: E402
                          fmt_time, median, rel_diff, time_calls)

PINS = ["pyhf==0.7.6", "nextstat==0.10.1", "scipy"]
TOOLS = ["hfcore", "nextstat", "pyhf"]
SBOTTOM = "sbottom_regionA_1300_205_60"
SYNTH = (50, 249)  # bins, nuisance parameters: 250 parameters with the POI
PROFILE_POINTS = 31
LABEL = {
    "logpdf": "logpdf, 1 point",
    "fit": "MLE fit",
    "hypotest": "hypotest (asymptotic)",
    "upper_limit": "upper limit",
    "toys": "toys",
    "ranking": "ranking (all NPs)",
    "profile": f"profile scan ({PROFILE_POINTS} pts)",
}


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def git_commit():
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return r.stdout.strip() + ("+changes" if dirty else "")


# ---------------------------------------------------------------------------------------------- the peers


class NextStatWorkload:
    """The same workload in NextStat: the patched workspace read by nextstat.from_pyhf."""

    def __init__(self, ns, spec):
        self.ns = ns
        self.model = ns.from_pyhf(json.dumps(spec))

    def logpdf(self):
        init, out = self.model.suggested_init(), {}

        def fn():
            out["logpdf"] = -self.model.nll(init)

        return fn, lambda: dict(out)

    def fit(self):
        out = {}

        def fn():
            r = self.ns.fit(self.model)
            out.update(twice_nll=float(r.twice_nll), converged=bool(r.converged), reason=r.termination_reason)

        return fn, lambda: dict(out)

    def hypotest(self, mu=1.0):
        out = {}

        def fn():
            out["CLs_obs"] = float(self.ns.hypotest(mu, self.model))

        return fn, lambda: dict(out)

    def upper_limit(self, rtol=1e-4):
        out = {}

        def fn():
            obs, exp = self.ns.upper_limit(self.model, method="root", rtol=rtol)
            out.update(obs=float(obs), exp=[float(x) for x in exp])

        return fn, lambda: dict(out)

    def toys(self, ntoys, seed, mu=1.0):
        out = {}

        def fn():
            r = self.ns.hypotest_toys(mu, self.model, n_toys=ntoys, seed=seed, expected_set=True, return_meta=True)
            out.update(ntoys=ntoys, CLs_obs=r["cls"], CLsb_obs=r["clsb"], CLb_obs=r["clb"], CLs_exp=r["expected"],
                       failed=r["n_error_b"] + r["n_error_sb"],
                       not_converged=r["n_nonconverged_b"] + r["n_nonconverged_sb"])

        return fn, lambda: dict(out)

    def ranking(self):
        out = {}

        def fn():
            out["impacts"] = {e["name"]: [e["delta_mu_up"], e["delta_mu_down"]] for e in self.ns.ranking(self.model)}

        return fn, lambda: dict(out)

    def profile(self, values):
        out = {}

        def fn():
            r = self.ns.profile_scan(self.model, values)
            lowest = min([r["nll_hat"]] + [p["nll_mu"] for p in r["points"]])
            out.update(twice_nll_min=2 * lowest, delta_twice_nll=[2 * (p["nll_mu"] - lowest) for p in r["points"]],
                       converged=all(p["converged"] for p in r["points"]))

        return fn, lambda: dict(out)


def numpy2_percentile_for_pyhf(pyhf):
    """pyhf 0.7.6's numpy backend calls numpy.percentile(..., interpolation=...), a keyword numpy 2 removed (the
    same option is now called method=): without this its toy calculator fails under numpy 2."""
    import numpy as np

    if int(np.__version__.split(".")[0]) < 2:
        return
    from pyhf.tensor.numpy_backend import numpy_backend

    def percentile(self, tensor_in, q, axis=None, interpolation="linear"):
        return np.percentile(tensor_in, q, axis=axis, method=interpolation)

    numpy_backend.percentile = percentile


def pyhf_toys(pw, ntoys, seed, mu=1.0):
    """pyhf's toy calculator (numpy's global generator seeded before each call)."""
    import numpy as np

    out = {}

    def fn():
        pw.pyhf.set_backend("numpy")
        np.random.seed(seed)
        obs, exp = pw.pyhf.infer.hypotest(mu, pw.data, pw.model, test_stat="qtilde", calctype="toybased",
                                          ntoys=ntoys, return_expected_set=True, track_progress=False)
        out.update(ntoys=ntoys, CLs_obs=float(obs), CLs_exp=[float(x) for x in exp])

    return fn, lambda: dict(out)


# ---------------------------------------------------------------------------------------------- comparisons


def toys_mc_sigma(a, b):
    """Monte Carlo standard deviation of the difference of two toy CLs values (binomial errors of CLsb and CLb,
    propagated to their ratio, the two samples independent). For the median expected CLs, CLb = 0.5 and
    CLsb = CLs / 2 (the binomial part only: the spread of the b-only median is left out)."""
    var = 0.0
    for r in (a, b):
        n = r["ntoys"]
        clsb, clb = r.get("CLsb_obs"), r.get("CLb_obs")
        if clsb is None or clb is None or clb <= 0:  # pyhf's: only CLs is returned; take it as a fraction
            cls = min(max(r["CLs_obs"], 1.0 / n), 1.0)
            var += cls * (1 - cls) / n + 1.0 / n**2
            continue
        cls = clsb / clb
        var += cls**2 * ((1 - clsb) / max(clsb * n, 1.0) + (1 - clb) / max(clb * n, 1.0)) + 1.0 / n**2
    return math.sqrt(var)


class Checks:
    def __init__(self):
        self.rows = []

    def add(self, workload, what, tool, value, reference, status, detail=""):
        self.rows.append({"workload": workload, "what": what, "tool": tool, "value": value, "hfcore": reference,
                          "status": status, "detail": detail})

    def fits(self, wl, results):
        """twice_nll of each tool's fit against the lowest; returns the tools whose fit is above it."""
        values = {t: r["twice_nll"] for t, r in results.items() if r and r.get("twice_nll") is not None}
        lowest = min(values.values())
        wrong = set()
        for t, v in values.items():
            if t == "hfcore":
                continue
            above = v - lowest
            if above > 1e-3 or v - values["hfcore"] > 1e-3:
                wrong.add(t)
                self.add(wl, "fit twice_nll", t, v, values["hfcore"], "not converged",
                         f"{above:.3g} above the lowest minimum ({lowest:.6f})")
            else:
                self.add(wl, "fit twice_nll", t, v, values["hfcore"], "agrees", f"within {abs(v - values['hfcore']):.1g}")
        if values["hfcore"] - lowest > 1e-3:
            self.add(wl, "fit twice_nll", "hfcore", values["hfcore"], values["hfcore"], "FAIL: hfcore above a peer",
                     f"{values['hfcore'] - lowest:.3g} above {lowest:.6f}")
        return wrong

    def close(self, wl, what, results, key, tol, wrong_fit, index=None):
        ref = results.get("hfcore") or {}
        if ref.get(key) is None:
            return
        r0 = ref[key] if index is None else ref[key][index]
        for t, r in results.items():
            if t == "hfcore" or not r or r.get(key) is None:
                continue
            v = r[key] if index is None else r[key][index]
            d = rel_diff(v, r0)
            if d <= tol:
                status = "agrees"
            elif t in wrong_fit:
                status = "wrong (its fit is not converged)"
            else:
                status = "differs"
            self.add(wl, what, t, v, r0, status, f"rel. diff {d:.2g} (tolerance {tol:g})")

    def toys(self, wl, results, wrong_fit):
        ref = results.get("hfcore")
        if not ref:
            return
        for t, r in results.items():
            if t == "hfcore" or not r or r.get("CLs_obs") is None:
                continue
            for what, a, b, sigma in (
                    ("toys CLs obs", r["CLs_obs"], ref["CLs_obs"], toys_mc_sigma(ref, r)),
                    ("toys CLs exp (median)", r["CLs_exp"][2], ref["CLs_exp"][2],
                     toys_mc_sigma(*({"ntoys": x["ntoys"], "CLs_obs": x["CLs_exp"][2], "CLb_obs": 0.5,
                                      "CLsb_obs": 0.5 * x["CLs_exp"][2]} for x in (ref, r))))):
                z = abs(a - b) / sigma
                status = "agrees (MC error)" if z < 3 else "differs"
                if z >= 3 and t in wrong_fit:
                    status = "wrong (its fit to the data is not converged)"
                self.add(wl, what, t, a, b, status, f"{z:.1f} sigma (MC sigma {sigma:.2g}; {r['ntoys']} vs "
                                                    f"{ref['ntoys']} toys)")

    def ranking(self, wl, results, sigma_poi, wrong_fit):
        ref, other = results.get("hfcore"), results.get("nextstat")
        if not ref or not other:
            return
        worst, name = 0.0, ""
        for n, (up, down) in other["impacts"].items():
            mine = ref["impacts"].get(n)
            if mine is None:
                continue
            d = max(abs(up - mine[0]), abs(down - mine[1])) / sigma_poi
            if d > worst:
                worst, name = d, n
        status = "agrees" if worst < 0.05 else "differs"
        if worst >= 0.05 and "nextstat" in wrong_fit:
            status = "wrong (its fit is not converged)"
        self.add(wl, "ranking post-fit impacts", "nextstat", worst, 0.0, status,
                 f"largest difference {worst:.2g} sigma_POI ({name})")

    def profile(self, wl, results):
        ref, other = results.get("hfcore"), results.get("nextstat")
        if not ref or not other:
            return
        worst = max(abs(a - b) for a, b in zip(other["delta_twice_nll"], ref["delta_twice_nll"]))
        above = other["twice_nll_min"] - ref["twice_nll_min"]
        status = "agrees" if worst < 0.01 and abs(above) < 1e-3 else "differs"
        if above > 1e-3:
            status = "not converged"
        self.add(wl, "profile 2 Delta NLL", "nextstat", worst, 0.0, status,
                 f"largest difference {worst:.2g}; its lowest twice_nll {above:+.3g} against hfcore's")


# ---------------------------------------------------------------------------------------------- the run


class Runner:
    def __init__(self, args, pyhf, ns):
        self.args, self.pyhf, self.ns = args, pyhf, ns
        self.timer = HfcoreTimer(args.timer)
        self.rows, self.checks, self.notes, self.inputs = [], Checks(), [], {}

    def log(self, msg):
        print(msg, flush=True)

    def measure(self, wl, task, label, rounds, hf_req, peers, min_time, scale=None):
        """Alternates hfcore and each peer's (fn, result) factory `rounds` times; a peer whose first round took
        over --peer-round-limit seconds is not repeated. scale[tool]: factor from the measured run to the figure
        (toys measured on fewer toys)."""
        times = {t: [] for t in TOOLS}
        cpu = {t: [] for t in TOOLS}
        results = {t: None for t in TOOLS}
        slow = min_time == 0
        for r in range(rounds):
            a = self.timer.request(cmd="time", id=wl, task=task, min_time=min_time, min_reps=1 if slow else 3,
                                   max_reps=1 if slow else 100_000, warmup=not slow, **hf_req)
            times["hfcore"] += a["times"]
            cpu["hfcore"] += a["cpu_times"]
            results["hfcore"] = a["result"]
            for tool, factory in peers.items():
                if factory is None or (r > 0 and sum(times[tool]) > self.args.peer_round_limit):
                    continue
                fn, res = factory()
                try:
                    w, c = time_calls(fn, min_time, 1 if slow else 3, max_reps=1 if slow else 100_000)
                except Exception as exc:  # noqa: BLE001 - a peer failing is reported, the run goes on
                    results[tool] = {"error": str(exc)}
                    continue
                times[tool] += w
                cpu[tool] += c
                results[tool] = res()
        row = {"workload": wl, "task": task, "label": label, "results": results}
        for t in TOOLS:
            k = (scale or {}).get(t, 1.0)
            row[f"{t}_s"] = median(times[t]) * k if times[t] else None
            row[f"{t}_cpu_s"] = median(cpu[t]) * k if cpu[t] else None
            row[f"{t}_samples"] = len(times[t])
        row["scaled"] = {t: k for t, k in (scale or {}).items() if k != 1.0}
        self.rows.append(row)
        self.log(f"  {wl:<28} {label:<30} " + "  ".join(
            f"{t} {fmt_time(row[f'{t}_s']):>9}" for t in TOOLS) +
            f"  x{fmt_speedup(row['nextstat_s'], row['hfcore_s'])} vs NextStat")
        return row

    def workload(self, wl, spec, hf_load):
        a = self.args
        info = self.timer.request(cmd="load", id=wl, **hf_load)
        path = os.path.join(a.workdir, f"{wl}.json")
        with open(path, "w") as f:
            json.dump(spec, f)
        pw = PyhfWorkload(self.pyhf, path, [])
        nw = NextStatWorkload(self.ns, spec)
        self.log(f"{wl}: {info['n_main']} bins, {info['n_pars']} parameters")
        fast, slow = a.fast_time, 0.0
        r = self.measure(wl, "logpdf", LABEL["logpdf"], a.rounds, {}, {"nextstat": nw.logpdf, "pyhf": pw.logpdf},
                         fast)["results"]
        # 1e-5: pyhf rounds the Poisson terms of very large auxiliary counts (eRJR's shapesys, tau ~ 2e11) at the
        # 1e-3 level in log L (tests/reference/model/erjr_*.json: logpdf_pyhf_rounding); elsewhere 1e-14 is seen.
        self.checks.close(wl, "logpdf", r, "logpdf", 1e-5, set())

        t0 = time.perf_counter()
        pw.fit()[0]()
        pyhf_fit_s = time.perf_counter() - t0
        use_pyhf = pyhf_fit_s <= a.pyhf_fit_limit
        if not use_pyhf:
            self.notes.append(f"{wl}: pyhf left out after the logpdf (one of its fits took {pyhf_fit_s:.1f} s, "
                              f"over --pyhf-fit-limit {a.pyhf_fit_limit:g} s)")
        py = (lambda f: f) if use_pyhf else (lambda f: None)

        fit_row = self.measure(wl, "fit", LABEL["fit"], a.rounds, {}, {"nextstat": nw.fit, "pyhf": py(pw.fit)},
                               a.slow_time)
        wrong = self.checks.fits(wl, fit_row["results"])
        r = self.measure(wl, "hypotest", LABEL["hypotest"], a.rounds, {"mu": 1.0},
                         {"nextstat": nw.hypotest, "pyhf": py(pw.hypotest)}, a.slow_time)["results"]
        self.checks.close(wl, "CLs obs (asymptotic)", r, "CLs_obs", 1e-3, wrong)
        # pyhf's toms748 scan: ~40 hypotests of 4 fits each
        pyhf_ul = use_pyhf and 160 * pyhf_fit_s <= 2 * a.peer_round_limit
        r = self.measure(wl, "upper_limit", LABEL["upper_limit"], a.rounds, {"rtol": 1e-4},
                         {"nextstat": nw.upper_limit, "pyhf": py(pw.upper_limit) if pyhf_ul else None},
                         slow)["results"]
        if use_pyhf and not pyhf_ul:
            self.notes.append(f"{wl}: pyhf's upper limit not run (~40 hypotests of 4 fits at {pyhf_fit_s:.2f} s)")
        self.checks.close(wl, "upper limit obs", r, "obs", 1e-3, wrong)

        ns_fit_s = fit_row["nextstat_s"] or 0.0
        for ntoys in a.toy_counts:
            peers, scale = {}, {}
            # NextStat: 2 fits per toy and hypothesis, on --threads threads
            est = 4 * ntoys * ns_fit_s / a.threads
            n_ns = ntoys if est <= a.peer_toy_limit else max(50, int(ntoys * a.peer_toy_limit / est))
            peers["nextstat"] = lambda n=n_ns: nw.toys(n, a.seed)
            scale["nextstat"] = ntoys / n_ns
            if use_pyhf and a.pyhf_toys > 0:
                n_py = min(ntoys, a.pyhf_toys)
                peers["pyhf"] = lambda n=n_py: pyhf_toys(pw, n, a.seed)
                scale["pyhf"] = ntoys / n_py
            label = f"toys, {ntoys} b + {ntoys} s+b"
            r = self.measure(wl, "toys", label, a.toy_rounds,
                             {"mu": 1.0, "ntoys": ntoys, "seed": a.seed, "threads": a.threads}, peers, slow, scale)
            r["ntoys"] = ntoys
            self.checks.toys(wl, r["results"], wrong)

        r = self.measure(wl, "ranking", LABEL["ranking"], a.toy_rounds, {"threads": a.threads},
                         {"nextstat": nw.ranking}, slow)["results"]
        hf = r["hfcore"]
        self.checks.ranking(wl, r, hf["poi_uncertainty"], wrong)
        lo_b, hi_b = pw.model.config.suggested_bounds()[pw.model.config.poi_index]
        mu, sig = hf["poi_hat"], hf["poi_uncertainty"]
        lo, hi = max(lo_b, mu - 3 * sig), min(hi_b, mu + 3 * sig)
        grid = [lo + (hi - lo) * k / (PROFILE_POINTS - 1) for k in range(PROFILE_POINTS)]
        r = self.measure(wl, "profile", LABEL["profile"], a.toy_rounds, {"values": grid, "threads": a.threads},
                         {"nextstat": lambda: nw.profile(grid)}, slow)["results"]
        self.checks.profile(wl, r)
        self.timer.request(cmd="unload", id=wl)


def workloads(args):
    """(name, spec, hfcore_timer load request, sha256 of the inputs) of every workload that is there."""
    import jsonpatch

    out = []
    erjr = os.path.join(args.shared, "data", "atlas-3l-erjr")
    bkg, patch = os.path.join(erjr, "BkgOnly.json"), os.path.join(erjr, ERJR_PATCH)
    if os.path.exists(bkg):
        with open(bkg) as f, open(patch) as g:
            spec = jsonpatch.apply_patch(json.load(f), json.load(g))
        out.append(("erjr", "eRJR + " + ERJR_PATCH[6:-5], spec, {"workspace": bkg, "patches": [patch]},
                    {"BkgOnly.json": sha256_file(bkg), ERJR_PATCH: sha256_file(patch)}))
    example = os.path.join(ROOT, "examples", "workspaces", "example.json")
    with open(example) as f:
        out.append(("example", "example workspace", json.load(f), {"workspace": example},
                    {"examples/workspaces/example.json": sha256_file(example)}))
    sb = os.path.join(args.shared, "validation", "pyhf-validation", SBOTTOM, "workspace.json")
    if os.path.exists(sb):
        with open(sb) as f:
            out.append(("sbottom", SBOTTOM, json.load(f), {"workspace": sb}, {f"{SBOTTOM}/workspace.json": sha256_file(sb)}))
    spec = make_synthetic.make_workspace(*SYNTH, 1)
    path = os.path.join(args.workdir, "synth_250.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    out.append(("synthetic", f"synthetic {SYNTH[1] + 1} pars", spec, {"workspace": path},
                {f"make_synthetic.make_workspace({SYNTH[0]}, {SYNTH[1]}, seed=1)": sha256_file(path)}))
    return out


# ---------------------------------------------------------------------------------------------- output


def markdown(doc):
    m = doc["meta"]
    out = [f"Run of {m['date']} (commit {m['commit']}), {m['cpu']}, {m['ncpu']} CPUs, load average {m['load_start']} "
           f"before and {m['load_end']} after; {m['threads']} threads per tool; hfcore cpu backend at 64b"
           f"{m.get('cpu_simd') or ''}, pyhf "
           f"{m['pyhf']} (numpy {m['numpy']}, scipy {m['scipy']}), NextStat {m['nextstat']}; {m['total_s']:.0f} s in "
           f"all.", "",
           "Medians of wall-clock time per call (in parentheses: the ratio of process CPU time, all threads). "
           "A figure marked * was measured on fewer toys and scaled to the count (see notes).", "",
           "| workload | figure | hfcore | NextStat | pyhf | vs NextStat | vs pyhf |", "|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        cells = []
        for t in TOOLS:
            res = r["results"].get(t)
            if res and "error" in res:
                cells.append("error")
                continue
            c = fmt_time(r[f"{t}_s"]) if r[f"{t}_s"] is not None else "-"
            if t in r["scaled"]:
                c += f"* ({res['ntoys']} toys)"
            cells.append(c)
        ratios = []
        for t in ("nextstat", "pyhf"):
            if r[f"{t}_s"] is None or not r["hfcore_s"]:
                ratios.append("-")
                continue
            ratios.append(f"{fmt_speedup(r[f'{t}_s'], r['hfcore_s'])} "
                          f"({fmt_speedup(r[f'{t}_cpu_s'], r['hfcore_cpu_s'])})")
        out.append(f"| {r['workload']} | {r['label']} | " + " | ".join(cells + ratios) + " |")
    out += ["", "| workload | answer | tool | value | hfcore | result |", "|---|---|---|---|---|---|"]
    for c in doc["checks"]:
        out.append(f"| {c['workload']} | {c['what']} | {c['tool']} | {c['value']:.6g} | {c['hfcore']:.6g} | "
                   f"{c['status']}: {c['detail']} |")
    if doc["notes"]:
        out += [""] + [f"- {n}" for n in doc["notes"]]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------- main


def parse_args():
    build = os.path.join(ROOT, "build", "bench")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(build, "compare_peers.json"))
    ap.add_argument("--markdown", default=os.path.join(build, "compare_peers.md"))
    ap.add_argument("--venv", default=os.path.join(build, "peers-venv"))
    ap.add_argument("--timer", default=os.path.join(build, "bin", "hfcore_timer"))
    ap.add_argument("--shared", default=os.environ.get("HFCORE_SHARED_DIR", os.path.join(os.path.dirname(ROOT), "shared")))
    ap.add_argument("--workdir", default=os.path.join(build, "peers-work"))
    ap.add_argument("--threads", type=int, default=2, help="threads per tool")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds of the fast figures")
    ap.add_argument("--toy-rounds", type=int, default=2, help="alternating rounds of toys, ranking, profile")
    ap.add_argument("--fast-time", type=float, default=0.3, help="seconds per round for logpdf")
    ap.add_argument("--slow-time", type=float, default=0.5, help="seconds per round for fits and hypotests")
    ap.add_argument("--seed", type=int, default=1)
    limits = (
        ("--pyhf-toys", int, 20, "toys per hypothesis pyhf runs (scaled to the count)"),
        ("--pyhf-fit-limit", float, 2.0, "pyhf is left out of a model where one of its fits takes longer (s)"),
        ("--peer-toy-limit", float, 60.0,
         "NextStat's toys are measured on fewer toys (scaled) where a full run would take longer (s)"),
        ("--peer-round-limit", float, 20.0, "a peer figure whose first round took longer (s) is not repeated"),
    )
    for flag, kind, default, text in limits:
        ap.add_argument(flag, type=kind, default=default, help=text)
    ap.add_argument("--quick", action="store_true", help="one round of everything")
    ap.add_argument("--full", action="store_true", help="also 10^4 toys per hypothesis")
    ap.add_argument("--only", default=None, help="comma-separated subset: erjr,example,sbottom,synthetic")
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.toy_rounds, args.fast_time, args.slow_time = 1, 1, 0.1, 0.2
        args.peer_toy_limit = min(args.peer_toy_limit, 30.0)
    args.toy_counts = [1000, 10_000] if args.full else [1000]
    return args


def main():
    args = parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    ensure_venv(args.venv, __file__, PINS)
    import nextstat
    import numpy
    import pyhf
    import scipy

    nextstat.set_threads(args.threads)
    numpy2_percentile_for_pyhf(pyhf)
    pyhf.set_backend("numpy")
    if not os.path.exists(args.timer):
        sys.exit(f"{args.timer} not found: build it first (cmake --build build/bench --target hfcore_timer "
                 f"hfcore-backend-cpu)")
    os.makedirs(args.workdir, exist_ok=True)
    only = set(args.only.split(",")) if args.only else None
    load_start = os.getloadavg()
    commit = git_commit()
    t_start = time.perf_counter()
    runner = Runner(args, pyhf, nextstat)
    try:
        for key, name, spec, load, inputs in workloads(args):
            if only and key not in only:
                continue
            runner.inputs[name] = inputs
            runner.workload(name, spec, load)
    finally:
        runner.timer.close()
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "commit": commit,
        "cpu": cpu_model(),
        "ncpu": os.cpu_count(),
        "threads": args.threads,
        # HFCORE_CPU_SIMD caps the cpu plugin's vector kernels (avx2, baseline): what machines without AVX-512 get
        "cpu_simd": (f" (vector kernels capped at {os.environ['HFCORE_CPU_SIMD']} by HFCORE_CPU_SIMD)"
                     if os.environ.get("HFCORE_CPU_SIMD") else ""),
        "load_start": " ".join(f"{x:.2f}" for x in load_start),
        "load_end": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "pyhf": pyhf.__version__,
        "nextstat": nextstat.__version__,
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "python": sys.version.split()[0],
        "pip_pins": PINS,
        "total_s": time.perf_counter() - t_start,
        "args": {k: v for k, v in vars(args).items() if k not in ("out", "markdown")},
    }
    doc = {"meta": meta, "inputs_sha256": runner.inputs, "rows": runner.rows, "checks": runner.checks.rows,
           "notes": runner.notes}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
    md = markdown(doc)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(md)
    print()
    print(md)
    return 1 if any(c["status"].startswith("FAIL") for c in runner.checks.rows) else 0


if __name__ == "__main__":
    sys.exit(main())
