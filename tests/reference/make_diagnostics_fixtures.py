#!/usr/bin/env python3
"""Reference numbers for tests/diagnostics: cabinetry's fit diagnostics and pyhf profile scans.

For each workspace this records, with cabinetry 0.6 (iminuit inside, via pyhf's minuit optimizer) run with
tight settings (strategy 2, tolerance 1e-6: Migrad stops at EDM < 2e-9):
  - the MLE fit (bestfit, uncertainty, correlation matrix, best twice_nll) and the pulls computed from it with
    cabinetry's own helpers (centre = _parameters_maximizing_constraint_term, width = prefit_uncertainties);
  - the ranking with cabinetry.fit.ranking, or, for the parameters listed in a case (the full ranking of an
    sbottom model is hours of Minuit fits) and where cabinetry.fit.ranking raises (pyhf refuses a fixed value
    outside the parameter's bounds), with the body of its loop repeated here fit by fit (the same four
    cabinetry.fit._fit_model calls with the same arguments), a failing fit recorded as null with its error;
  - Minuit's HESSE at that best fit from a fresh Minuit, without parameter limits (`hesse_unbounded`, the
    Hessian's own uncertainties) and with them (`hesse_bounded`, Minuit's convention for bounded parameters:
    half the width of the internal +-1 sigma interval mapped back through its sin transformation);
  - pre-fit and post-fit yields with cabinetry.model_utils.prediction (yield_stdev), and the data per channel;
    plus yield_stdev evaluated at the stored fit (so a test can feed the same parameters, uncertainties and
    correlations and check the propagation alone at 1e-6);
  - the saturated-model goodness of fit (cabinetry.fit._goodness_of_fit), with its parts;
  - MINOS intervals (cabinetry.fit.fit(minos=...)) for the POI and one nuisance parameter;
  - a 1-D profile of the POI and of one nuisance parameter, and a 3x3 2-D profile, each point a pyhf fit
    with the scanned parameter(s) fixed, scipy SLSQP at tolerance 1e-15 (pyhf's fixed_poi_fit loop), keeping
    the lower of that and Minuit (strategy 2) at every point.

Usage: python3 tests/reference/make_diagnostics_fixtures.py [NAME ...]     (default: all; see CASES)
Environment: pip install cabinetry==0.6.0 pyhf==0.7.6 iminuit==2.33.0 numpy scipy (the versions used are
recorded in every file). Inputs are read from ../shared (HFCORE_SHARED_DIR) and the repository; their sha256 is
recorded. Writes tests/reference/diagnostics/<name>.json.
"""
import copy
import hashlib
import json
import logging
import os
import platform
import subprocess
import sys
import time

import cabinetry
import iminuit
import numpy as np
import pyhf
import scipy

