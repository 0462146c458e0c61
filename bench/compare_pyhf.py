#!/usr/bin/env python3
"""hfcore and pyhf side by side, on the same workloads, in one run.

    python3 bench/compare_pyhf.py [--out build/bench/compare_pyhf.json] [--markdown table.md] [--quick]

The first run creates a virtual environment (build/bench/pyhf-venv, or --venv) with pyhf 0.7.6 (numpy
backend), matplotlib and, when it installs, jax (for jax.jit + jax.vmap batched logpdf), and re-runs itself
inside it. hfcore is driven through build/bench/bin/hfcore_timer (a long-lived process answering JSON
requests, so that hfcore and pyhf measurements alternate without process start or model compilation in the
timings) and, for the full eRJR scan, the `hfcore scan` command.

Workloads: the ATLAS 3L eRJR workspace with one signal patch, the five ATLAS sbottom models of pyhf's
regression tests, the synthetic family of bench/make_synthetic.py, and the 66-point eRJR scan (CLs at mu = 1
and observed + expected upper limits per point). Figures: logpdf at one point, batched logpdf (10^4 points),
MLE fit, asymptotic hypotest (qtilde, mu = 1), upper limit (toms748, rtol 1e-4), the full scan. Each is the
median of the per-call times over all rounds; speed-up = pyhf time / hfcore time. pyhf's full scan is timed
on a few points (--scan-points) and extrapolated to 66; the table says so.

Answers are checked where pyhf's fit converges (sbottom, synthetic): CLs within 1e-4 relative, twice_nll
within 1e-5 (relative to max(1, |twice_nll|)). Where hfcore's fit finds a lower minimum than pyhf's, pyhf is
reported as not converged; where CLs differ with pyhf's default fit tolerance (tiny CLs amplify small fit
differences), pyhf's hypotest is repeated with scipy tolerance 1e-12 before a failure is declared (exit code 1
on a failure). On eRJR pyhf's default fit (scipy SLSQP) stays at its
starting point; the script reports pyhf's time as measured, says the answer is wrong and prints both
twice_nll values.
"""
import argparse
import glob
import json
import math
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import make_synthetic  # noqa: E402

SBOTTOM = [
    "sbottom_regionA_1300_205_60",
    "sbottom_regionA_1400_950_60",
    "sbottom_regionA_1500_850_60",
    "sbottom_regionB_1400_550_60",
    "sbottom_regionC_1600_850_60",
]
ERJR_PATCH = "patch.ERJR_100p0_20p0.json"
BATCH_K = 10_000
# pyhf's batched numpy evaluation materialises [modifiers, K, samples, bins] arrays; above this many bytes
# (estimated) the batched figure is not measured for pyhf.
PYHF_BATCH_MEMORY = 3e9
TASKS = ["logpdf", "batch", "fit", "hypotest", "upper_limit"]
TASK_LABEL = {
    "logpdf": "logpdf, 1 point",
    "batch": "logpdf, 10^4 points",
    "fit": "MLE fit",
    "hypotest": "hypotest (asymptotic)",
    "upper_limit": "upper limit (toms748)",
}


# ---------------------------------------------------------------------------------------------- environment


def in_our_venv(venv):
    return os.path.realpath(sys.prefix) == os.path.realpath(venv)


def has_packages(python, packages):
    """True when `python` imports every package at its pinned version ("name==version"; unpinned: any)."""
    check = ("import importlib.metadata as m, sys\n"
             "for spec in sys.argv[1:]:\n"
             "    name, _, want = spec.partition('==')\n"
             "    have = m.version(name.split('[')[0])\n"
             "    assert not want or have == want, (name, have, want)\n")
    return subprocess.run([python, "-c", check, *packages], capture_output=True).returncode == 0


def ensure_venv(venv, script, packages, optional=()):
    """Re-executes `script` (with this process's arguments) inside the virtual environment `venv`, creating it
    on first use: pip installs `packages` (pins "name==version"), then each of `optional` when it installs. An
    existing environment that already has the pinned packages is used as it is."""
    venv = os.path.abspath(venv)
    if in_our_venv(venv):
        return
    python = os.path.join(venv, "bin", "python")
    stamp = os.path.join(venv, ".hfcore-bench-ready")
    if not os.path.exists(stamp) and not (os.path.exists(python) and has_packages(python, packages)):
        print(f"creating virtual environment {venv}", flush=True)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        pip = [python, "-m", "pip", "install", "--quiet"]
        subprocess.run(pip + list(packages), check=True)
        for extra in optional:
            if subprocess.run(pip + [extra]).returncode != 0:
                print(f"{extra} did not install: the figures that need it are left out", flush=True)
        with open(stamp, "w") as f:
            f.write("ok\n")
    os.execv(python, [python, os.path.abspath(script)] + sys.argv[1:])


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


