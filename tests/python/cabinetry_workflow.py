"""cabinetry's documented workflow on one workspace, on real pyhf or on hfcore standing in for pyhf; writes every
step's results and wall time as JSON. Used by test_cabinetry.py (which compares the two engines) and by
bench/compare_cabinetry.py (which times them).

    python cabinetry_workflow.py {pyhf,hfcore} WORKSPACE.json OUT.json FIGURE_DIR [--skip STEP,...]

Each engine runs in its own process: cabinetry binds ``import pyhf`` when it is imported, keeps caches keyed by
model (yield uncertainties), and pyhf keeps a global backend; one process per engine keeps them apart. For
"hfcore" the process maps ``pyhf`` and its submodules to hfcore's in sys.modules before cabinetry is imported,
which is what "pyhf resolving to hfcore" means for a user's code.

Every fit, as cabinetry's own docs advise for comparisons, runs at Minuit ``strategy=2, tolerance=1e-4``: on
real pyhf that sets how close Migrad gets to the minimum; on hfcore it configures the Minuit object handed back
(MINOS), and hfcore's minimiser finds the minimum to its own, tighter criterion.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

STRATEGY, TOLERANCE = 2, 1e-4
# brentq's tolerance on the POI in fit.limit (cabinetry's default 0.01 would hide differences of 1e-3).
POI_TOLERANCE = 1e-4


def use_hfcore_as_pyhf():
    import importlib
    import pkgutil

    import hfcore

    sys.modules["pyhf"] = hfcore
    for info in pkgutil.walk_packages(hfcore.__path__, "hfcore."):
        if info.name.startswith(("hfcore.plot", "hfcore._plot", "hfcore.lib")):
            continue  # hfcore's own plots (no pyhf counterpart) and the backend plugins' shared libraries
        sys.modules["pyhf." + info.name[len("hfcore."):]] = importlib.import_module(info.name)


def tolist(x):
    import numpy as np

    if isinstance(x, dict):
        return {k: tolist(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [tolist(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    return x


def run(engine, workspace_path, figure_dir, skip=()):
    if engine == "hfcore":
        use_hfcore_as_pyhf()
    import matplotlib

    matplotlib.use("Agg")
    import cabinetry
    import numpy as np
    import pyhf

    assert pyhf.__name__ == ("hfcore" if engine == "hfcore" else "pyhf"), pyhf.__name__
    fit_kw = {"strategy": STRATEGY, "tolerance": TOLERANCE}
    out, times = {"engine": engine, "pyhf_module": pyhf.__name__}, {}

    def step(name, call):
        t0 = time.perf_counter()
        result = call()
        times[name] = time.perf_counter() - t0
        return result

    spec = step("workspace.load", lambda: cabinetry.workspace.load(workspace_path))

    def model_and_data():
        model, data = cabinetry.model_utils.model_and_data(spec)
        _, asimov = cabinetry.model_utils.model_and_data(spec, asimov=True)
        return model, data, asimov

    model, data, asimov = step("model_utils.model_and_data", model_and_data)
    poi = model.config.poi_name
    out["model"] = {"par_names": model.config.par_names, "poi": poi, "data": tolist(data),
                    "asimov": tolist(asimov)}

    fr = step("fit.fit", lambda: cabinetry.fit.fit(model, data, minos=[poi], goodness_of_fit=True, **fit_kw))
    out["fit"] = {"labels": fr.labels, "bestfit": tolist(fr.bestfit), "uncertainty": tolist(fr.uncertainty),
                  "corr_mat": tolist(fr.corr_mat), "best_twice_nll": fr.best_twice_nll,
                  "goodness_of_fit": fr.goodness_of_fit, "minos": tolist(fr.minos_uncertainty)}

    if "fit.ranking" not in skip:
        rank = step("fit.ranking", lambda: cabinetry.fit.ranking(model, data, fit_results=fr, **fit_kw))
        out["ranking"] = {k: tolist(getattr(rank, k)) for k in ("labels", "bestfit", "uncertainty", "prefit_up",
                                                                 "prefit_down", "postfit_up", "postfit_down")}

    # cabinetry scans the best fit +- 2 sigma by default, which leaves the POI's bounds when its best fit is on
    # one (pyhf then refuses the fixed value, as hfcore does): the range within the bounds, rounded so that
    # both engines scan the same points.
    i_poi = model.config.poi_index
    lo, hi = model.config.suggested_bounds()[i_poi]
    mle, unc = fr.bestfit[i_poi], fr.uncertainty[i_poi]
    par_range = (max(lo, round(mle - 2 * unc, 2)), min(hi, round(mle + 2 * unc, 2)))
    scan = step("fit.scan", lambda: cabinetry.fit.scan(model, data, poi, par_range=par_range, n_steps=5, **fit_kw))
    out["scan"] = {"parameter_values": tolist(scan.parameter_values), "delta_nlls": tolist(scan.delta_nlls),
                   "bestfit": scan.bestfit, "uncertainty": scan.uncertainty}

    if "fit.limit" not in skip:
        lim = step("fit.limit", lambda: cabinetry.fit.limit(model, data, poi_tolerance=POI_TOLERANCE, **fit_kw))
        out["limit"] = {"observed_limit": lim.observed_limit, "expected_limit": tolist(lim.expected_limit)}

    sig = step("fit.significance", lambda: cabinetry.fit.significance(model, data, **fit_kw))
    out["significance"] = {k: float(getattr(sig, k)) for k in
                           ("observed_p_value", "observed_significance", "expected_p_value",
                            "expected_significance")}

    def predictions():
        pre = cabinetry.model_utils.prediction(model)
        post = cabinetry.model_utils.prediction(model, fit_results=fr)
        table = cabinetry.tabulate.yields(post, data, per_channel=True, save_tables=False)
        return pre, post, table

    pre, post, table = step("model_utils.prediction + tabulate.yields", predictions)
    out["prediction"] = {
        which: {"model_yields": tolist(p.model_yields), "total_stdev_model_bins": tolist(p.total_stdev_model_bins),
                "total_stdev_model_channels": tolist(p.total_stdev_model_channels)}
        for which, p in (("prefit", pre), ("postfit", post))}
    out["yields_table"] = tolist(table)

    os.makedirs(figure_dir, exist_ok=True)
    step("visualize.data_mc",
         lambda: cabinetry.visualize.data_mc(post, data, figure_folder=figure_dir, close_figure=True))
    step("visualize.pulls", lambda: cabinetry.visualize.pulls(fr, figure_folder=figure_dir))
    # Correlations below 0.05 left out of the plot: a 60-parameter matrix drawn in full costs matplotlib seconds.
    step("visualize.correlation_matrix",
         lambda: cabinetry.visualize.correlation_matrix(fr, figure_folder=figure_dir, pruning_threshold=0.05))
    out["figures"] = sorted(f for f in os.listdir(figure_dir) if os.path.getsize(os.path.join(figure_dir, f)) > 0)
    out["times"] = times
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine", choices=["pyhf", "hfcore"])
    parser.add_argument("workspace")
    parser.add_argument("out")
    parser.add_argument("figure_dir")
    parser.add_argument("--skip", default="", help="steps to leave out, comma-separated (fit.ranking, fit.limit)")
    args = parser.parse_args(argv)
    skip = [s for s in args.skip.split(",") if s]
    for name in skip:
        if name not in ("fit.ranking", "fit.limit"):
            parser.error(f"--skip: {name!r} is not a step that can be left out (fit.ranking, fit.limit)")
    result = run(args.engine, args.workspace, args.figure_dir, skip)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