logging.disable(logging.WARNING)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("HFCORE_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
OUT = os.path.join(HERE, "diagnostics")
STRATEGY = 2
TOLERANCE = 1e-6

# name -> (how to build the workspace, ranking subset or None for all parameters)
CASES = {
    "example": ({"repo": "examples/workspaces/example.json"}, None),
    "sbottom_regionA_1300_205_60": (
        {"shared": "validation/pyhf-validation/sbottom_regionA_1300_205_60/workspace.json"},
        ["mu_ttbar", "ttbar_Gen", "JET_GroupedNP_1", "staterror_SR_meff[0]", "lumi", "FT_EFF_B_systematics",
         "ttbar_ISR_Up", "SigRad"]),
    "sbottom_regionC_1600_850_60": (
        {"shared": "validation/pyhf-validation/sbottom_regionC_1600_850_60/workspace.json"},
        ["mu_z", "mu_ttbar", "Z_theory_SR", "staterror_SR_metsigST[1]", "JET_GroupedNP_1", "lumi"]),
    "random_3": ({"random": [3, "--channels", "2", "--bins", "4"]}, None),
    "random_11": ({"random": [11, "--channels", "2", "--bins", "4"]}, None),
}


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def load_case(how):
    """The workspace and a description of where it came from (path relative to the repo or ../shared, sha256)."""
    if "repo" in how:
        path = os.path.join(ROOT, how["repo"])
        return json.load(open(path)), {"repo": how["repo"], "sha256": sha256(path)}
    if "shared" in how:
        path = os.path.join(SHARED, how["shared"])
        return json.load(open(path)), {"shared": how["shared"], "sha256": sha256(path)}
    tool = os.path.join(SHARED, "tools", "random_workspace.py")
    args = [str(a) for a in how["random"]]
    text = subprocess.run([sys.executable, tool] + args, check=True, capture_output=True, text=True).stdout
    return json.loads(text), {
        "shared_tool": "tools/random_workspace.py",
        "args": args,
        "tool_sha256": sha256(tool),
        "workspace_sha256": hashlib.sha256(text.encode()).hexdigest(),
    }


def floats(x):
    return [float(v) for v in np.asarray(x).ravel()]


def fit_dict(fr):
    return {
        "labels": list(fr.labels),
        "bestfit": floats(fr.bestfit),
        "uncertainty": floats(fr.uncertainty),
        "corr_mat": [floats(r) for r in np.asarray(fr.corr_mat)],
        "best_twice_nll": float(fr.best_twice_nll),
    }


def pulls(model, data, fr):
    """pull = (bestfit - centre) / prefit width, constraint = uncertainty / prefit width (constrained, free)."""
    aux = pyhf.tensorlib.tolist(model.fullpdf_tv.split(pyhf.tensorlib.astensor(data))[1])
    centre = cabinetry.model_utils._parameters_maximizing_constraint_term(model, aux)
    width = cabinetry.model_utils.prefit_uncertainties(model)
    out = []
    for i, name in enumerate(model.config.par_names):
        entry = {"name": name, "value": float(fr.bestfit[i]), "uncertainty": float(fr.uncertainty[i]),
                 "pull": None, "constraint": None}
        if width[i] > 0:
            entry["pull"] = float((fr.bestfit[i] - centre[i]) / width[i])
            entry["constraint"] = float(fr.uncertainty[i] / width[i])
        out.append(entry)
    return out


def ranking(model, data, fr, subset):
    common = dict(strategy=STRATEGY, tolerance=TOLERANCE)
    if subset is None:
        try:
            r = cabinetry.fit.ranking(model, data, fit_results=fr, **common)
            return {"method": "cabinetry.fit.ranking", "entries": [
                {"name": r.labels[i], "value": float(r.bestfit[i]), "uncertainty": float(r.uncertainty[i]),
                 "impact_prefit_up": float(r.prefit_up[i]), "impact_prefit_down": float(r.prefit_down[i]),
                 "impact_postfit_up": float(r.postfit_up[i]), "impact_postfit_down": float(r.postfit_down[i])}
                for i in range(len(r.labels))]}
        except Exception as exc:  # noqa: BLE001 - e.g. a value outside the bounds: pyhf refuses that fit
            print(f"cabinetry.fit.ranking raised ({exc.__class__.__name__}); its loop body per fit instead",
                  file=sys.stderr)
            subset = [n for i, n in enumerate(model.config.par_names) if i != model.config.poi_index]
    # The body of cabinetry.fit.ranking's loop for the listed parameters (same fits, same arguments); a fit that
    # raises (pyhf refuses an init outside the bounds, Minuit finds no valid minimum) gives null and its error.
    labels = model.config.par_names
    prefit_unc = cabinetry.model_utils.prefit_uncertainties(model)
    poi = model.config.poi_index
    init, fixed = model.config.suggested_init(), model.config.suggested_fixed()
    entries = []
    for name in subset:
        i = labels.index(name)
        fix = list(fixed)
        fix[i] = True
        impacts, errors = [], {}
        keys = ["impact_prefit_up", "impact_prefit_down", "impact_postfit_up", "impact_postfit_down"]
        for key, v in zip(keys, (fr.bestfit[i] + prefit_unc[i], fr.bestfit[i] - prefit_unc[i],
                                 fr.bestfit[i] + fr.uncertainty[i], fr.bestfit[i] - fr.uncertainty[i])):
            if v == fr.bestfit[i]:
                impacts.append(0.0)
                continue
            ini = list(init)
            ini[i] = v
            try:
                f = cabinetry.fit._fit_model(model, data, init_pars=ini, fix_pars=fix, **common)
                impacts.append(float(f.bestfit[poi] - fr.bestfit[poi]))
            except Exception as exc:  # noqa: BLE001
                impacts.append(None)
                errors[key] = f"{exc.__class__.__name__}: {str(exc).splitlines()[0]}"
        e = {"name": name, "value": float(fr.bestfit[i]), "uncertainty": float(fr.uncertainty[i])}
        e.update(dict(zip(keys, impacts)))
        if errors:
            e["errors"] = errors
        entries.append(e)
    return {"method": "cabinetry.fit.ranking loop body, listed parameters", "entries": entries}


def hesse_at_minimum(model, data, fr, limits):
    """Minuit's HESSE (a fresh Minuit, strategy 2) at cabinetry's best fit, with or without parameter limits.

    Without limits it is the Hessian's own uncertainty. With them Minuit reports half the width of the internal
    +-1 sigma interval mapped back through its sin transformation (smaller by about (sigma / half range)^2 / 6);
    a fresh HESSE repeats that without the history of the fit, whose step sizes leave cabinetry's reported
    uncertainties a few 1e-4 off on parameters with large higher derivatives (code4p histosys)."""
    m = iminuit.Minuit(lambda x: float(-2 * model.logpdf(x, data)[0]), np.asarray(fr.bestfit, dtype=float),
                       name=model.config.par_names)
    m.errordef = 1
    m.fixed = model.config.suggested_fixed()
    if limits:
        m.limits = model.config.suggested_bounds()
    m.strategy = 2
    m.hesse()
    return [0.0 if f else float(e) for f, e in zip(model.config.suggested_fixed(), m.errors)]


def prediction_dict(model, data, pred):
    data_ch = cabinetry.model_utils._data_per_channel(model, data)
    channels = []
    for c, ch in enumerate(model.config.channels):
        channels.append({
            "name": ch,
            "samples": [{"name": s, "yields": floats(pred.model_yields[c][k]),
                         "stdev": floats(pred.total_stdev_model_bins[c][k])}
                        for k, s in enumerate(model.config.samples)],
            "total": floats(np.sum(np.asarray(pred.model_yields[c]), axis=0)),
            "total_stdev": floats(pred.total_stdev_model_bins[c][-1]),
            "channel_total_stdev": float(pred.total_stdev_model_channels[c][-1]),
            "data": floats(data_ch[c]),
        })
    return channels


def gof(model, data, fr):
    p = cabinetry.fit._goodness_of_fit(model, data, fr.best_twice_nll)
    # the saturated likelihood as cabinetry's _goodness_of_fit computes it
    main, aux = model.fullpdf_tv.split(pyhf.tensorlib.astensor(data))
    best = cabinetry.model_utils._parameters_maximizing_constraint_term(model, pyhf.tensorlib.tolist(aux))
    constraint = float(model.constraint_logpdf(aux, pyhf.tensorlib.astensor(best))) if model.config.nauxdata else 0.0
    poisson = float(sum(pyhf.tensorlib.poisson_dist(main).log_prob(main)))
    sat = -2.0 * (poisson + constraint)
    ndof = sum(model.config.channel_nbins.values()) - cabinetry.model_utils.unconstrained_parameter_count(model)
    return {"twice_nll": float(fr.best_twice_nll), "twice_nll_saturated": sat,
            "chi2": float(fr.best_twice_nll) - sat, "ndof": int(ndof),
            "p_value": None if np.isnan(p) else float(p)}


def fixed_fit(model, data, values):
    """Lowest twice_nll with the parameters of `values` {index: value} fixed: scipy (tol 1e-15) and Minuit."""
    init, fixed = list(model.config.suggested_init()), list(model.config.suggested_fixed())
    bounds = [list(b) for b in model.config.suggested_bounds()]
    for i, v in values.items():
        init[i], fixed[i] = v, True
        bounds[i] = [min(bounds[i][0], v), max(bounds[i][1], v)]
    best = None
    for opt in (pyhf.optimize.scipy_optimizer(tolerance=1e-15), pyhf.optimize.minuit_optimizer(strategy=2, tolerance=1e-6)):
        pyhf.set_backend("numpy", opt)
        try:
            _, t = pyhf.infer.mle.fit(data, model, init_pars=init, fixed_params=fixed, par_bounds=bounds,
                                      return_fitted_val=True)
            t = float(t)
        except Exception:  # a Minuit minimum flagged invalid: the scipy value stands
            continue
        best = t if best is None or t < best else best
    pyhf.set_backend("numpy")
    return best


def profile(model, data, fr, names, grids):
    idx = [model.config.par_names.index(n) for n in names]
    free_min = min(float(fr.best_twice_nll), fixed_fit(model, data, {}))
    points = []
    for values in (np.array(np.meshgrid(*grids, indexing="ij")).reshape(len(grids), -1).T):
        t = fixed_fit(model, data, dict(zip(idx, values)))  # None: neither optimizer found a valid minimum
        points.append({"values": floats(values), "twice_nll": t, "delta_twice_nll": None if t is None else t - free_min})
    return {"pars": names, "grids": [floats(g) for g in grids], "twice_nll_free": free_min, "points": points}


def run(name):
    how, subset = CASES[name]
    ws, source = load_case(how)
    t0 = time.time()
    model, data = cabinetry.model_utils.model_and_data(ws)
    pyhf.set_backend("numpy")
    fr = cabinetry.fit.fit(model, data, strategy=STRATEGY, tolerance=TOLERANCE)
    poi = model.config.poi_index
    labels = model.config.par_names
    out = {
        "description": __doc__.strip().splitlines()[0],
        "source": source,
        "software": {"cabinetry": cabinetry.__version__, "pyhf": pyhf.__version__, "iminuit": iminuit.__version__,
                     "numpy": np.__version__, "scipy": scipy.__version__, "python": platform.python_version()},
        "settings": {"strategy": STRATEGY, "tolerance": TOLERANCE,
                     "interpcodes": {"normsys": "code4", "histosys": "code4p"}, "backend": "numpy 64b"},
        "poi": model.config.poi_name,
        "par_names": labels,
        "fit": fit_dict(fr),
        "pulls": pulls(model, data, fr),
        "hesse_unbounded": hesse_at_minimum(model, data, fr, False),
        "hesse_bounded": hesse_at_minimum(model, data, fr, True),
    }
    if "random" in how:  # generated, not shared data: the tests read it from here
        out["workspace"] = ws
    out["ranking"] = ranking(model, data, fr, subset)
    out["yields_prefit"] = prediction_dict(model, data, cabinetry.model_utils.prediction(model))
    out["yields_postfit"] = prediction_dict(model, data, cabinetry.model_utils.prediction(model, fit_results=fr))
    out["gof"] = gof(model, data, fr)
    # MINOS for the POI and the nuisance parameter with the largest post-fit impact.
    rk = out["ranking"]["entries"]
    top = max(rk, key=lambda e: max(abs(e["impact_postfit_up"] or 0), abs(e["impact_postfit_down"] or 0)))["name"]
    frm = cabinetry.fit.fit(model, data, minos=[labels[poi], top], strategy=STRATEGY, tolerance=TOLERANCE)
    out["minos"] = {k: [float(frm.bestfit[labels.index(k)] + v[0]), float(frm.bestfit[labels.index(k)] + v[1])]
                    for k, v in frm.minos_uncertainty.items()}
    # Profiles: POI over mu_hat +- 3 sigma (within bounds), the top parameter over +- 2.5 sigma, and 2-D 3x3.
    lo_b, hi_b = model.config.suggested_bounds()[poi]
    mu, smu = fr.bestfit[poi], fr.uncertainty[poi]
    g_poi = np.linspace(max(lo_b, mu - 3 * smu), min(hi_b, mu + 3 * smu), 9)
    it = labels.index(top)
    lo_t, hi_t = model.config.suggested_bounds()[it]
    g_top = np.linspace(max(lo_t, fr.bestfit[it] - 2.5 * fr.uncertainty[it]),
                        min(hi_t, fr.bestfit[it] + 2.5 * fr.uncertainty[it]), 7)
    out["profiles"] = [
        profile(model, data, fr, [labels[poi]], [g_poi]),
        profile(model, data, fr, [top], [g_top]),
        profile(model, data, fr, [labels[poi], top], [g_poi[2::3], g_top[1::2][:3]]),
    ]
    out["seconds"] = round(time.time() - t0, 1)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(out, f, indent=1, allow_nan=False)
    print(f"{name}: {out['seconds']} s", file=sys.stderr)


def main():
    names = sys.argv[1:] or list(CASES)
    for n in names:
        if n not in CASES:
            sys.exit(f"unknown case {n}; known: {', '.join(CASES)}")
        run(n)


if __name__ == "__main__":
    main()