# ---------------------------------------------------------------------------------------------- timing


def time_calls(fn, min_time, min_reps, max_reps=100_000):
    """Per-call (wall, process CPU) seconds: fn is called until min_time has passed and min_reps calls were
    made. Calls under 50 us are timed in groups."""
    c0, t0 = time.process_time(), time.perf_counter()
    fn()
    first, first_cpu = time.perf_counter() - t0, time.process_time() - c0
    group = 1 if first >= 50e-6 else int(min(1000, 50e-6 / max(first, 1e-9))) + 1
    wall, cpu = ([first], [first_cpu]) if group == 1 else ([], [])
    start = time.perf_counter()
    while len(wall) < max_reps and (len(wall) < min_reps or time.perf_counter() - start < min_time):
        c0, t0 = time.process_time(), time.perf_counter()
        for _ in range(group):
            fn()
        wall.append((time.perf_counter() - t0) / group)
        cpu.append((time.process_time() - c0) / group)
    return wall, cpu


class HfcoreTimer:
    """bench/hfcore_timer as a child process: one JSON request per line, one answer per line."""

    def __init__(self, path):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def request(self, **req):
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("hfcore_timer exited")
        answer = json.loads(line)
        if not answer.get("ok"):
            raise RuntimeError(answer.get("error", "hfcore_timer failed"))
        return answer

    def close(self):
        try:
            self.proc.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except Exception:
            self.proc.kill()


# ---------------------------------------------------------------------------------------------- pyhf side


class PyhfWorkload:
    def __init__(self, pyhf, ws_path, patch_paths):
        self.pyhf = pyhf
        with open(ws_path) as f:
            self.spec = json.load(f)
        self.patches = []
        for p in patch_paths:
            with open(p) as f:
                self.patches.append(json.load(f))
        pyhf.set_backend("numpy")
        self.ws = pyhf.Workspace(self.spec)
        self.model = self.ws.model(patches=self.patches)
        self.data = self.pyhf.tensorlib.astensor(self.ws.data(self.model))
        self.init = self.pyhf.tensorlib.astensor(self.model.config.suggested_init())
        self._batch_model = None
        self._jax = None

    def n_samples(self):
        return len(self.model.config.samples)

    def batch_bytes(self, k):
        cfg = self.model.config
        return 8.0 * k * cfg.nmaindata * len(cfg.samples) * (len(cfg.par_order) + 4)

    def points(self, k, seed=7):
        import numpy as np

        cfg = self.model.config
        rng = np.random.default_rng(seed)
        init = np.asarray(cfg.suggested_init(), dtype=float)
        bounds = np.asarray(cfg.suggested_bounds(), dtype=float)
        fixed = np.asarray(cfg.suggested_fixed(), dtype=bool)
        width = 0.1 * np.minimum(1.0, bounds[:, 1] - bounds[:, 0])
        pts = init + rng.uniform(-1.0, 1.0, size=(k, len(init))) * width
        pts = np.clip(pts, bounds[:, 0], bounds[:, 1])
        pts[:, fixed] = init[fixed]
        return pts

    # Each returns (fn, result_fn) where fn is what is timed.
    def logpdf(self):
        self.pyhf.set_backend("numpy")
        out = {}

        def fn():
            out["logpdf"] = float(self.model.logpdf(self.init, self.data)[0])

        return fn, lambda: dict(out)

    def batch_numpy(self, k):
        self.pyhf.set_backend("numpy")
        if self._batch_model is None:
            self._batch_model = self.ws.model(patches=self.patches, batch_size=k)
        pts = self.pyhf.tensorlib.astensor(self.points(k))
        out = {}

        def fn():
            out["first"] = float(self._batch_model.logpdf(pts, self.data)[0])

        return fn, lambda: dict(out)

    def batch_jax(self, k):
        import jax
        import jax.numpy as jnp

        self.pyhf.set_backend("jax")
        if self._jax is None:
            model = self.ws.model(patches=self.patches)
            f = jax.jit(jax.vmap(model.logpdf, in_axes=(0, None)))
            data = jnp.asarray(self.ws.data(model))
            pts = jnp.asarray(self.points(k))
            t0 = time.perf_counter()
            f(pts, data).block_until_ready()
            self._jax = (model, f, data, pts, time.perf_counter() - t0)
        model, f, data, pts, _ = self._jax
        out = {}

        def fn():
            out["first"] = float(f(pts, data).block_until_ready()[0, 0])

        return fn, lambda: dict(out)

    def fit(self):
        self.pyhf.set_backend("numpy")
        out = {}

        def fn():
            bestfit, twice_nll = self.pyhf.infer.mle.fit(self.data, self.model, return_fitted_val=True)
            out["twice_nll"] = float(twice_nll)
            out["mu_hat"] = float(bestfit[self.model.config.poi_index])
            init = self.model.config.suggested_init()
            out["max_move_from_init"] = float(max(abs(float(a) - b) for a, b in zip(bestfit, init)))

        return fn, lambda: dict(out)

    def hypotest(self, mu=1.0, optimizer=None):
        if optimizer is None:
            self.pyhf.set_backend("numpy")
        else:
            self.pyhf.set_backend("numpy", optimizer)
        out = {}

        def fn():
            obs, exp = self.pyhf.infer.hypotest(
                mu, self.data, self.model, test_stat="qtilde", return_expected_set=True
            )
            out["CLs_obs"] = float(obs)
            out["CLs_exp"] = [float(x) for x in exp]

        return fn, lambda: dict(out)

    def upper_limit(self, rtol=1e-4):
        self.pyhf.set_backend("numpy")
        lo, hi = self.model.config.suggested_bounds()[self.model.config.poi_index]
        out = {}

        def fn():
            obs, exp, (scanned, _) = self.pyhf.infer.intervals.upper_limits.toms748_scan(
                self.data, self.model, lo, hi, level=0.05, rtol=rtol, test_stat="qtilde", from_upper_limit_fn=True
            )
            out["obs"] = float(obs)
            out["exp"] = [float(x) for x in exp]
            out["n_hypotests"] = len(scanned)

        return fn, lambda: dict(out)


