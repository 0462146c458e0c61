#!/usr/bin/env python3
"""Write pyhf reference numbers for the C++ model tests to tests/reference/model/.

Run from anywhere:  python3 tests/reference/make_model_fixtures.py
Inputs are read from ../shared (relative to the repository root) and never copied into the repository.
pyhf is used here only to make reference numbers; see tests/reference/README.md for the rules.
"""

import hashlib
import json
import math
import sys
import time
import zlib
from pathlib import Path

import jsonpatch
import mpmath
import numpy as np
import pyhf

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
OUT = REPO / "tests" / "reference" / "model"

BASE_SEED = 20250101
DEFAULT_SETTINGS = {"normsys": {"interpcode": "code4"}, "histosys": {"interpcode": "code4p"}}
# pyhf builds paramsets per modifier type in the order of its modifier registry; a parameter name used by
# two types (e.g. histosys + normsys) takes the position of the first type.
TYPE_ORDER = ["histosys", "lumi", "normfactor", "normsys", "shapefactor", "shapesys", "staterror"]
ADDITIVE_TYPES = {"histosys", "normsys"}  # parameters that may be negative (alphas)

# Points after the first: the window half-width k times the parameter's scale s (see README).
POINT_PLAN = [("random_1sigma", 1.0), ("random_1sigma", 1.0), ("random_2sigma", 2.0),
              ("random_2sigma", 2.0), ("random_2sigma", 2.0)]
MULTIPLICATIVE_FLOOR = 0.25  # multiplicative parameters stay >= 0.25 * init (strictly positive)
MAX_DRAWS = 50

# logpdf_exact: 50 significant digits leave ~1e-37 absolute after the ~5e12 terms of the eRJR shapesys
# constraints cancel; pyhf's doubles keep ~1e-3 there.
EXACT_DPS = 50
EXACT_RTOL = 1e-10  # pyhf vs exact, asserted for every model outside the eRJR group

pyhf.set_backend("numpy", precision="64b")


def rel_shared(path):
    return str(Path(path).resolve().relative_to(SHARED.resolve()))


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def load(path):
    with open(path) as f:
        return json.load(f)


def floats(x):
    return [float(v) for v in np.asarray(x, dtype=float).ravel()]


def predict_par_order(modelspec):
    """Independent re-statement of pyhf's parameter order, asserted against pyhf for every fixture."""
    channels = sorted({c["name"] for c in modelspec["channels"]})
    samples = sorted({s["name"] for c in modelspec["channels"] for s in c["samples"]})
    by_key = {(c["name"], s["name"]): s for c in modelspec["channels"] for s in c["samples"]}
    order = []
    for mtype in TYPE_ORDER:
        for c in channels:
            for s in samples:
                sample = by_key.get((c, s))
                if sample is None:
                    continue
                for name in sorted({m["name"] for m in sample["modifiers"] if m["type"] == mtype}):
                    if name not in order:
                        order.append(name)
    return order


def expand_names(model):
    names = []
    for name in model.config.par_order:
        ps = model.config.param_set(name)
        # pyhf indexes every per-bin paramset, even with one bin (is_scalar, not n_parameters == 1).
        if ps.is_scalar:
            names.append(name)
        else:
            names.extend(f"{name}[{i}]" for i in range(ps.n_parameters))
    return names


def modifier_types(model):
    types = {}
    for name, mtype in model.config.modifiers:
        types.setdefault(name, []).append(mtype)
    return {k: sorted(v, key=TYPE_ORDER.index) for k, v in types.items()}


def paramset_table(model):
    types = modifier_types(model)
    rows = []
    for name in model.config.par_order:
        ps = model.config.param_set(name)
        sl = model.config.par_slice(name)
        fixed = ps.suggested_fixed
        row = {
            "name": name,
            "offset": sl.start,
            "n": ps.n_parameters,
            "is_scalar": bool(ps.is_scalar),
            "modifier_types": types[name],
            "constraint": getattr(ps, "pdf_type", None),
            "inits": floats(ps.suggested_init),
            "bounds": [floats(b) for b in ps.suggested_bounds],
            "fixed": [bool(f) for f in (fixed if isinstance(fixed, list) else [fixed] * ps.n_parameters)],
        }
        if row["constraint"] is not None:
            row["auxdata"] = floats(ps.auxdata)
        if row["constraint"] == "normal":
            row["sigmas"] = floats(ps.width())  # 1.0 for alphas (no explicit sigmas)
        if row["constraint"] == "poisson":
            row["factors"] = floats(ps.factors)
        rows.append(row)
    return rows


