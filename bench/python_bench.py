#!/usr/bin/env python3
"""hfcore from Python, measured in one run:

1. the per-call cost of ``model.logpdf`` from Python against the same C++ call (``Model::logpdf`` on host
   vectors) looped in C++, on an eRJR model (target: < 3 us above the C++ call), plus pyhf's and NextStat's
   per-call logpdf / nll for context;
2. fit, hypotest (mu = 1, qtilde, expected band) and upper-limit times of hfcore's Python calls beside pyhf's
   (numpy backend, default scipy optimizer) and NextStat's Python calls on the same models.

Run it with a Python that has pyhf and nextstat (pip install pyhf==0.7.6 nextstat) and hfcore importable:

    PYTHONPATH=build/release/python /work/venvs/ref/bin/python bench/python_bench.py [--quick] [--json OUT]

Prints a table and writes JSON (tool versions, sha256 of every input workspace, times) with --json. Times are the
best of several repetitions for the fast calls; pyhf's slow calls run once. Missing peers are reported, not
faked.
"""

import argparse
import hashlib
import json
import logging
import os
import platform
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("HFCORE_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
VALIDATION = os.path.join(SHARED, "validation", "pyhf-validation")
ERJR = os.path.join(SHARED, "data", "atlas-3l-erjr")
ERJR_POINT = "ERJR_200p0_100p0"

logging.disable(logging.WARNING)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def load(path):
    with open(path) as f:
        return json.load(f)


def models():
    """(name, workspace spec, patch or None, modifier_settings or None, input files)."""
    out = []
    for case in ("2bin_2channel", "sbottom_regionA_1300_205_60"):
        d = os.path.join(VALIDATION, case)
        e = load(os.path.join(d, "expected.json"))
        out.append((case, load(os.path.join(d, "workspace.json")), None,
                    e["model_settings"]["effective_interpcodes"], [os.path.join(d, "workspace.json")]))
    bkg, patch = os.path.join(ERJR, "BkgOnly.json"), os.path.join(ERJR, f"patch.{ERJR_POINT}.json")
    out.append((f"eRJR {ERJR_POINT}", load(bkg), load(patch), None, [bkg, patch]))
    return out


def best_of(fn, repeat):
    times = []
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def per_call(hfcore, pyhf, ns, spec, patch, n):
    ws = hfcore.Workspace(spec)
    model = ws.model(patches=[patch] if patch else None)
    data = np.asarray(ws.data(model))
    pars = np.asarray(model.config.suggested_init())
    out = {"npars": model.config.npars, "ndata": int(data.size), "implementation": model.config.implementation}
    model.logpdf(pars, data)
    cpp, py, py_list = [], [], []
    f = model.logpdf
    pars_list, data_list = pars.tolist(), data.tolist()
    # Many short loops, interleaved, rather than a few long ones: on a shared machine a long loop is almost
    # always interrupted, a 100-call loop often is not, so the minimum over them is the undisturbed cost.
    short = 100
    for _ in range(max(7, n // short)):
        cpp.append(model._time_cpp_logpdf(pars, data, short))
        t0 = time.perf_counter()
        for _ in range(short):
            f(pars, data)
        py.append((time.perf_counter() - t0) / short)
        t0 = time.perf_counter()
        for _ in range(short // 10):
            f(pars_list, data_list)
        py_list.append((time.perf_counter() - t0) / (short // 10))
    # min over repetitions: the machine is shared; the minimum is the cost without interference.
    out["cpp_us"] = min(cpp) * 1e6
    out["python_us"] = min(py) * 1e6
    out["overhead_us"] = out["python_us"] - out["cpp_us"]
    out["python_lists_us"] = min(py_list) * 1e6
    k = 64
    points = np.tile(pars, (k, 1))
    t, _ = best_of(lambda: model.logpdf(points, data), 20)
    out["batched_64_us_per_point"] = t / k * 1e6
    if pyhf is not None:
        m_p = pyhf.Workspace(spec).model(patches=[patch] if patch else None)
        m_p.logpdf(pars, data)
        t, _ = best_of(lambda: [m_p.logpdf(pars, data) for _ in range(50)], 3)
        out["pyhf_us"] = t / 50 * 1e6
    if ns is not None:
        m_n = ns_model(ns, spec, patch)
        init = m_n.suggested_init()
        m_n.nll(init)
        t, _ = best_of(lambda: [m_n.nll(init) for _ in range(1000)], 5)
        out["nextstat_nll_us"] = t / 1000 * 1e6
    return out


def ns_model(ns, spec, patch):
    doc = spec
    if patch:
        import hfcore

        doc = hfcore._core.apply_patch(patch, spec, "patch")
    return ns.from_pyhf(json.dumps(doc))


def inference(tool, mod, spec, patch, settings, quick):
    """Seconds for fit, hypotest and upper limit with one tool, and the numbers they gave."""
    out = {}
    if tool == "nextstat":
        m = ns_model(mod, spec, patch)
        t, r = best_of(lambda: mod.fit(m), 3)
        out["fit_s"], out["twice_nll"] = t, float(r.twice_nll)
        t, r = best_of(lambda: mod.hypotest(1.0, m), 3)
        out["hypotest_s"], out["CLs_obs"] = t, float(r)
        t, r = best_of(lambda: mod.upper_limit(m, method="root"), 1)
        out["upper_limit_s"], out["ul_obs"] = t, float(r[0])
        return out
    kw = {"modifier_settings": settings} if settings else {}
    ws = mod.Workspace(spec)
    model = ws.model(patches=[patch] if patch else None, **kw)
    data = ws.data(model)
    slow = tool == "pyhf"
    t, r = best_of(lambda: mod.infer.mle.fit(data, model, return_fitted_val=True), 1 if slow else 3)
    out["fit_s"], out["twice_nll"] = t, float(r[1])
    t, r = best_of(lambda: mod.infer.hypotest(1.0, data, model, return_expected_set=True), 1 if slow else 3)
    out["hypotest_s"], out["CLs_obs"] = t, float(r[0])
    if slow and quick:
        return out
    t, r = best_of(lambda: mod.infer.intervals.upper_limits.upper_limit(data, model), 1)
    out["upper_limit_s"], out["ul_obs"] = t, float(r[0])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="no pyhf upper limits (minutes on sbottom and eRJR)")
    ap.add_argument("--calls", type=int, default=20000, help="logpdf calls in all, in loops of 100")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()

    import hfcore

    try:
        import pyhf

        pyhf.set_backend("numpy")
    except ImportError:
        pyhf = None
    try:
        import nextstat as ns
    except ImportError:
        ns = None
    hfcore.set_backend("cpu")
    report = {
        "what": __doc__.splitlines()[0],
        "software": {"python": platform.python_version(), "hfcore": hfcore.__version__,
                     "backend": hfcore.get_backend()[0].backend.description, "numpy": np.__version__,
                     "pyhf": getattr(pyhf, "__version__", None), "nextstat": getattr(ns, "__version__", None)},
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "inputs": {},
        "logpdf_per_call": {},
        "inference": {},
    }
    for name, spec, patch, settings, files in models():
        for f in files:
            report["inputs"][os.path.relpath(f, SHARED)] = sha256(f)
        if name.startswith("eRJR"):
            report["logpdf_per_call"][name] = per_call(hfcore, pyhf, ns, spec, patch, args.calls)
        report["inference"][name] = {}
        for tool, mod in (("hfcore", hfcore), ("pyhf", pyhf), ("nextstat", ns)):
            if mod is None:
                continue
            try:
                report["inference"][name][tool] = inference(tool, mod, spec, patch, settings, args.quick)
            except Exception as e:  # a peer's failure is a result too
                report["inference"][name][tool] = {"error": f"{type(e).__name__}: {e}"[:300]}
            print(f"  {name} {tool}: {report['inference'][name][tool]}", file=sys.stderr)

    for name, r in report["logpdf_per_call"].items():
        print(f"logpdf per call on {name} ({r['npars']} parameters, {r['ndata']} data, {r['implementation']}):")
        print(f"  C++ call looped in C++     {r['cpp_us']:8.2f} us")
        print(f"  model.logpdf from Python   {r['python_us']:8.2f} us   (+{r['overhead_us']:.2f} us; target < 3 us)")
        print(f"  ... with list arguments    {r['python_lists_us']:8.2f} us")
        print(f"  batched [64, P], per point {r['batched_64_us_per_point']:8.2f} us")
        if "pyhf_us" in r:
            print(f"  pyhf model.logpdf          {r['pyhf_us']:8.1f} us")
        if "nextstat_nll_us" in r:
            print(f"  NextStat model.nll         {r['nextstat_nll_us']:8.2f} us")
    print()
    print(f"{'model':32} {'tool':9} {'fit s':>9} {'hypotest s':>11} {'upper limit s':>14}  twice_nll / CLs_obs / UL obs")
    for name, tools in report["inference"].items():
        for tool, r in tools.items():
            if "error" in r:
                print(f"{name:32} {tool:9} error: {r['error'][:80]}")
                continue
            cells = [f"{r[k]:9.4f}" if k in r else f"{'-':>9}" for k in ("fit_s", "hypotest_s", "upper_limit_s")]
            nums = " / ".join(f"{r[k]:.6g}" for k in ("twice_nll", "CLs_obs", "ul_obs") if k in r)
            print(f"{name:32} {tool:9} {cells[0]} {cells[1]:>11} {cells[2]:>14}  {nums}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