# ---------------------------------------------------------------------------------------------- comparison


def median(xs):
    return statistics.median(xs) if xs else None


def rel_diff(a, b):
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


def fmt_time(s):
    if s is None:
        return "n/a"
    if s < 1e-3:
        return f"{s * 1e6:.1f} us"
    if s < 1.0:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def fmt_speedup(p, h):
    if p is None or h is None or h <= 0:
        return "n/a"
    x = p / h
    return f"{x:.0f}x" if x >= 10 else f"{x:.1f}x"


class Runner:
    def __init__(self, args, pyhf):
        self.args = args
        self.pyhf = pyhf
        self.timer = HfcoreTimer(args.timer)
        self.results = []  # one row per (workload, task)
        self.checks = []
        self.notes = []
        try:
            import jax  # noqa: F401

            self.have_jax = not args.no_jax
        except ImportError:
            self.have_jax = False

    def log(self, msg):
        print(msg, flush=True)

    def measure(self, wl, wid, task, rounds, hf_req, pyhf_fn_factory, pyhf_min_time, pyhf_min_reps,
                extra_pyhf=None):
        """Alternates hfcore and pyhf `rounds` times. Returns the row."""
        hf_times, py_times, extra_times = [], [], []
        hf_cpu, py_cpu, extra_cpu = [], [], []
        hf_result = py_result = extra_result = None
        # pyhf figures that take longer than --pyhf-round-limit seconds in the first round are not repeated
        # (hfcore still is), to keep the whole run within ~15 minutes.
        limit = self.args.pyhf_round_limit
        for r in range(rounds):
            a = self.timer.request(cmd="time", id=wid, task=task, **hf_req)
            hf_times += a["times"]
            hf_cpu += a["cpu_times"]
            hf_result = a["result"]
            if pyhf_fn_factory is not None and (r == 0 or sum(py_times) <= limit):
                fn, res = pyhf_fn_factory()
                w, c = time_calls(fn, pyhf_min_time, pyhf_min_reps)
                py_times += w
                py_cpu += c
                py_result = res()
            if extra_pyhf is not None and (r == 0 or sum(extra_times) <= limit):
                fn, res = extra_pyhf()
                w, c = time_calls(fn, pyhf_min_time, pyhf_min_reps)
                extra_times += w
                extra_cpu += c
                extra_result = res()
        row = {
            "workload": wl,
            "task": task,
            "hfcore_s": median(hf_times),
            "pyhf_s": median(py_times),
            "hfcore_cpu_s": median(hf_cpu),
            "pyhf_cpu_s": median(py_cpu),
            "hfcore_samples": len(hf_times),
            "pyhf_samples": len(py_times),
            "hfcore_result": hf_result,
            "pyhf_result": py_result,
        }
        if row["pyhf_s"] and row["hfcore_s"]:
            row["speedup"] = row["pyhf_s"] / row["hfcore_s"]
        if row["pyhf_cpu_s"] and row["hfcore_cpu_s"]:
            row["speedup_cpu"] = row["pyhf_cpu_s"] / row["hfcore_cpu_s"]
        if extra_pyhf is not None:
            row["pyhf_jax_s"] = median(extra_times)
            row["pyhf_jax_cpu_s"] = median(extra_cpu)
            row["pyhf_jax_result"] = extra_result
            if row["pyhf_jax_s"] and row["hfcore_s"]:
                row["speedup_vs_jax"] = row["pyhf_jax_s"] / row["hfcore_s"]
        self.results.append(row)
        self.log(
            f"  {wl:<26} {TASK_LABEL[task]:<22} hfcore {fmt_time(row['hfcore_s']):>10}  "
            f"pyhf {fmt_time(row['pyhf_s']):>10}  {fmt_speedup(row['pyhf_s'], row['hfcore_s'])}"
            + (f"  (jax {fmt_time(row.get('pyhf_jax_s'))})" if extra_pyhf is not None else "")
        )
        return row

    def run_workload(self, wl, ws_path, patches, tasks, kind, jax=False):
        """kind: 'erjr' (pyhf's fit is known to stay at its start), 'sbottom' or 'synthetic' (checked)."""
        a = self.args
        t0 = time.perf_counter()
        info = self.timer.request(cmd="load", id=wl, workspace=ws_path, patches=patches)
        pw = PyhfWorkload(self.pyhf, ws_path, patches)
        self.log(f"{wl}: {info['n_main']} bins, {info['n_pars']} parameters "
                 f"(hfcore load {info['seconds']:.2f} s, pyhf load {time.perf_counter() - t0 - info['seconds']:.2f} s)")
        # warm-up outside the timings
        pw.logpdf()[0]()
        rows = {}
        for task in tasks:
            if task == "logpdf":
                rows[task] = self.measure(wl, wl, task, a.rounds, {"min_time": a.fast_time}, pw.logpdf,
                                          a.fast_time, 5)
            elif task == "batch":
                extra = None
                numpy_ok = pw.batch_bytes(BATCH_K) <= PYHF_BATCH_MEMORY
                if self.have_jax and jax and numpy_ok:
                    extra = lambda: pw.batch_jax(BATCH_K)  # noqa: E731
                # a batch that takes hfcore over a second (10^4 x a large model) is timed once, without warm-up
                single = rows["logpdf"]["hfcore_s"] if "logpdf" in rows else 0.0
                slow = single * BATCH_K > 1.0
                hf_req = {"k": BATCH_K, "min_time": 0.0 if slow else a.fast_time, "min_reps": 1 if slow else 3,
                          "warmup": not slow}
                rows[task] = self.measure(
                    wl, wl, task, 1 if slow else a.rounds, hf_req,
                    (lambda: pw.batch_numpy(BATCH_K)) if numpy_ok else None, a.fast_time, 3, extra)
                if extra is not None:
                    rows[task]["pyhf_jax_compile_s"] = pw._jax[-1]
                if not numpy_ok:
                    rows[task]["pyhf_note"] = (f"not measured: pyhf's batched arrays would need about "
                                               f"{pw.batch_bytes(BATCH_K) / 1e9:.0f} GB")
            elif task == "fit":
                rows[task] = self.measure(wl, wl, task, a.rounds, {"min_time": a.slow_time, "min_reps": 3},
                                          pw.fit, 0.0, 1)
            elif task == "hypotest":
                rows[task] = self.measure(wl, wl, task, a.rounds, {"min_time": a.slow_time, "min_reps": 3},
                                          pw.hypotest, 0.0, 1)
            elif task == "upper_limit":
                rows[task] = self.measure(wl, wl, task, 1, {"min_time": a.slow_time, "min_reps": 2},
                                          pw.upper_limit, 0.0, 1)
        self.timer.request(cmd="unload", id=wl)
        self.check(wl, kind, rows, pw)
        return rows

    def check(self, wl, kind, rows, pw=None):
        """Each check gets a status: pass, FAIL, "pyhf not converged" (hfcore's fit found a lower minimum than
        pyhf's by more than the tolerance: pyhf's numbers are then not a reference) or "pyhf wrong" (eRJR)."""
        tol_cls, tol_nll = 1e-4, 1e-5
        fit = rows.get("fit")
        ht = rows.get("hypotest")
        ul = rows.get("upper_limit")

        def add(what, pyhf_v, hf_v, status, d=None, tol=None, **extra):
            self.checks.append({"workload": wl, "what": what, "pyhf": pyhf_v, "hfcore": hf_v, "rel_diff": d,
                                "tolerance": tol, "status": status, **extra})

        def max_rel(vals):
            return max(rel_diff(a, b) for a, b in vals)

        if kind == "erjr":
            if fit and fit["pyhf_result"]:
                p, h = fit["pyhf_result"], fit["hfcore_result"]
                self.notes.append(
                    f"{wl}: pyhf's default fit (scipy SLSQP) ends at mu_hat = {p['mu_hat']:.4g}, at most "
                    f"{p['max_move_from_init']:.2g} from its starting point (mu = 1), with twice_nll "
                    f"{p['twice_nll']:.6f}; hfcore's fit reaches mu_hat = {h['mu_hat']:.4g}, twice_nll "
                    f"{h['twice_nll']:.6f} (lower by {p['twice_nll'] - h['twice_nll']:.4g}). pyhf's answers on eRJR "
                    f"(fit, CLs, limits) are therefore wrong; its times are reported as measured.")
                add("fit twice_nll", p["twice_nll"], h["twice_nll"], "pyhf wrong",
                    abs(p["twice_nll"] - h["twice_nll"]) / abs(p["twice_nll"]), tol_nll,
                    pyhf_max_move_from_init=p["max_move_from_init"])
            if ht and ht["pyhf_result"]:
                p, h = ht["pyhf_result"], ht["hfcore_result"]
                add("CLs obs", p["CLs_obs"], h["CLs_obs"], "pyhf wrong", rel_diff(p["CLs_obs"], h["CLs_obs"]), tol_cls)
            if ul and ul["pyhf_result"]:
                p, h = ul["pyhf_result"], ul["hfcore_result"]
                add("upper limit obs", p["obs"], h["obs"], "pyhf wrong", rel_diff(p["obs"], h["obs"]), 3e-4)
            return
        pyhf_converged = True
        if fit and fit["pyhf_result"]:
            p, h = fit["pyhf_result"]["twice_nll"], fit["hfcore_result"]["twice_nll"]
            d = abs(p - h) / max(1.0, abs(p))
            if d <= tol_nll:
                status = "pass"
            elif h < p:
                status, pyhf_converged = "pyhf not converged", False
            else:
                status = "FAIL"
            add("fit twice_nll", p, h, status, d, tol_nll)
        if ht and ht["pyhf_result"]:
            p, h = ht["pyhf_result"], ht["hfcore_result"]
            vals = [(p["CLs_obs"], h["CLs_obs"])] + list(zip(p["CLs_exp"], h["CLs_exp"]))
            d = max_rel(vals)
            status = "pass" if d <= tol_cls else ("FAIL" if pyhf_converged else "pyhf not converged")
            extra = {}
            if status == "FAIL" and pw is not None:
                # Deep in the tails CLs amplifies small differences in the fits; pyhf's scipy fits stop at
                # tolerance 1e-6 by default. Ask pyhf again with tolerance 1e-12 before calling it a failure.
                try:
                    fn, res = pw.hypotest(optimizer=self.pyhf.optimize.scipy_optimizer(tolerance=1e-12))
                    fn()
                    t = res()
                finally:
                    self.pyhf.set_backend("numpy", self.pyhf.optimize.scipy_optimizer())
                tvals = [(t["CLs_obs"], h["CLs_obs"])] + list(zip(t["CLs_exp"], h["CLs_exp"]))
                dt = max_rel(tvals)
                extra = {"pyhf_tolerance_1e-12": [v[0] for v in tvals], "rel_diff_tolerance_1e-12": dt}
                if dt <= tol_cls:
                    status = "pass with pyhf's fits at tolerance 1e-12"
                    self.notes.append(
                        f"{wl}: with pyhf's default fit tolerance (1e-6) CLs differs by up to {d:.2g} relative "
                        f"(CLs values from {min(v[1] for v in vals):.1g} to {max(v[1] for v in vals):.1g}; small ones amplify "
                        f"small differences in the fits); with pyhf's scipy fits at tolerance "
                        f"1e-12 the largest difference is {dt:.2g}.")
            add("CLs obs + 5 exp", [v[0] for v in vals], [v[1] for v in vals], status, d, tol_cls, **extra)
        if ul and ul["pyhf_result"]:
            p, h = ul["pyhf_result"], ul["hfcore_result"]
            vals = [(p["obs"], h["obs"])] + list(zip(p["exp"], h["exp"]))
            d = max_rel(vals)
            # both sides stop within rtol 1e-4 of the root
            status = "pass" if d <= 3e-4 else ("FAIL" if pyhf_converged else "pyhf not converged")
            add("upper limit obs + 5 exp", [v[0] for v in vals], [v[1] for v in vals], status, d, 3e-4,
                n_hypotests={"pyhf": p.get("n_hypotests"), "hfcore": h.get("n_hypotests")})

    # ------------------------------------------------------------------------------------------ full scan

    def run_scan(self, erjr_dir):
        a = self.args
        bkg = os.path.join(erjr_dir, "BkgOnly.json")
        patches = sorted(glob.glob(os.path.join(erjr_dir, "patch.ERJR_*.json")))
        n = len(patches)
        out_json = os.path.join(a.workdir, "hfcore_scan.json")
        cmd = [a.hfcore, "scan", bkg, *patches, "--upper-limit", "--output-file", out_json]
        if a.scan_threads:
            cmd += ["--threads", str(a.scan_threads)]
        # pyhf on a subset, spread over the grid
        k = max(1, min(a.scan_points, n))
        subset = [patches[round(i * (n - 1) / max(1, k - 1))] for i in range(k)] if k > 1 else [patches[0]]
        hf_times, py_point_times, py_point_cpu, py_results = [], [], [], {}
        rounds = max(1, a.scan_rounds)
        per_round = [subset[i::rounds] for i in range(rounds)]
        self.log(f"eRJR scan: {n} points; hfcore runs all of them {rounds} time(s); pyhf runs {k} point(s)")
        hf_cpu = []
        for r in range(rounds):
            ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True)
            hf_times.append(time.perf_counter() - t0)
            ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            hf_cpu.append(ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime)
            if proc.returncode not in (0,):
                self.notes.append(f"hfcore scan exited {proc.returncode}: {proc.stderr.strip()[-400:]}")
            for p in per_round[r]:
                c0, t0 = time.process_time(), time.perf_counter()
                pw = PyhfWorkload(self.pyhf, bkg, [p])
                fn, res = pw.hypotest()
                fn()
                ufn, ures = pw.upper_limit()
                ufn()
                py_point_times.append(time.perf_counter() - t0)
                py_point_cpu.append(time.process_time() - c0)
                py_results[os.path.basename(p)] = {"hypotest": res(), "upper_limit": ures()}
                self.log(f"  pyhf {os.path.basename(p)}: {py_point_times[-1]:.1f} s")
        with open(out_json) as f:
            hf_scan = json.load(f)
        summ = hf_scan["summary"]
        self.notes.append(f"hfcore scan: {summ.get('n_converged')}/{n} points with every fit converged, "
                          f"{summ.get('n_errors')} errors, {summ.get('threads')} threads; pyhf's full scan time is "
                          f"extrapolated from {k} of the {n} points ({', '.join(os.path.basename(p) for p in subset)})")
        by_name = {r["name"]: r for r in hf_scan["results"]}
        for pname, pr in py_results.items():
            hr = by_name.get(pname[len("patch."):-len(".json")], {})
            pr["hfcore"] = {"CLs_obs": hr.get("CLs_obs"), "upper_limit": hr.get("upper_limit")}
        hf_wall = median(hf_times)
        per_point = statistics.mean(py_point_times)
        row = {
            "workload": f"eRJR scan ({n} points)",
            "task": "scan",
            "hfcore_s": hf_wall,
            "hfcore_samples": len(hf_times),
            "hfcore_internal_s": hf_scan["summary"].get("seconds"),
            "hfcore_threads": hf_scan["summary"].get("threads"),
            "hfcore_converged": hf_scan["summary"].get("n_converged"),
            "hfcore_errors": hf_scan["summary"].get("n_errors"),
            "hfcore_cpu_s": median(hf_cpu),
            "pyhf_s": per_point * n,
            "pyhf_cpu_s": statistics.mean(py_point_cpu) * n,
            "pyhf_extrapolated": True,
            "pyhf_points_measured": [os.path.basename(p) for p in subset],
            "pyhf_seconds_per_point": per_point,
            "pyhf_results": py_results,
        }
        row["speedup"] = row["pyhf_s"] / hf_wall
        row["speedup_cpu"] = row["pyhf_cpu_s"] / row["hfcore_cpu_s"] if row["hfcore_cpu_s"] else None
        self.results.append(row)
        self.log(f"  scan: hfcore {hf_wall:.2f} s wall ({row['hfcore_threads']} threads), pyhf {per_point:.1f} s/point "
                 f"x {n} = {row['pyhf_s']:.0f} s (extrapolated from {k}), x{row['speedup']:.0f}")
        return row