def sampling_windows(table, k):
    """Per flat parameter: (lo, hi) of the uniform draw, or None to keep it at init."""
    windows = []
    for row in table:
        multiplicative = not set(row["modifier_types"]) & ADDITIVE_TYPES
        for i in range(row["n"]):
            init = row["inits"][i]
            lo, hi = row["bounds"][i]
            if row["fixed"][i]:
                windows.append(None)
                continue
            if row["constraint"] == "normal":
                scale = row["sigmas"][i]
            elif row["constraint"] == "poisson":
                scale = 1.0 / math.sqrt(row["factors"][i])  # relative uncertainty of a shapesys gamma
            else:
                scale = 0.5 * abs(init) if init != 0 else 0.5  # unconstrained: init * (1 +- 0.5)
            a = max(lo, init - k * scale)
            b = min(hi, init + k * scale)
            if multiplicative:
                a = max(a, MULTIPLICATIVE_FLOOR * init if init > 0 else 0.05)
            windows.append((a, b))
    return windows


def evaluate(model, pars, data):
    pars = np.asarray(pars, dtype=float)
    nmain = model.config.nmaindata
    logpdf = float(model.logpdf(pars, data)[0])
    main = float(np.ravel(model.main_model.logpdf(data[:nmain], pars))[0])
    constraint = float(np.ravel(model.constraint_model.logpdf(data[nmain:], pars))[0]) if model.config.nauxdata else 0.0
    expected = floats(model.expected_data(pars))
    actual = floats(model.expected_actualdata(pars))
    return {
        "logpdf": logpdf,
        "logpdf_main": main,
        "logpdf_constraint": constraint,
        "expected_data": expected,
        "expected_actualdata": actual,
    }


def acceptable(result):
    values = [result["logpdf"], *result["expected_data"]]
    return all(math.isfinite(v) for v in values) and min(result["expected_actualdata"]) >= 0.0


def make_points(name, model, table, data):
    rng = np.random.default_rng([BASE_SEED, zlib.crc32(name.encode())])
    init = floats(model.config.suggested_init())
    first = evaluate(model, init, data)
    if not acceptable(first):
        raise RuntimeError(f"{name}: logpdf at suggested init is not finite")
    points = [{"label": "suggested_init", "k": 0.0, "draws": 0, "pars": init, **first}]
    for label, k in POINT_PLAN:
        draws = 0
        while True:
            windows = sampling_windows(table, k)
            for _ in range(MAX_DRAWS):
                draws += 1
                pars = [init[i] if w is None else float(rng.uniform(w[0], w[1])) for i, w in enumerate(windows)]
                result = evaluate(model, pars, data)
                if acceptable(result):
                    break
            else:
                k *= 0.5  # too many draws with negative yields or non-finite logpdf: narrow the window
                continue
            break
        points.append({"label": label, "k": k, "draws": draws, "pars": pars, **result})
    return points


