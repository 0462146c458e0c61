"""Exclusion contours in a signal-grid plane: observed and expected CLs = level contours with the +-1 sigma
expected band, interpolated from the scanned points (scipy griddata), the points marked.

The point coordinates come from the PatchSet's `values` (`hfcore scan` writes them, with the PatchSet's
`labels`), or from the patch names through a pattern: "ERJR_{m1}_{m2}" reads ERJR_350p0_150p0 as
(m1, m2) = (350, 150) ('p' is the decimal point, a leading 'm' a minus sign), or a regular expression with two
groups.
"""

import re
import warnings

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from scipy.interpolate import griddata
from scipy.spatial import QhullError
from scipy.stats import norm

from . import _style
from ._io import Node, PlotInputError, expect_kind, load

_NUMBER = r"[-+m]?[0-9]+(?:[p.][0-9]*)?(?:[eE][-+]?[0-9]+)?"


def pattern_regex(pattern):
    """(compiled regex, axis names) of a name pattern: a template with {field}s or a regex with two groups."""
    if "{" in pattern and "(" not in pattern:
        fields = re.findall(r"\{(\w*)\}", pattern)
        parts = re.split(r"\{\w*\}", pattern)
        regex = "".join(re.escape(p) + (f"({_NUMBER})" if i < len(fields) else "") for i, p in enumerate(parts))
        names = [f or ("x", "y", "z")[i] for i, f in enumerate(fields)]
    else:
        regex = pattern
        try:
            names = list(re.compile(pattern).groupindex)
        except re.error as e:
            raise PlotInputError(f"--pattern {pattern!r}: not a regular expression ({e})") from None
    compiled = re.compile(regex)
    if compiled.groups != 2:
        raise PlotInputError(f"--pattern {pattern!r}: needs two fields (e.g. 'NAME_{{x}}_{{y}}'), "
                             f"it has {compiled.groups}")
    if len(names) != 2:
        names = ["x", "y"]
    return compiled, names


def parse_number(text):
    """A number as patch names write it: 350p0 -> 350.0, m1p5 -> -1.5."""
    t = text.replace("p", ".")
    if t.startswith("m"):
        t = "-" + t[1:]
    return float(t)


def suggest_pattern(name):
    """A pattern for names like this one (its numbers replaced by fields), or None."""
    numbers = list(re.finditer(r"[0-9]+(?:p[0-9]+)?", name))
    if len(numbers) != 2:
        return None
    out, last = "", 0
    for field, m in zip(("x", "y"), numbers):
        out += name[last:m.start()] + "{" + field + "}"
        last = m.end()
    return out + name[last:]


def read(result, pattern=None, axes=(0, 1)):
    """The scan's points: dict with names, xy [n, 2], CLs_obs [n], CLs_exp [n, 5], ok [n] (no error),
    axis names, test_poi."""
    doc, source = load(result)
    kind = expect_kind(doc, source, "scan", "contour")
    root = Node(doc, source)
    results = root if isinstance(doc, list) else root["results"]
    rows = results.items(min_length=1)
    labels = root["labels"].list() if kind == "scan" and root.has("labels") and not isinstance(doc, list) else None
    regex, names = pattern_regex(pattern) if pattern else (None, None)
    out = {"names": [], "xy": [], "obs": [], "exp": [], "ok": [], "converged": []}
    for row in rows:
        name = row["name"].str()
        if regex is not None:
            m = regex.search(name)
            if not m:
                raise PlotInputError(f"{source}: {row.path}.name: '{name}' does not match the pattern "
                                     f"{pattern!r}")
            xy = [parse_number(m.group(1)), parse_number(m.group(2))]
        elif row.has("values"):
            values = row["values"].nums()
            if len(values) < 2 or max(axes) >= len(values):
                raise PlotInputError(f"{source}: {row.path}.values: {len(values)} value(s); a contour needs two "
                                     "coordinates per point (or give a pattern for the names)")
            xy = [values[axes[0]], values[axes[1]]]
        else:
            hint = suggest_pattern(name)
            raise PlotInputError(
                f"{source}: {row.path} ('{name}') has no 'values' (mass coordinates): scan a PatchSet whose "
                "patches carry values, or give a pattern that reads them from the names"
                + (f", e.g. --pattern '{hint}'" if hint else ", e.g. --pattern 'NAME_{x}_{y}'"))
        ok = not row.has("error")
        out["names"].append(name)
        out["xy"].append(xy)
        out["ok"].append(ok)
        out["converged"].append(ok and row.get("converged", True).bool())
        out["obs"].append(row["CLs_obs"].num() if ok else np.nan)
        out["exp"].append(row["CLs_exp"].nums(length=5) if ok else [np.nan] * 5)
    out = {k: np.asarray(v, dtype=float if k in ("xy", "obs", "exp") else None) for k, v in out.items()}
    out["ok"] = out["ok"].astype(bool)
    out["converged"] = out["converged"].astype(bool)
    if names is None:
        names = [labels[axes[0]], labels[axes[1]]] if labels and len(labels) > max(axes) else ["x", "y"]
    out["axes"] = names
    summary = root.get("summary", {}) if not isinstance(doc, list) else Node({}, source)
    out["test_poi"] = summary.get("test_poi", 1.0).num()
    out["source"] = source
    return out


def significance(cls):
    """Z = Phi^-1(1 - CLs): CLs falls exponentially over a grid, Z nearly linearly, so Z is what is
    interpolated (CLs = level <=> Z = Phi^-1(1 - level))."""
    return norm.isf(np.clip(cls, 1e-300, 1.0))