# ---------------------------------------------------------------------------------------------- output


def table_rows(results):
    lines = []
    for r in results:
        task = "full scan (CLs + upper limit per point)" if r["task"] == "scan" else TASK_LABEL[r["task"]]
        py = fmt_time(r.get("pyhf_s"))
        if r.get("pyhf_extrapolated"):
            py += f" (extrapolated from {len(r['pyhf_points_measured'])} points)"
        if r.get("pyhf_note"):
            py = r["pyhf_note"]
        jax = fmt_time(r.get("pyhf_jax_s")) if "pyhf_jax_s" in r else ""
        lines.append((r["workload"], task, fmt_time(r.get("hfcore_s")), py,
                      fmt_speedup(r.get("pyhf_s"), r.get("hfcore_s")),
                      fmt_speedup(r.get("pyhf_cpu_s"), r.get("hfcore_cpu_s")) if r.get("pyhf_cpu_s") else "", jax,
                      fmt_speedup(r.get("pyhf_jax_s"), r.get("hfcore_s")) if "pyhf_jax_s" in r else ""))
    return lines


def markdown(results, checks, notes, meta):
    out = [f"Machine: {meta['cpu']}, {meta['ncpu']} CPUs; pyhf {meta['pyhf']} (numpy {meta['numpy']}, scipy "
           f"{meta['scipy']}), jax {meta['jax']}; hfcore backend {meta['hfcore_backend']}; "
           f"{meta['rounds']} alternating rounds; total {meta['total_s']:.0f} s.", "",
           "Times are medians of wall-clock time per call; the CPU column is the speed-up in process CPU time "
           "(all threads), which a busy machine disturbs less.", "",
           "| workload | figure | hfcore | pyhf (numpy) | speed-up | speed-up (CPU time) | pyhf (jax jit+vmap) "
           "| speed-up vs jax |",
           "|---|---|---|---|---|---|---|---|"]
    for row in table_rows(results):
        out.append("| " + " | ".join(row) + " |")
    out += ["", "| workload | check | max rel. diff | tolerance | result |", "|---|---|---|---|---|"]
    for c in checks:
        extra = ""
        if c["status"] == "pyhf wrong":
            extra = f" (pyhf {c['pyhf']:.6g}, hfcore {c['hfcore']:.6g}; see notes)"
        elif c["status"] == "pyhf not converged" and c["what"] == "fit twice_nll":
            extra = f" (twice_nll pyhf {c['pyhf']:.8g}, hfcore {c['hfcore']:.8g})"
        out.append(f"| {c['workload']} | {c['what']} | {c['rel_diff']:.2g} | {c['tolerance']:g} | "
                   f"{c['status']}{extra} |")
    if notes:
        out += [""] + [f"- {n}" for n in notes]
    return "\n".join(out) + "\n"


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # the bins series: the synthetic members sharing the nuisance count that has the most bin values
    by_n = {}
    for r in results:
        if r["task"] in ("logpdf", "batch") and r["workload"].startswith("synth_b"):
            bins, nuis = (int(x) for x in r["workload"][len("synth_b"):].split("_n"))
            by_n.setdefault(nuis, []).append((bins, r))
    if not by_n:
        return False
    nuisance = max(by_n, key=lambda n: len({b for b, _ in by_n[n]}))
    series = {}
    for bins, r in by_n[nuisance]:
        series.setdefault(r["task"], []).append((bins, r))
    if "logpdf" not in series:
        return False
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    pts = sorted(series["logpdf"])
    ax.loglog([b for b, _ in pts], [r["hfcore_s"] for _, r in pts], "o-", label="hfcore (cpu, 64b), 1 point")
    ax.loglog([b for b, _ in pts], [r["pyhf_s"] for _, r in pts], "s-", label="pyhf (numpy), 1 point")
    if "batch" in series:
        pts = sorted(series["batch"])
        ax.loglog([b for b, _ in pts], [r["hfcore_s"] / BATCH_K for _, r in pts], "o--",
                  label="hfcore, per point of a 10^4 batch")
        pj = [(b, r["pyhf_jax_s"] / BATCH_K) for b, r in pts if r.get("pyhf_jax_s")]
        if pj:
            ax.loglog([b for b, _ in pj], [t for _, t in pj], "^--", label="pyhf (jax jit+vmap), per point of 10^4")
        pn = [(b, r["pyhf_s"] / BATCH_K) for b, r in pts if r.get("pyhf_s")]
        if pn:
            ax.loglog([b for b, _ in pn], [t for _, t in pn], "s--", label="pyhf (numpy batch), per point of 10^4")
    ax.set_xlabel(f"bins (1 channel, {nuisance} nuisance parameters)")
    ax.set_ylabel("seconds per logpdf")
    ax.set_title("logpdf time vs bins, synthetic family")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    return True