class ExactLikelihood:
    """The fixture's likelihood at EXACT_DPS digits, from pyhf's own inputs: expected main data, auxdata,
    constraint sigmas and Poisson factors, all taken as exact doubles."""

    def __init__(self, model, data):
        cfg = model.config
        self.nmain = cfg.nmaindata
        mp = mpmath.mp
        with mpmath.workdps(EXACT_DPS):
            self.main_n = [mp.mpf(float(x)) for x in data[:self.nmain]]
            self.main_lgamma = [mpmath.loggamma(n + 1) for n in self.main_n]
            self.half_log_2pi = mpmath.log(2 * mp.pi) / 2
            self.normal, self.poisson = [], []  # (par index, aux, sigma) / (par index, aux, factor, lgamma(aux+1))
            offset = self.nmain
            for name in cfg.auxdata_order:  # pyhf lays out auxdata per paramset in this order, fixed ones too
                ps = cfg.param_set(name)
                indices = range(cfg.npars)[cfg.par_slice(name)]
                aux = [float(x) for x in data[offset:offset + ps.n_parameters]]
                offset += ps.n_parameters
                if ps.pdf_type == "normal":
                    # as pyhf: paramsets without sigmas (alphas) are unit normals
                    sigmas = [float(x) for x in getattr(ps, "sigmas", [1.0] * ps.n_parameters)]
                    self.normal += [(i, mp.mpf(a), mp.mpf(sg)) for i, a, sg in zip(indices, aux, sigmas)]
                elif ps.pdf_type == "poisson":
                    self.poisson += [(i, mp.mpf(a), mp.mpf(float(f)), mpmath.loggamma(mp.mpf(a) + 1))
                                     for i, a, f in zip(indices, aux, ps.factors)]
                else:
                    raise RuntimeError(f"{name}: unknown constraint {ps.pdf_type!r}")
            if offset != len(data):
                raise RuntimeError("auxdata layout differs from the paramsets in auxdata_order")
        # the sigmas and factors taken here must be the ones pyhf's constraint model evaluates with
        gauss, pois = model.constraint_model.constraints_gaussian, model.constraint_model.constraints_poisson
        if gauss.has_pdf() and floats(gauss._sigmas) != [float(sg) for _, _, sg in self.normal]:
            raise RuntimeError("normal constraint sigmas differ from pyhf's constraint model")
        if pois.has_pdf() and floats(pois._batched_factors[0]) != [float(f) for _, _, f, _ in self.poisson]:
            raise RuntimeError("Poisson constraint factors differ from pyhf's constraint model")
        if len(self.normal) + len(self.poisson) != cfg.nauxdata:
            raise RuntimeError("constraint terms do not cover the auxdata")

    @staticmethod
    def _log_poisson(n, lam, lgamma_n1):
        # continuous Poisson; n = 0 gives -lam, as pyhf's xlogy(0, lam) = 0
        return -lam if n == 0 else n * mpmath.log(lam) - lam - lgamma_n1

    def __call__(self, pars, expected_actualdata):
        """(main, constraint) log-likelihood terms as mpf at EXACT_DPS digits."""
        mpf = mpmath.mp.mpf
        with mpmath.workdps(EXACT_DPS):
            main = mpmath.fsum(self._log_poisson(n, mpf(lam), lg)
                               for n, lam, lg in zip(self.main_n, expected_actualdata, self.main_lgamma))
            terms = [-mpmath.log(sg) - self.half_log_2pi - (a - mpf(pars[i])) ** 2 / (2 * sg ** 2)
                     for i, a, sg in self.normal]
            terms += [self._log_poisson(a, mpf(pars[i]) * f, lg) for i, a, f, lg in self.poisson]
            return main, mpmath.fsum(terms)


def add_exact(model, data, points):
    """Adds logpdf_exact and logpdf_pyhf_rounding to each point; returns per point how far pyhf is off."""
    exact = ExactLikelihood(model, data)
    stats = []
    for p in points:
        main, constraint = exact(p["pars"], p["expected_actualdata"])
        with mpmath.workdps(EXACT_DPS):
            total = main + constraint
            p["logpdf_exact"] = float(total)
            p["logpdf_pyhf_rounding"] = abs(p["logpdf"] - p["logpdf_exact"])
            stats.append({
                "label": p["label"],
                "abs": p["logpdf_pyhf_rounding"],
                "rel": float(abs(mpmath.mpf(p["logpdf"]) - total) / abs(total)) if total != 0 else 0.0,
                "main": float(abs(mpmath.mpf(p["logpdf_main"]) - main)),
                "constraint": float(abs(mpmath.mpf(p["logpdf_constraint"]) - constraint)),
            })
    return stats


def check_close(what, got, want, rtol=1e-12):
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    if got.shape != want.shape or not np.allclose(got, want, rtol=rtol, atol=0.0):
        raise RuntimeError(f"{what}: pyhf here disagrees with the stored reference")


