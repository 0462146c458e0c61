#!/usr/bin/env python3
"""Reference minima and CLs of pyhf on random workspaces from ../shared/tools/random_workspace.py.

For every workspace: the free fit and the fits with the POI fixed at 0 and at 1, each run with scipy SLSQP at
tolerance 1e-10 and with Minuit at strategy 2 (pyhf.optimize.minuit_optimizer(strategy=2), default tolerance);
the lower twice_nll is the reference ("best"). A fit pyhf reports as failed still gives a point; its twice_nll
is recorded (with the error) and may be the best. CLs (qtilde, mu = 1, asymptotics, obs + 5 expected) come from
pyhf.infer.hypotest itself with every fit it runs replaced by the lower of the two optimizers (memoised, so the
fits above are reused): the Asimov data are pyhf's, from the best fit with mu = 0, and the free and mu = 1 fits
to them are again the lower of the two optimizers.

pyhf runs on its jax backend at 64b: the same model and optimizers as with numpy, but with exact gradients, which
makes Minuit at strategy 2 and SLSQP at 1e-10 take seconds per fit instead of up to an hour (the numpy backend
gives the same minima, slower; --backend numpy).

Usage (pyhf 0.7.6; environment: pip install pyhf==0.7.6 iminuit==2.33.0 scipy==1.17.1 numpy==2.4.6 "jax[cpu]"):
    python3 tests/reference/make_multimodal_fixtures.py                 # the stored set (about 1 h on one core)
    python3 tests/reference/make_multimodal_fixtures.py --seeds 101-140 --samples6-seeds 101-106 --out FILE
Workspaces are regenerated from the shared generator (never stored here); each record holds the generator's
arguments and the sha256 of its output, which the tests check before they use a workspace.
"""
import argparse
import hashlib
import json
import logging
import multiprocessing
import os
import platform
import subprocess
import sys
import time

import numpy
import pyhf
import scipy
import iminuit