def interpolate(xy, values, n=300, method="linear"):
    """(X, Y, [field...]) on an n x n grid over the points' bounding box; NaN outside their convex hull.
    The coordinates are scaled to [0, 1] first, so that axes of different ranges triangulate alike."""
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    unit = (xy - lo) / span
    gx, gy = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n))
    fields = []
    for v in values:
        try:
            fields.append(griddata(unit, v, (gx, gy), method=method))
        except QhullError:
            raise PlotInputError("the signal points lie on a line: a contour needs a two-dimensional grid") from None
    return lo[0] + gx * span[0], lo[1] + gy * span[1], fields


def contour(result, *, pattern=None, axes=(0, 1), level=0.05, xlabel=None, ylabel=None, show_points=True,
            annotate=False, interpolation="linear", experiment=None, text=None, lumi=None, com=None,
            style="ATLAS", figsize=None):
    """Observed and expected exclusion contours of a signal-grid scan; returns the Figure.

    ``result``: the JSON of ``hfcore scan BKG PATCHES`` (path or dict) or the list hfcore.infer.scan returns.
    ``pattern`` reads the coordinates from the patch names (e.g. "ERJR_{m1}_{m2}") when the scan has no
    PatchSet values; ``axes`` picks two of the values when a PatchSet has more."""
    pts = read(result, pattern, axes)
    xy, ok = pts["xy"], pts["ok"]
    if ok.sum() < 3:
        raise PlotInputError(f"{pts['source']}: {ok.sum()} point(s) without errors; a contour needs at least 3")
    zc = norm.isf(level)
    z_obs = significance(pts["obs"][ok])
    z_exp = [significance(pts["exp"][ok, i]) for i in (1, 2, 3)]
    X, Y, (Zo, Zm1, Ze, Zp1) = interpolate(xy[ok], [z_obs] + z_exp, method=interpolation)
    # The +-1 sigma band: where the -1 sigma expected CLs excludes and the +1 sigma one does not.
    band = np.minimum(Zm1 - zc, zc - Zp1)
    with _style.style(style):
        fig, ax = _style.figure(style, figsize=figsize)
        handles = []
        if np.nanmax(band) > 0:
            ax.contourf(X, Y, band, levels=[0, np.nanmax(band) + 1], colors=[_style.YELLOW])
        cs_exp = ax.contour(X, Y, Ze, levels=[zc], colors="#1f3d99", linestyles="--", linewidths=2.2)
        cs_obs = ax.contour(X, Y, Zo, levels=[zc], colors="#d40000", linestyles="-", linewidths=2.8)
        handles += [Line2D([], [], color="#d40000", lw=2.8, label="Observed limit"),
                    Line2D([], [], color="#1f3d99", lw=2.2, ls="--", label="Expected limit"),
                    Patch(color=_style.YELLOW, label=r"Expected $\pm\mathrm{1}\sigma_\mathrm{exp}$")]
        if show_points:
            s = ax.plot(xy[ok, 0], xy[ok, 1], "o", color="0.45", ms=3.5, mew=0, zorder=3,
                        label="Signal points")[0]
            handles.append(s)
            if annotate:
                for (x, y), c in zip(xy[ok], pts["obs"][ok]):
                    ax.annotate(f"{c:.2g}", (x, y), xytext=(2, 2), textcoords="offset points", fontsize=7,
                                color="0.3")
        unsure = ok & ~pts["converged"]
        if unsure.any():  # kept in the interpolation, but a reader should know
            handles.append(ax.plot(xy[unsure, 0], xy[unsure, 1], "o", mfc="none", mec="#e76300", ms=8, mew=1.5,
                                   zorder=4, label="Fit not converged")[0])
        if (~ok).any():
            handles.append(ax.plot(xy[~ok, 0], xy[~ok, 1], "x", color="red", ms=7, mew=2, zorder=4,
                                   label="Failed points")[0])
        for name, cs in (("observed", cs_obs), ("expected", cs_exp)):
            if not _paths(cs):
                warnings.warn(f"{pts['source']}: no {name} exclusion (CLs < {level:g}) anywhere in the grid",
                              stacklevel=2)
        pad = 0.04 * (xy.max(axis=0) - xy.min(axis=0))
        ax.set_xlim(xy[:, 0].min() - pad[0], xy[:, 0].max() + pad[0])
        ax.set_ylim(xy[:, 1].min() - pad[1], xy[:, 1].max() + pad[1])
        ax.minorticks_on()
        ax.set_xlabel(xlabel or _style.tex_escape(pts["axes"][0]), loc="right")
        ax.set_ylabel(ylabel or _style.tex_escape(pts["axes"][1]), loc="top")
        fig.tight_layout()
        _style.experiment_label(ax, experiment, text, lumi, com)
        title = f"All limits at {100 * (1 - level):g}% CL"
        if pts["test_poi"] != 1.0:
            title += rf", $\mu$ = {pts['test_poi']:g}"
        covered = [xy] + [p for cs in (cs_obs, cs_exp) for p in _paths(cs)]
        inside = np.isfinite(band) & (band >= 0)
        covered.append(np.column_stack([X[inside], Y[inside]])[::7])
        _style.place_legend(ax, np.concatenate(covered), handles=handles, title=title)
    fig._hfcore_contours = {"observed": cs_obs, "expected": cs_exp}
    return fig


def _paths(cs):
    """The vertices of a contour set's lines, densified (one array per path)."""
    out = []
    for path in cs.get_paths() if hasattr(cs, "get_paths") else []:
        for poly in path.to_polygons(closed_only=False):
            if len(poly) > 1:
                out.append(_style.dense(poly[:, 0], poly[:, 1], n=4))
    return out