def build_fixture(name, sources, build, workspace, model, settings):
    modelspec = {"channels": workspace["channels"]}
    if build.get("patches"):
        for patch in build["patch_documents"]:
            modelspec = jsonpatch.JsonPatch(patch).apply(modelspec)
    predicted = predict_par_order(modelspec)
    if predicted != model.config.par_order:
        raise RuntimeError(f"{name}: predicted par_order {predicted} != pyhf {model.config.par_order}")
    par_names = expand_names(model)
    if par_names != model.config.par_names:
        raise RuntimeError(f"{name}: par_names expansion differs from pyhf")

    data = np.asarray(workspace.data(model), dtype=float)
    table = paramset_table(model)
    points = make_points(name, model, table, data)
    for p in points:
        if abs(p["logpdf_main"] + p["logpdf_constraint"] - p["logpdf"]) > 1e-9 * max(1.0, abs(p["logpdf"])):
            raise RuntimeError(f"{name}: logpdf != main + constraint")
    exact_stats = add_exact(model, data, points)
    build = {k: v for k, v in build.items() if k != "patch_documents"}
    return {
        "name": name,
        "source": [rel_shared(s) for s in sources],
        "source_root": "../shared",
        "source_sha256": {rel_shared(s): sha256(s) for s in sources},
        "build": build,
        "pyhf_version": pyhf.__version__,
        "numpy_version": np.__version__,
        "backend": "numpy 64b",
        "modifier_settings": settings,
        "poi_name": model.config.poi_name,
        "poi_index": model.config.poi_index,
        "channels": [{"name": c, "nbins": int(model.config.channel_nbins[c])} for c in model.config.channels],
        "samples": list(model.config.samples),
        "modifiers": [list(m) for m in model.config.modifiers],
        "par_order": list(model.config.par_order),
        "par_names": par_names,
        "paramsets": table,
        "suggested_init": floats(model.config.suggested_init()),
        "suggested_bounds": [floats(b) for b in model.config.suggested_bounds()],
        "suggested_fixed": [bool(f) for f in model.config.suggested_fixed()],
        "auxdata": floats(model.config.auxdata),
        "auxdata_order": list(model.config.auxdata_order),
        "n_main_data": int(model.config.nmaindata),
        "n_aux_data": int(model.config.nauxdata),
        "data": floats(data),
        "sampling": {
            "seed": [BASE_SEED, zlib.crc32(name.encode())],
            "generator": "numpy.random.default_rng(seed).uniform, one draw per free parameter in par_names order",
            "rule": "see tests/reference/README.md",
        },
        "points": points,
    }, exact_stats


def validation_cases():
    root = SHARED / "validation" / "pyhf-validation"
    for case_dir in sorted(p for p in root.iterdir() if (p / "workspace.json").is_file()):
        ws_path, exp_path = case_dir / "workspace.json", case_dir / "expected.json"
        expected = load(exp_path)
        settings = expected["model_settings"]["effective_interpcodes"]
        workspace = pyhf.Workspace(load(ws_path))
        model = workspace.model(modifier_settings=settings)
        ref = expected["model"]
        if model.config.poi_name != ref["poi_name"] or list(model.config.par_order) != ref["par_order"]:
            raise RuntimeError(f"{case_dir.name}: model differs from expected.json")
        check_close(f"{case_dir.name} data", workspace.data(model), ref["data"], rtol=0.0)
        check_close(f"{case_dir.name} auxdata", model.config.auxdata, ref["auxdata"], rtol=0.0)
        check_close(f"{case_dir.name} logpdf", model.logpdf(model.config.suggested_init(), workspace.data(model)),
                    [ref["logpdf_suggested_init"]])
        check_close(f"{case_dir.name} expected_data", model.expected_data(model.config.suggested_init()),
                    ref["expected_data_suggested_init"])
        build = {"how": "pyhf.Workspace(workspace).model(modifier_settings=...)",
                 "measurement": workspace.get_measurement()["name"]}
        yield build_fixture(f"validation_{case_dir.name}", [ws_path, exp_path], build, workspace, model, settings)


def example_cases():
    root = SHARED / "validation" / "pyhf-examples"
    index = load(root / "index.json")["files"]
    by_digest = {}
    for path, entry in index.items():
        if entry["kind"] == "workspace" and entry["accepted"]:
            by_digest.setdefault(entry["digest_sha256"], []).append(path)
    for digest, paths in by_digest.items():
        # byte-identical copies of one workspace give one fixture that lists every copy as a source
        paths = sorted(paths)
        stem = Path(paths[0]).stem.replace("-", "_").removeprefix("example_")
        workspace = pyhf.Workspace(load(root / paths[0]))
        model = workspace.model(modifier_settings=DEFAULT_SETTINGS)
        build = {"how": "pyhf.Workspace(workspace).model(modifier_settings=defaults)",
                 "measurement": workspace.get_measurement()["name"], "workspace_digest_sha256": digest}
        yield build_fixture(f"example_{stem}", [root / p for p in paths], build, workspace, model,
                            DEFAULT_SETTINGS)