# ---------------------------------------------------------------------------------------------- main


def parse_args():
    build = os.path.join(ROOT, "build", "bench")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(build, "compare_pyhf.json"), help="results JSON")
    ap.add_argument("--markdown", default=os.path.join(build, "compare_pyhf.md"), help="the tables as Markdown")
    ap.add_argument("--plot", default=os.path.join(ROOT, "docs", "performance-bins.png"))
    ap.add_argument("--venv", default=os.path.join(build, "pyhf-venv"))
    ap.add_argument("--timer", default=os.path.join(build, "bin", "hfcore_timer"))
    ap.add_argument("--hfcore", default=os.path.join(build, "bin", "hfcore"))
    ap.add_argument("--shared", default=os.environ.get("HFCORE_SHARED_DIR", os.path.join(os.path.dirname(ROOT), "shared")))
    ap.add_argument("--workdir", default=os.path.join(build, "compare-work"), help="synthetic workspaces, scan output")
    ap.add_argument("--rounds", type=int, default=3, help="alternating hfcore/pyhf rounds per figure")
    ap.add_argument("--fast-time", type=float, default=0.3, help="seconds per round for logpdf figures")
    ap.add_argument("--slow-time", type=float, default=0.5, help="hfcore seconds per round for fits and tests")
    ap.add_argument("--scan-points", type=int, default=2, help="eRJR points pyhf runs (extrapolated to all)")
    ap.add_argument("--scan-rounds", type=int, default=2, help="times hfcore runs the whole scan")
    ap.add_argument("--scan-threads", type=int, default=0, help="hfcore scan --threads (default: all CPUs)")
    ap.add_argument("--sbottom-upper-limits", type=int, default=0,
                    help="sbottom models on which upper limits are timed (pyhf: ~40 hypotests of 3-15 s each)")
    ap.add_argument("--pyhf-round-limit", type=float, default=3.0,
                    help="a pyhf figure whose first round took longer (s) is not repeated")
    ap.add_argument("--no-jax", action="store_true", help="do not install or use jax")
    ap.add_argument("--quick", action="store_true", help="one round, small synthetic family, 1 scan point")
    ap.add_argument("--only", default=None, help="comma-separated subset: erjr,sbottom,synthetic,scan")
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.scan_points, args.scan_rounds, args.fast_time, args.slow_time = 1, 1, 1, 0.1, 0.2
    return args


