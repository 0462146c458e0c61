"""What every plot shares: mplhep's style (as a context, so a user's global matplotlib settings are left alone),
axis labels from parameter names, the experiment label, a legend placed where it covers no data, and writing
one or several pages to png / pdf / svg.
"""

import contextlib
import inspect
import os
import re

import matplotlib.pyplot as plt
import mplhep
import numpy as np
from matplotlib.backends.backend_pdf import PdfPages

from ._io import PlotInputError

STYLES = ("ATLAS", "CMS", "LHCb", "ALICE", "ROOT", "matplotlib")
FORMATS = (".png", ".pdf", ".svg")

# Colour-blind-safe categorical colours (M. Petroff, arXiv:2107.02270, 10-colour set) for stacked samples.
SAMPLE_COLOURS = ["#3f90da", "#ffa90e", "#bd1f01", "#94a4a2", "#832db6", "#a96b59", "#e76300", "#b9ac70",
                  "#717581", "#92dadd"]
# Expected bands: the field's convention (+-1 sigma green, +-2 sigma yellow) for CLs curves and pulls.
GREEN, YELLOW = "#00cc00", "#ffcc00"


def _style_rc(style):
    if style in (None, "matplotlib"):
        return {}
    names = {"LHCb": "LHCb2"}
    try:
        rc = dict(getattr(mplhep.style, names.get(style, style)))
    except AttributeError:
        raise PlotInputError(f"unknown style '{style}' (choose from {', '.join(STYLES)})") from None
    # Category axes (parameter names) must not get minor ticks; plots turn them on where they help.
    rc.update({"xtick.minor.visible": False, "ytick.minor.visible": False, "savefig.dpi": 200,
               "axes.formatter.use_mathtext": True})
    # mathtext's custom font set also looks up bold italic, which the styles do not set (else a warning).
    if rc.get("mathtext.fontset") == "custom" and "mathtext.bf" in rc:
        rc["mathtext.bfit"] = rc["mathtext.bf"].split(":")[0] + ":italic:bold"
    return rc


@contextlib.contextmanager
def style(name="ATLAS"):
    """mplhep's style as a context; figures are made and saved inside it (mathtext reads its fonts when a
    figure is drawn, so save() draws a figure in the style it was made with)."""
    with plt.style.context(_style_rc(name)):
        yield


def figure(name="ATLAS", **kw):
    """A new figure (plt.subplots(**kw)) that remembers its style for save()."""
    fig, axes = plt.subplots(**kw)
    fig._hfcore_style = name
    return fig, axes


def tex_escape(text):
    """Plain text for matplotlib (a '$' in a parameter name would start mathtext)."""
    return str(text).replace("$", r"\$")


def par_label(name):
    """An axis label for a parameter: mu -> $\\mu$, mu_SIG -> $\\mu_{SIG}$, other names as they are."""
    m = re.fullmatch(r"mu(?:_?([A-Za-z0-9]+))?", name)
    if m:
        return r"$\mu$" if not m.group(1) else rf"$\mu_{{\mathrm{{{m.group(1)}}}}}$"
    return tex_escape(name)


def experiment_label(ax, experiment=None, text=None, lumi=None, com=None):
    """mplhep's experiment label above the axes (ATLAS / CMS / LHCb / ALICE, status text, luminosity, energy),
    or the text alone when no experiment is named."""
    if not experiment:
        if text:
            ax.text(0.0, 1.01, tex_escape(text), transform=ax.transAxes, ha="left", va="bottom")
        return
    params = inspect.signature(mplhep.label.exp_label).parameters
    kw = {"exp": experiment, "loc": 0, "ax": ax, "data": True, "lumi": None if lumi is None else f"{lumi:g}"}
    kw["text" if "text" in params else "label"] = text or ""
    kw["com"] = f"{com:g}" if com is not None else (None if lumi is None else "13")
    if kw["com"] is None and "com" in params:
        kw.pop("com")
        kw["rlabel"] = ""
    mplhep.label.exp_label(**kw)


def dense(x, y, n=12):
    """Points along a polyline, n per segment: what a legend must not cover of a line."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if len(x) < 2:
        return np.column_stack([x, y])
    t = np.linspace(0, 1, n, endpoint=False)
    xs = (x[:-1, None] + (x[1:] - x[:-1])[:, None] * t).ravel()
    ys = (y[:-1, None] + (y[1:] - y[:-1])[:, None] * t).ravel()
    return np.column_stack([np.append(xs, x[-1]), np.append(ys, y[-1])])


def band_points(x, lo, hi, n=6):
    """Points filling the area between two curves."""
    x, lo, hi = (np.asarray(a, float) for a in (x, lo, hi))
    pts = [dense(x, lo + (hi - lo) * f) for f in np.linspace(0, 1, n)]
    return np.concatenate(pts)


LOCS = ("upper right", "upper left", "lower left", "lower right", "upper center", "center right")


def place_legend(ax, points, *, locs=LOCS, grow=True, max_grow=8, **kw):
    """Draw the legend in the first corner of `locs` where it covers none of `points` (data coordinates);
    if every corner is taken, raise the top of the y axis (headroom, as HEP plots have) and try again, or with
    grow=False put the legend outside, right of the axes."""
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    points = np.asarray(points, float).reshape(-1, 2)
    best = None
    for attempt in range(max_grow + 1):
        disp = ax.transData.transform(points) if len(points) else np.empty((0, 2))
        for loc in locs:
            leg = ax.legend(loc=loc, **kw)
            box = leg.get_window_extent(renderer).padded(4)
            covered = int(np.sum((disp[:, 0] >= box.x0) & (disp[:, 0] <= box.x1) & (disp[:, 1] >= box.y0)
                                 & (disp[:, 1] <= box.y1)))
            if covered == 0:
                return leg
            if best is None or covered < best[0]:
                best = (covered, loc)
        if not grow:
            return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, **kw)
        if attempt == max_grow:
            break
        lo, hi = ax.get_ylim()
        if ax.get_yscale() == "log":
            ax.set_ylim(lo, hi * (hi / lo) ** 0.15)
        else:
            ax.set_ylim(lo, hi + 0.15 * (hi - lo))
    return ax.legend(loc=best[1], **kw)


def output_paths(path, n):
    """The files written for n pages: one file, a multi-page pdf, or NAME_1.png ... NAME_n.png."""
    root, ext = os.path.splitext(os.fspath(path))
    if ext.lower() not in FORMATS:
        raise PlotInputError(f"{path}: the output must end in {', '.join(FORMATS)}")
    if n == 1 or ext.lower() == ".pdf":
        return [os.fspath(path)]
    return [f"{root}_{i + 1}{ext}" for i in range(n)]


def save(figures, path, dpi=None):
    """Write the figures (one per page) and close them; returns the files written."""
    figures = list(figures) if isinstance(figures, (list, tuple)) else [figures]
    paths = output_paths(path, len(figures))
    kw = {"bbox_inches": "tight"}
    if dpi:
        kw["dpi"] = dpi
    if len(paths) == 1 and len(figures) > 1:
        with PdfPages(paths[0]) as pdf:
            for fig in figures:
                with style(getattr(fig, "_hfcore_style", None)):
                    pdf.savefig(fig, **kw)
    else:
        for fig, p in zip(figures, paths):
            with style(getattr(fig, "_hfcore_style", None)):
                fig.savefig(p, **kw)
    for fig in figures:
        plt.close(fig)
    return paths