def erjr_cases():
    root = SHARED / "data" / "atlas-3l-erjr"
    bkg_path = root / "BkgOnly.json"
    bkg = load(bkg_path)
    workspace = pyhf.Workspace(bkg)
    expected = load(root / "expected.json")["points"]
    try:
        model = workspace.model(modifier_settings=DEFAULT_SETTINGS)
        yield build_fixture("erjr_BkgOnly", [bkg_path], {"how": "pyhf.Workspace(BkgOnly).model()"},
                            workspace, model, DEFAULT_SETTINGS)
    except pyhf.exceptions.InvalidModel as err:
        # The measurement POI is only added by the signal patches; keep a POI-less model of the bare
        # background so the model code is still checked against it.
        model = workspace.model(modifier_settings=DEFAULT_SETTINGS, poi_name=None)
        build = {"how": "pyhf.Workspace(BkgOnly).model(poi_name=None)",
                 "measurement": workspace.get_measurement()["name"],
                 "error_with_measurement_poi": f"{type(err).__module__}.{type(err).__name__}: {err}"}
        yield build_fixture("erjr_BkgOnly_nopoi", [bkg_path], build, workspace, model, DEFAULT_SETTINGS)
    for patch_path in sorted(root.glob("patch.*.json")):
        point = patch_path.name[len("patch."):-len(".json")]
        patch = load(patch_path)
        model = workspace.model(patches=[patch], modifier_settings=DEFAULT_SETTINGS)
        check_close(f"{point} logpdf", model.logpdf(model.config.suggested_init(), workspace.data(model)),
                    [expected[point]["logpdf_suggested_init"]])
        if model.config.par_names != expected[point]["par_names"]:
            raise RuntimeError(f"{point}: par_names differ from expected.json")
        build = {"how": "pyhf.Workspace(BkgOnly).model(patches=[patch])",
                 "measurement": workspace.get_measurement()["name"],
                 "patches": [rel_shared(patch_path)], "patch_documents": [patch]}
        yield build_fixture(f"erjr_{point}", [bkg_path, patch_path], build, workspace, model, DEFAULT_SETTINGS)


def main():
    if not SHARED.is_dir():
        sys.exit(f"{SHARED} not found")
    OUT.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    index = {}
    worst = {}  # (group, "abs" | "rel") -> (fixture name, point stats)
    for group, gen in (("validation", validation_cases), ("examples", example_cases), ("eRJR", erjr_cases)):
        for fx, stats in gen():
            for st in stats:
                # pyhf's double-precision rounding may only show where the eRJR shapesys taus are huge
                if group != "eRJR" and not st["rel"] < EXACT_RTOL:
                    raise RuntimeError(f"{fx['name']} {st['label']}: pyhf logpdf differs from logpdf_exact by "
                                       f"{st['rel']:.3g} relative (limit {EXACT_RTOL:g})")
                for key in ("abs", "rel"):
                    if (group, key) not in worst or st[key] > worst[group, key][1][key]:
                        worst[group, key] = (fx["name"], st)
            path = OUT / f"{fx['name']}.json"
            with open(path, "w") as f:
                json.dump(fx, f, allow_nan=False, separators=(",", ":"))
                f.write("\n")
            index[fx["name"]] = {
                "file": path.name,
                "source": fx["source"],
                "poi_name": fx["poi_name"],
                "n_pars": len(fx["par_names"]),
                "n_main_data": fx["n_main_data"],
                "n_aux_data": fx["n_aux_data"],
                "n_points": len(fx["points"]),
                "modifier_settings": fx["modifier_settings"],
            }
            print(f"{fx['name']}: {len(fx['par_names'])} pars, {fx['n_main_data']} main bins, "
                  f"pyhf rounding <= {max(p['logpdf_pyhf_rounding'] for p in fx['points']):.3g}")
    with open(OUT / "index.json", "w") as f:
        json.dump({"pyhf_version": pyhf.__version__, "numpy_version": np.__version__,
                   "generator": "tests/reference/make_model_fixtures.py", "fixtures": index}, f, indent=1)
        f.write("\n")
    for (group, key), (name, w) in worst.items():
        what = "largest logpdf_pyhf_rounding" if key == "abs" else "largest relative pyhf rounding"
        print(f"{what}, {group}: {w['abs']:.3g} absolute, {w['rel']:.3g} relative (of which main "
              f"{w['main']:.3g}, constraint {w['constraint']:.3g}) at {name} {w['label']}")
    print(f"{len(index)} fixtures in {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    main()