def main():
    args = parse_args()
    ensure_venv(args.venv, __file__, ["pyhf==0.7.6", "scipy", "matplotlib"], [] if args.no_jax else ["jax[cpu]"])
    import numpy
    import pyhf
    import scipy

    try:
        import jax

        jax_version = jax.__version__
    except ImportError:
        jax_version = "not installed"
    if args.no_jax:
        jax_version = "not used"
    pyhf.set_backend("numpy")
    for f in (args.timer, args.hfcore):
        if not os.path.exists(f):
            sys.exit(f"{f} not found: build it first (cmake --build build/bench --target hfcore_timer hfcore-cli "
                     f"hfcore-backend-cpu)")
    os.makedirs(args.workdir, exist_ok=True)
    only = set(args.only.split(",")) if args.only else {"erjr", "sbottom", "synthetic", "scan"}
    t_start = time.perf_counter()
    runner = Runner(args, pyhf)
    erjr_dir = os.path.join(args.shared, "data", "atlas-3l-erjr")
    have_erjr = os.path.exists(os.path.join(erjr_dir, "BkgOnly.json"))
    if not have_erjr and ({"erjr", "scan"} & only):
        runner.notes.append(f"eRJR workloads skipped: {erjr_dir} not found")
    try:
        if "erjr" in only and have_erjr:
            runner.run_workload("eRJR + 1 patch", os.path.join(erjr_dir, "BkgOnly.json"),
                                [os.path.join(erjr_dir, ERJR_PATCH)], TASKS, "erjr", jax=True)
        if "sbottom" in only:
            for i, name in enumerate(SBOTTOM):
                path = os.path.join(args.shared, "validation", "pyhf-validation", name, "workspace.json")
                if not os.path.exists(path):
                    runner.notes.append(f"{name} skipped: {path} not found")
                    continue
                tasks = TASKS if i < args.sbottom_upper_limits else TASKS[:-1]
                runner.run_workload(name, path, [], tasks, "sbottom", jax=(i == 0))
        if "synthetic" in only:
            family = make_synthetic.write_family(os.path.join(args.workdir, "synthetic"),
                                                 "small" if args.quick else "default")
            for e in family:
                tasks = ["logpdf", "batch"]
                # pyhf's fits use finite-difference gradients (P+1 logpdf calls per step): affordable up to
                # ~100 parameters x 100 bins
                if e["n_pars"] <= 101 and e["bins"] <= 100:
                    tasks += ["fit", "hypotest"]
                # one checked upper limit where pyhf's fits converge and a hypotest takes ~1 s
                if e["nuisance"] == 10 and e["bins"] == 100:
                    tasks += ["upper_limit"]
                runner.run_workload(e["name"], e["path"], [], tasks, "synthetic", jax=e["nuisance"] == 100)
        if "scan" in only and have_erjr:
            runner.run_scan(erjr_dir)
    finally:
        runner.timer.close()
    total = time.perf_counter() - t_start
    backend = "cpu (64b)"
    meta = {
        "cpu": cpu_model(),
        "ncpu": os.cpu_count(),
        "python": platform.python_version(),
        "pyhf": pyhf.__version__,
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "jax": jax_version,
        "hfcore_backend": backend,
        "rounds": args.rounds,
        "total_s": total,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    doc = {"meta": meta, "results": runner.results, "checks": runner.checks, "notes": runner.notes}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
    md = markdown(runner.results, runner.checks, runner.notes, meta)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(md)
    print()
    print(md)
    if args.plot and plot(runner.results, args.plot):
        print(f"plot: {args.plot}")
    print(f"results: {args.out}")
    failed = [c for c in runner.checks if c["status"] == "FAIL"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