logging.disable(logging.WARNING)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("HFCORE_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
GENERATOR = os.path.join(SHARED, "tools", "random_workspace.py")
DEFAULT_OUT = os.path.join(HERE, "multimodal", "random_workspaces.json")
BASE_ARGS = ["--channels", "4", "--bins", "8"]

OPTIMIZERS = {
    "slsqp": lambda: pyhf.optimize.scipy_optimizer(tolerance=1e-10),
    "minuit": lambda: pyhf.optimize.minuit_optimizer(strategy=2),
}

_orig_fit = pyhf.infer.mle.fit
_orig_fixed_poi_fit = pyhf.infer.mle.fixed_poi_fit


def seeds(text):
    out = []
    for part in text.split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def generator_args(seed, extra):
    return [str(seed)] + BASE_ARGS + extra


def generate(seed, extra):
    args = generator_args(seed, extra)
    raw = subprocess.run([sys.executable, GENERATOR] + args, check=True, capture_output=True).stdout
    return args, raw


class BestOfTwo:
    """pyhf.infer.mle.fit / fixed_poi_fit replaced by the lower of the two optimizers, memoised by input."""

    def __init__(self, model):
        self.model = model
        self.memo = {}
        self.log = {}  # label -> record, for the fits this script names

    def _key(self, kind, poi, data, init, bounds, fixed):
        return (kind, poi, numpy.asarray(data, dtype=float).tobytes(),
                repr(init), repr(bounds), repr(fixed))

    def run(self, kind, poi, data, init=None, bounds=None, fixed=None):
        key = self._key(kind, poi, data, init, bounds, fixed)
        if key in self.memo:
            return self.memo[key]
        rec = {}
        for name, make in OPTIMIZERS.items():
            pyhf.set_backend(BACKEND, make(), precision="64b")
            t0 = time.time()
            try:
                if kind == "free":
                    x, v = _orig_fit(data, self.model, init, bounds, fixed, return_fitted_val=True)
                else:
                    x, v = _orig_fixed_poi_fit(poi, data, self.model, init, bounds, fixed, return_fitted_val=True)
                x, v, err = [float(a) for a in x], float(v), None
            except pyhf.exceptions.FailedMinimization as e:
                err = str(e)
                x = getattr(e.result, "x", None)
                if x is not None and len(x) == self.model.config.npars:
                    x = [float(a) for a in x]
                    v = float(-2 * self.model.logpdf(numpy.asarray(x), numpy.asarray(data))[0])
                else:
                    x, v = None, None
            rec[name] = {"twice_nll": v, "error": err, "seconds": round(time.time() - t0, 2), "bestfit": x}
        ok = [n for n in rec if rec[n]["twice_nll"] is not None and numpy.isfinite(rec[n]["twice_nll"])]
        if not ok:
            raise RuntimeError(f"both optimizers failed: {kind} poi={poi}: {rec}")
        best = min(ok, key=lambda n: rec[n]["twice_nll"])
        out = {"best": best, "twice_nll": rec[best]["twice_nll"], "bestfit": rec[best]["bestfit"]}
        for n in rec:
            out[n] = {k: rec[n][k] for k in ("twice_nll", "error", "seconds")}
        self.memo[key] = out
        return out

    def fit(self, data, pdf, init_pars=None, par_bounds=None, fixed_params=None, **kwargs):
        r = self.run("free", None, data, init_pars, par_bounds, fixed_params)
        return self._ret(r, kwargs)

    def fixed_poi_fit(self, poi_val, data, pdf, init_pars=None, par_bounds=None, fixed_params=None, **kwargs):
        r = self.run("fixed", float(poi_val), data, init_pars, par_bounds, fixed_params)
        return self._ret(r, kwargs)

    @staticmethod
    def _ret(r, kwargs):
        x = numpy.asarray(r["bestfit"])
        if kwargs.get("return_fitted_val"):
            return x, numpy.asarray(r["twice_nll"])
        return x


BACKEND = "jax"


def one(job):
    seed, extra = job
    t0 = time.time()
    args, raw = generate(seed, extra)
    pyhf.set_backend(BACKEND, precision="64b")  # before the model is built, so its tensors are the backend's
    ws = pyhf.Workspace(json.loads(raw))
    model = ws.model()  # default interpolation: normsys code4, histosys code4p
    data = ws.data(model)
    best = BestOfTwo(model)
    rec = {
        "name": "seed%d%s" % (seed, "_samples" + extra[1] if extra else ""),
        "generator_args": args,
        "sha256": hashlib.sha256(raw).hexdigest(),
        "backend": BACKEND,
        "n_pars": model.config.npars,
        "n_main": model.config.nmaindata,
        "par_names": model.config.par_names,
        "fits": {
            "free": best.run("free", None, data),
            "mu0": best.run("fixed", 0.0, data),
            "mu1": best.run("fixed", 1.0, data),
        },
    }
    # pyhf's hypotest with every fit the lower of the two optimizers.
    pyhf.infer.test_statistics.fit = best.fit
    pyhf.infer.test_statistics.fixed_poi_fit = best.fixed_poi_fit
    pyhf.infer.calculators.fixed_poi_fit = best.fixed_poi_fit
    try:
        obs, exp = pyhf.infer.hypotest(1.0, data, model, test_stat="qtilde", return_expected_set=True)
    finally:
        pyhf.infer.test_statistics.fit = _orig_fit
        pyhf.infer.test_statistics.fixed_poi_fit = _orig_fixed_poi_fit
        pyhf.infer.calculators.fixed_poi_fit = _orig_fixed_poi_fit
    asimov = [k for k in best.memo if k[2] != numpy.asarray(data, dtype=float).tobytes()]
    rec["asimov_fits"] = {("free" if k[0] == "free" else "mu%g" % k[1]): best.memo[k] for k in asimov}
    rec["cls"] = {"mu_test": 1.0, "test_stat": "qtilde", "obs": float(obs), "exp": [float(v) for v in exp]}
    rec["seconds"] = round(time.time() - t0, 1)
    print(rec["name"], rec["fits"]["free"]["twice_nll"], rec["fits"]["mu0"]["twice_nll"],
          rec["fits"]["mu1"]["twice_nll"], rec["cls"]["obs"], rec["seconds"], file=sys.stderr, flush=True)
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="1-60")
    ap.add_argument("--samples6-seeds", default="1-8", help="also these seeds with --samples 6")
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--backend", default="jax", choices=["jax", "numpy"])
    a = ap.parse_args()
    global BACKEND
    BACKEND = a.backend
    # By seed, each --samples 6 workspace beside its seed's default one, so that an interrupted run holds both kinds.
    jobs = sorted([(s, []) for s in seeds(a.seeds)] + [(s, ["--samples", "6"]) for s in seeds(a.samples6_seeds)])
    # Finished workspaces are appended to a side file as they complete, so an interrupted run resumes there.
    partial = a.out + ".partial.jsonl"
    done = {}
    if os.path.exists(partial):
        for line in open(partial):
            r = json.loads(line)
            done[tuple(r["generator_args"])] = r
    todo = [j for j in jobs if tuple(generator_args(*j)) not in done]
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with multiprocessing.Pool(a.jobs) as pool, open(partial, "a") as side:
        for r in pool.imap_unordered(one, todo):
            done[tuple(r["generator_args"])] = r
            side.write(json.dumps(r, allow_nan=False) + "\n")
            side.flush()
    records = [done[tuple(generator_args(*j))] for j in jobs]
    out = {
        "description": __doc__.strip().splitlines()[0],
        "made_by": "tests/reference/make_multimodal_fixtures.py",
        "versions": {"pyhf": pyhf.__version__, "numpy": numpy.__version__, "scipy": scipy.__version__,
                     "iminuit": iminuit.__version__, "python": platform.python_version(),
                     **({"jax": __import__("jax").__version__} if BACKEND == "jax" else {})},
        "backend": "64b; each workspace's 'backend' says which (jax, or numpy for some made before jax was used)",
        "optimizers": {"slsqp": "pyhf.optimize.scipy_optimizer(tolerance=1e-10)",
                       "minuit": "pyhf.optimize.minuit_optimizer(strategy=2)"},
        "model": "ws.model() (normsys code4, histosys code4p), data = ws.data(model)",
        "generator": {"path": "tools/random_workspace.py (relative to ../shared)",
                      "sha256": hashlib.sha256(open(GENERATOR, "rb").read()).hexdigest()},
        "workspaces": records,
    }
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1, allow_nan=False)
        f.write("\n")
    os.remove(partial)


if __name__ == "__main__":
    main()
