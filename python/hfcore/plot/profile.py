"""Profile-likelihood scans: -2 Delta ln L of one parameter with the 68% and 95% CL levels and the interval,
or of two parameters as 68% / 95% CL contours over the scanned grid."""

import numpy as np
from matplotlib.lines import Line2D
from scipy.stats import chi2

from . import _style
from ._io import Node, PlotInputError, expect_kind, load


def read(result):
    """(pars, values [n, d], delta [n], converged [n], bestfit [d], intervals dict) of `hfcore profile`."""
    doc, source = load(result)
    expect_kind(doc, source, "profile", "profile")
    root = Node(doc, source)
    pars = [p.str() for p in root["pars"].items(min_length=1)]
    if len(pars) > 2:
        raise PlotInputError(f"{source}: pars: a scan of {len(pars)} parameters; the plot shows one or two")
    points = root["points"].items(min_length=2)
    values = np.array([p["values"].nums(length=len(pars)) for p in points])
    delta = np.array([p["delta_twice_nll"].num(allow_none=True) for p in points], dtype=float)
    converged = np.array([p.get("converged", True).bool() for p in points])
    bestfit = root["bestfit"].nums(length=len(pars)) if root.has("bestfit") else [np.nan] * len(pars)
    intervals = root.get("intervals", {}).value or {}
    return pars, values, delta, converged, np.array(bestfit), intervals


def profile(result, *, xlabel=None, ylabel=None, show_nll=False, experiment=None, text=None, lumi=None, com=None, style="ATLAS",
            figsize=None):
    """The profile-likelihood plot of an `hfcore profile` result (path or dict): the -2 Delta ln L curve of a
    1-D scan, or the 68% / 95% CL contours of a 2-D scan (``show_nll``: over a colour map of -2 Delta ln L).
    Returns the Figure."""
    pars, values, delta, converged, bestfit, intervals = read(result)
    with _style.style(style):
        fig, ax = _style.figure(style, figsize=figsize)
        if len(pars) == 1:
            _one(ax, pars[0], values[:, 0], delta, converged, bestfit[0], intervals, xlabel, ylabel)
        else:
            _two(fig, ax, pars, values, delta, converged, bestfit, xlabel, ylabel, show_nll)
        fig.tight_layout()
        _style.experiment_label(ax, experiment, text, lumi, com)
        handles = fig._hfcore_handles
        _style.place_legend(ax, fig._hfcore_points, handles=handles,
                            locs=("upper center", "upper right", "upper left", "lower right", "lower left"))
    return fig


def _one(ax, par, x, delta, converged, best, intervals, xlabel, ylabel):
    order = np.argsort(x)
    x, delta, converged = x[order], delta[order], converged[order]
    fig = ax.figure
    (curve,) = ax.plot(x, delta, "-", color="black", lw=2, marker="o", ms=3.5, label="Profile likelihood")
    handles = [curve]
    if not converged.all():
        handles.append(ax.plot(x[~converged], delta[~converged], "x", color="red", ms=9, mew=2,
                               label="fit not converged")[0])
    levels = [(1.0, "68"), (chi2.ppf(0.95, 1), "95")]
    finite = delta[np.isfinite(delta)]
    top = max(np.max(finite) * 1.05 if len(finite) else 5.0, 5.0)
    ax.set_xlim(x[0], x[-1])
    ax.set_ylim(0, top)
    for (level, cl), colour in zip(levels, ("#1f3d99", "#d40000")):
        ax.axhline(level, color=colour, ls="--", lw=1.2)
        lo, hi = intervals.get(cl, [None, None]) if isinstance(intervals.get(cl), list) else (None, None)
        ax.text(x[-1], level, f" {cl}% CL", color=colour, ha="left", va="center", fontsize="medium",
                clip_on=False)
        for end in (lo, hi):
            if end is not None and x[0] <= end <= x[-1]:
                ax.plot([end, end], [0, level], color=colour, ls=":", lw=1.2)
    if np.isfinite(best):
        handles.append(ax.plot([best], [0], marker="*", color="black", ms=14, ls="none", clip_on=False,
                               label="Best fit", zorder=5)[0])
    lo, hi = intervals.get("68", [None, None]) if isinstance(intervals.get("68"), list) else (None, None)
    if np.isfinite(best) and lo is not None and hi is not None:
        curve.set_label(rf"{_style.par_label(par)} = {best:.3g}$^{{+{hi - best:#.2g}}}_{{-{best - lo:#.2g}}}$")
    ax.minorticks_on()
    ax.set_xlabel(xlabel or _style.par_label(par), loc="right")
    ax.set_ylabel(ylabel or r"$-2\,\Delta\ln L$", loc="top")
    fig._hfcore_handles = handles
    fig._hfcore_points = np.concatenate([_style.dense(x, delta), np.column_stack([x, np.ones_like(x)])[::2]])


def _two(fig, ax, pars, values, delta, converged, bestfit, xlabel, ylabel, show_nll):
    xs, ys = np.unique(values[:, 0]), np.unique(values[:, 1])
    if len(xs) * len(ys) != len(values) or len(xs) < 2 or len(ys) < 2:
        raise PlotInputError("a 2-D profile needs the full grid of points (the values of `hfcore profile` with "
                             f"two --par); got {len(values)} points on {len(xs)} x {len(ys)} values")
    grid = np.full((len(ys), len(xs)), np.nan)
    ix, iy = np.searchsorted(xs, values[:, 0]), np.searchsorted(ys, values[:, 1])
    grid[iy, ix] = delta
    levels = [chi2.ppf(0.6827, 2), chi2.ppf(0.95, 2)]
    if show_nll:
        cap = max(3 * levels[1], np.nanmin(grid) + 1)
        filled = ax.contourf(xs, ys, np.minimum(grid, cap), levels=np.linspace(0, cap, 31), cmap="viridis")
        cbar = fig.colorbar(filled, ax=ax, pad=0.02)
        cbar.set_label(r"$-2\,\Delta\ln L$", loc="top")
        cbar.set_ticks(np.arange(0, cap + 1e-9, 2 if cap <= 20 else 5))
    cs = ax.contour(xs, ys, grid, levels=levels, colors=["#1f3d99", "#d40000"], linestyles=["-", "--"],
                    linewidths=2.2)
    handles = [Line2D([], [], color="#1f3d99", lw=2.2, label="68% CL"),
               Line2D([], [], color="#d40000", lw=2.2, ls="--", label="95% CL")]
    if np.isfinite(bestfit).all():
        handles.append(ax.plot([bestfit[0]], [bestfit[1]], "*", color="black", ms=14, label="Best fit")[0])
    if not converged.all():
        handles.append(ax.plot(values[~converged, 0], values[~converged, 1], "x", color="red", ms=7, mew=2,
                               label="fit not converged")[0])
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(ys[0], ys[-1])
    ax.minorticks_on()
    ax.set_xlabel(xlabel or _style.par_label(pars[0]), loc="right")
    ax.set_ylabel(ylabel or _style.par_label(pars[1]), loc="top")
    paths = [p for path in cs.get_paths() for p in path.to_polygons(closed_only=False) if len(p) > 1]
    pts = [_style.dense(p[:, 0], p[:, 1], n=4) for p in paths] + [bestfit.reshape(1, 2)]
    fig._hfcore_handles = handles
    fig._hfcore_points = np.concatenate(pts)
    fig._hfcore_contours = cs
