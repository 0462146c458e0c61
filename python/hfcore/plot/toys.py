"""Toy studies (`hfcore toys`): the pulls of every parameter over the toys of one injected POI value (mean as the
marker, width as the bar, each with its statistical error), and the linearity of the fitted POI against the
injected values with the fitted line."""

import numpy as np

from . import _style
from ._io import Node, PlotInputError, expect_kind, load
from .pulls import draw_bands, list_figsize, name_axis, select


def _points(result):
    doc, source = load(result)
    expect_kind(doc, source, "toys", "toy study")
    root = Node(doc, source)
    return root, root["points"].items(min_length=1)


def read_pulls(result, poi_value=None):
    """(injected value, rows (name, pull mean, its error, pull width, its error)) of the parameters with pulls at
    the injected value `poi_value` (default: the first)."""
    _, points = _points(result)
    values = [p["poi_value"].num() for p in points]
    if poi_value is None:
        j = 0
    else:
        matches = [i for i, v in enumerate(values) if abs(v - poi_value) <= 1e-12 * max(1.0, abs(v))]
        if not matches:
            raise PlotInputError(f"no toys at POI = {poi_value:g}; the study has {', '.join(f'{v:g}' for v in values)}")
        j = matches[0]
    rows = []
    for p in points[j]["parameters"].items(min_length=1):
        if p.get("fixed").bool(False) or not p.has("pull_width"):
            continue
        rows.append((p["name"].str(), p["pull_mean"].num(), p["pull_mean_error"].num(), p["pull_width"].num(),
                     p["pull_width_error"].num()))
    return values[j], rows


def pulls_toys(result, *, poi_value=None, include=None, exclude=None, experiment=None, text=None, lumi=None, com=None,
               style="ATLAS", width=None):
    """The toy pulls of an `hfcore toys` result (path or dict) at one injected POI value as one Figure: per
    parameter the mean pull (marker, with its error as a short bar) and the pull width (the long bar), over the
    +-1 and +-2 bands; a well-behaved fit has every marker at 0 and every bar reaching +-1."""
    mu, rows = read_pulls(result, poi_value)
    keep = select([r[0] for r in rows], include, exclude)
    if not keep:
        raise PlotInputError("no parameter left to show (every one fixed or excluded)")
    rows = [rows[i] for i in keep]
    names = [r[0] for r in rows]
    mean, mean_err, wid, wid_err = (np.array([r[k] for r in rows]) for k in (1, 2, 3, 4))
    with _style.style(style):
        w, h = list_figsize(names)
        fig, ax = _style.figure(style, figsize=(width or w, h))
        draw_bands(ax)
        y = np.arange(len(rows))
        ax.errorbar(mean, y, xerr=wid, fmt="none", ecolor="black", lw=1.5, capsize=3, zorder=3, label="pull width")
        ax.errorbar(mean, y, xerr=mean_err, fmt="o", color="black", ms=5, lw=3, capsize=0, zorder=4,
                    label="pull mean")
        for yi, wd, we in zip(y, wid, wid_err):
            ax.text(2.95, yi, f"{wd:.2f}$\\pm${we:.2f}", va="center", ha="right", fontsize="x-small", zorder=5)
        name_axis(ax, names)
        ax.set_xlim(-3, 3)
        ax.set_xlabel(r"$(\hat{\theta} - \theta_\mathrm{true})\,/\,\sigma_{\hat{\theta}}$ over the toys", loc="right")
        ax.set_title(f"toys at POI = {mu:g} (numbers: pull width)", loc="right", fontsize="medium")
        fig.tight_layout()
        _style.experiment_label(ax, experiment, text, lumi, com)
    fig._hfcore_rows = names
    return fig


def read_linearity(result):
    """(poi name, injected values, mean fitted POI, its error, linearity dict) of an `hfcore toys` result."""
    root, points = _points(result)
    poi = root.get("poi", "mu").value
    x, y, e = [], [], []
    for p in points:
        entry = next((q for q in p["parameters"].items() if q["name"].str() == poi), None)
        if entry is None:
            p._fail(f"no parameter entry for the POI '{poi}'")
        x.append(p["poi_value"].num())
        y.append(entry["mean"].num())
        e.append(entry["mean_error"].num())
    if len(set(x)) < 2:
        raise PlotInputError("the linearity plot needs toys at two injected POI values or more (--mu-true A,B,...)")
    return poi, np.array(x), np.array(y), np.array(e), root.get("linearity", {}).value or {}


def linearity(result, *, experiment=None, text=None, lumi=None, com=None, style="ATLAS", figsize=None):
    """The mean fitted POI against the injected one, with the weighted straight-line fit of the result (slope and
    offset with their errors) and the diagonal, and the residuals below, as one Figure."""
    poi, x, y, e, fit = read_linearity(result)
    with _style.style(style):
        fig, (ax, rx) = _style.figure(style, figsize=figsize or (7.0, 6.5), nrows=2, sharex=True,
                                      gridspec_kw={"height_ratios": [3, 1], "hspace": 0.05})
        span = np.array([x.min() - 0.1 * np.ptp(x), x.max() + 0.1 * np.ptp(x)])
        ax.plot(span, span, color="0.5", ls="--", lw=1, label="fitted = injected")
        slope, offset = fit.get("slope"), fit.get("offset")
        if slope is not None and offset is not None:
            ax.plot(span, offset + slope * span, color="#3f90da", lw=1.5,
                    label=f"slope {slope:.3f}$\\pm${fit.get('slope_error', np.nan):.3f}, offset "
                          f"{offset:.3f}$\\pm${fit.get('offset_error', np.nan):.3f}")
        ax.errorbar(x, y, yerr=e, fmt="o", color="black", ms=5, label="mean fitted (toys)")
        label = _style.par_label(poi)
        ax.set_ylabel(f"mean fitted {label}", loc="top")
        ax.legend(loc="upper left", fontsize="small")
        rx.axhline(0, color="0.5", ls="--", lw=1)
        rx.errorbar(x, y - x, yerr=e, fmt="o", color="black", ms=5)
        rx.set_ylabel("bias")
        rx.set_xlabel(f"injected {label}", loc="right")
        _style.experiment_label(ax, experiment, text, lumi, com)
    return fig
