"""Pulls and constraints of the nuisance parameters: (value - centre) / pre-fit width with the post-fit
uncertainty over the same width, one row per parameter, the +-1 / +-2 bands drawn; long lists split into pages."""

import re

import matplotlib
import numpy as np

from . import _style
from ._io import Node, PlotInputError, expect_kind, load

PER_PAGE = 40  # rows on one page: readable names in a figure that fits on a page of a note


def select(names, include=None, exclude=None):
    """Indices of the names kept by the include / exclude regular expressions (searched, repeatable)."""
    def compile_all(patterns):
        out = []
        for p in [patterns] if isinstance(patterns, str) else (patterns or []):
            try:
                out.append(re.compile(p))
            except re.error as e:
                raise PlotInputError(f"pattern {p!r}: not a regular expression ({e})") from None
        return out

    inc, exc = compile_all(include), compile_all(exclude)
    return [i for i, n in enumerate(names)
            if (not inc or any(r.search(n) for r in inc)) and not any(r.search(n) for r in exc)]


def pages(n, per_page):
    """Slices of n rows into pages of at most per_page rows, balanced (37 rows, 20 per page: 19 + 18)."""
    per_page = max(1, int(per_page or n or 1))
    k = max(1, -(-n // per_page))
    edges = np.linspace(0, n, k + 1).round().astype(int)
    return [slice(a, b) for a, b in zip(edges[:-1], edges[1:])]


def list_figsize(names, plot_width=4.5, extra_height=0.0):
    """(width, height) in inches of a figure with one row per name, for the current style's font size: rows
    1.45 font heights apart, room for the longest name beside a plot_width-inch plot (at 14 pt)."""
    k = matplotlib.rcParams["font.size"] / 14.0
    longest = max((len(n) for n in names), default=10)
    width = plot_width * k + 0.12 * k * longest + 0.6
    height = (1.3 + 1.45 * 14 / 72 * max(len(names), 4)) * k + extra_height * k
    return width, height


def read(result):
    """Rows (name, pull, constraint) of the constrained, free parameters of an `hfcore pulls` result, and the
    names of those left out (unconstrained: their pull is not defined; fixed)."""
    doc, source = load(result)
    expect_kind(doc, source, "pulls", "pulls")
    rows, skipped = [], []
    for p in Node(doc, source)["parameters"].items(min_length=1):
        name = p["name"].str()
        if not p.has("pull") or p.get("fixed").bool(False):
            skipped.append(name)
            continue
        rows.append((name, p["pull"].num(), p["constraint"].num() if p.has("constraint") else np.nan))
    return rows, skipped


def draw_bands(ax):
    """The +-1 (green) and +-2 (yellow) bands of pulls, and the line at 0."""
    ax.axvspan(-2, 2, color=_style.YELLOW, lw=0, zorder=0)
    ax.axvspan(-1, 1, color=_style.GREEN, lw=0, zorder=0)
    ax.axvline(0, color="0.2", lw=0.8, ls="--", zorder=1)


def name_axis(ax, names):
    """Parameter names on the y axis (in the style's text size), the first at the top."""
    n = len(names)
    ax.set_yticks(np.arange(n))
    ax.set_yticklabels([_style.tex_escape(s) for s in names], fontsize="medium")
    ax.set_ylim(n - 0.5, -0.5)
    ax.tick_params(axis="y", which="both", left=False, right=False)


def pulls_pages(result, *, include=None, exclude=None, per_page=PER_PAGE, xlim=None, experiment=None, text=None,
                lumi=None, com=None, style="ATLAS", width=None):
    """Pull plots of an `hfcore pulls` result (path or dict): one Figure per page of at most ``per_page``
    parameters. Unconstrained (normfactor, shapefactor) and fixed parameters have no pull and are left out;
    ``include`` / ``exclude`` (regular expressions) choose among the rest."""
    rows, _ = read(result)
    keep = select([r[0] for r in rows], include, exclude)
    if not keep:
        raise PlotInputError("no parameter left to show (every one unconstrained, fixed or excluded)")
    rows = [rows[i] for i in keep]
    figs = []
    for k, sl in enumerate(pages(len(rows), per_page)):
        part = rows[sl]
        names = [r[0] for r in part]
        pull = np.array([r[1] for r in part])
        cons = np.array([r[2] for r in part])
        with _style.style(style):
            w, h = list_figsize(names)
            fig, ax = _style.figure(style, figsize=(width or w, h))
            draw_bands(ax)
            y = np.arange(len(part))
            ax.errorbar(pull, y, xerr=np.nan_to_num(cons), fmt="o", color="black", ms=5, lw=1.5, capsize=0,
                        zorder=3)
            name_axis(ax, names)
            reach = np.nanmax(np.abs(pull) + np.nan_to_num(cons)) if len(part) else 0
            lim = xlim or max(3.0, np.ceil(reach + 0.25))
            ax.set_xlim(-lim, lim)
            ax.xaxis.set_minor_locator(_minor(0.5))
            ax.tick_params(axis="x", which="both", top=True)
            ax.set_xlabel(r"$(\hat{\theta} - \theta_0)\,/\,\Delta\theta$", loc="right")
            fig.tight_layout()
            if len(figs) == 0:
                _style.experiment_label(ax, experiment, text, lumi, com)
        fig._hfcore_rows = names
        figs.append(fig)
    if len(figs) > 1:
        for i, fig in enumerate(figs):
            fig.axes[0].set_title(f"{i + 1} / {len(figs)}", loc="right", fontsize="medium")
    return figs


def pulls(result, **kw):
    """The pull plot on one page (all the parameters kept); see pulls_pages."""
    kw.setdefault("per_page", None)
    return pulls_pages(result, **kw)[0]


def _minor(step):
    from matplotlib.ticker import MultipleLocator

    return MultipleLocator(step)
