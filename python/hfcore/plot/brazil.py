"""The Brazil band: CLs versus the POI (observed, expected median, +-1 and +-2 sigma bands), the CLs level and
the limits where the curves cross it."""

import numpy as np

from . import _style
from ._io import Node, PlotInputError, expect_kind, load

_HINT = "Run `hfcore upper-limit WORKSPACE --scan LO,HI,N`: with --scan it writes the CLs curve it scanned."


def read(result):
    """(poi name, level, mu [n], CLs_obs [n], CLs_exp [n, 5], converged [n], obs limit, exp limits [5]) of an
    upper-limit scan, sorted by mu, from `hfcore upper-limit --scan` (path or dict) or from
    hfcore.infer.intervals.upper_limits.upper_limit(..., return_results=True)'s tuple."""
    doc, source = load(result)
    if isinstance(doc, tuple):
        obs, exp, (scan, results) = doc
        mu = np.asarray(scan, float)
        cls_obs = np.array([float(r[0]) for r in results])
        cls_exp = np.array([[float(x) for x in r[1]] for r in results])
        converged = np.ones(len(mu), bool)
        poi, level, obs, exp = None, None, float(obs), [float(x) for x in exp]
    else:
        expect_kind(doc, source, "upper-limit", "brazil", _HINT)
        root = Node(doc, source)
        if not root.has("scan"):
            raise PlotInputError(f"{source}: an upper limit without the CLs curve (no 'scan'). {_HINT}")
        scan = root["scan"]
        mu = np.array(scan["values"].nums(min_length=2))
        cls_obs = np.array(scan["CLs_obs"].nums(length=len(mu)))
        cls_exp = np.array([e.nums(length=5) for e in scan["CLs_exp"].items(length=len(mu))])
        converged = np.array([bool(c) for c in scan.get("converged", [True] * len(mu)).list(length=len(mu))])
        poi = root.get("poi").value
        level = root.get("level").value
        obs = root["obs"].num()
        exp = root["exp"].nums(length=5)
    if len(mu) < 2:
        raise PlotInputError(f"{source}: the CLs curve has {len(mu)} point(s); the brazil plot needs a scan")
    order = np.argsort(mu, kind="stable")
    return (poi, level, mu[order], cls_obs[order], cls_exp[order], converged[order], obs, np.asarray(exp))


def brazil(result, *, poi_name=None, level=None, logy=False, xlabel=None, ylabel=None, experiment=None,
           text=None, lumi=None, com=None, style="ATLAS", figsize=None):
    """The Brazil-band plot of an upper-limit scan; returns the Figure.

    ``result``: the JSON of ``hfcore upper-limit WS --scan LO,HI,N`` (a path or the parsed dict), or the tuple of
    ``hfcore.infer.intervals.upper_limits.upper_limit(data, model, scan, return_results=True)``."""
    poi, lvl, mu, cls_obs, cls_exp, converged, obs, exp = read(result)
    poi = poi_name or poi or "mu"
    level = level if level is not None else (lvl if lvl is not None else 0.05)
    with _style.style(style):
        fig, ax = _style.figure(style, figsize=figsize)
        two = ax.fill_between(mu, cls_exp[:, 0], cls_exp[:, 4], color=_style.YELLOW, lw=0,
                              label=r"Expected $\pm\mathrm{2}\sigma$")
        one = ax.fill_between(mu, cls_exp[:, 1], cls_exp[:, 3], color=_style.GREEN, lw=0,
                              label=r"Expected $\pm\mathrm{1}\sigma$")
        (median,) = ax.plot(mu, cls_exp[:, 2], "k--", lw=1.8, label=rf"Expected, limit {exp[2]:.3g}")
        (observed,) = ax.plot(mu, cls_obs, "k-", lw=2, marker="o", ms=3.5, label=rf"Observed, limit {obs:.3g}")
        handles = [observed, median, one, two]
        if not converged.all():
            (bad,) = ax.plot(mu[~converged], cls_obs[~converged], "x", color="red", ms=9, mew=2,
                             label="fit not converged")
            handles.append(bad)
        handles.append(ax.axhline(level, color="red", lw=1.5, label=rf"CL$_s$ = {level:g}"))
        # The limits: where the curves cross the level, marked down to the axis.
        for x, ls in ((obs, "-"), (exp[2], "--")):
            if mu[0] <= x <= mu[-1]:
                ax.plot([x, x], [1e-300 if logy else 0, level], color="0.3", ls=ls, lw=1.0)
        ax.set_xlim(mu[0], mu[-1])
        if logy:
            ax.set_yscale("log")
            # Down to where the observed and median expected curves end, at most three decades below the level.
            low = np.nanmin(np.where(cls_exp[:, 2] > 0, np.minimum(cls_exp[:, 2], cls_obs), np.nan))
            ax.set_ylim(max(min(low, level / 10), level * 1e-3), 1.5)
        else:
            ax.set_ylim(0, 1.05)
        ax.minorticks_on()
        ax.set_xlabel(xlabel or _style.par_label(poi), loc="right")
        ax.set_ylabel(ylabel or r"CL$_s$", loc="top")
        fig.tight_layout()
        _style.experiment_label(ax, experiment, text, lumi, com)
        pts = np.concatenate([_style.band_points(mu, cls_exp[:, 0], cls_exp[:, 4]), _style.dense(mu, cls_obs),
                              _style.dense(mu[[0, -1]], [level, level], n=40)])
        _style.place_legend(ax, pts, handles=handles,
                            title=rf"Upper limit on {_style.par_label(poi)} at {100 * (1 - level):g}% CL",
                            locs=("upper right", "center right", "upper center", "lower left"), grow=not logy)
    return fig


__all__ = ["brazil", "read"]
