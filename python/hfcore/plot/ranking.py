"""The impact (ranking) plot: for the nuisance parameters with the largest post-fit impact on the POI, the
POI's shift with the parameter held at +-1 pre-fit width (open bars) and +-1 post-fit uncertainty (filled
bars), on the top axis, with each parameter's pull and constraint overlaid on the bottom axis."""

import warnings

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from . import _style
from ._io import Node, PlotInputError, expect_kind, load
from .pulls import list_figsize, name_axis, pages, select

TOP = 20  # parameters shown by default, as impact plots in notes do
# Post-fit impacts filled, pre-fit ones as darker outlines (visible where the two coincide): +1 blue, -1 cyan.
UP, DOWN = "#4a7fe0", "#8fdcef"
UP_EDGE, DOWN_EDGE = "#0a1f5c", "#1584a0"


def read(result):
    """(poi, poi_hat, poi_uncertainty, rows sorted by post-fit impact) of an `hfcore ranking` result; each row a
    dict with name, impacts (pre_up, pre_down, post_up, post_down), pull, constraint, value, uncertainty,
    constrained, converged."""
    doc, source = load(result)
    expect_kind(doc, source, "ranking", "ranking")
    root = Node(doc, source)
    rows = []
    missing_centre = False
    for e in root["ranking"].items(min_length=1):
        prefit = e["prefit_uncertainty"].num()
        value, unc = e["value"].num(), e["uncertainty"].num()
        row = {"name": e["name"].str(), "value": value, "uncertainty": unc, "constrained": prefit > 0,
               "pre_up": e["impact_prefit_up"].num(), "pre_down": e["impact_prefit_down"].num(),
               "post_up": e["impact_postfit_up"].num(), "post_down": e["impact_postfit_down"].num(),
               "converged": e.get("converged", True).bool(), "pull": np.nan, "constraint": np.nan}
        if prefit > 0:
            if e.has("centre"):
                row["pull"] = (value - e["centre"].num()) / prefit
                row["constraint"] = unc / prefit
            else:
                missing_centre = True
        rows.append(row)
    if missing_centre:
        warnings.warn(f"{source}: the ranking has no 'centre' per parameter (an older hfcore): pulls not drawn",
                      stacklevel=3)
    rows.sort(key=lambda r: -max(abs(r["post_up"]), abs(r["post_down"])))
    poi = root.get("poi", "mu").value
    return poi, root["poi_hat"].num(), root.get("poi_uncertainty", np.nan).num(), rows


def ranking_pages(result, *, top=TOP, per_page=None, include=None, exclude=None, poi_name=None, experiment=None,
                  text=None, lumi=None, com=None, style="ATLAS", width=None):
    """Impact plots of an `hfcore ranking` result (path or dict): the ``top`` parameters by post-fit impact
    (0 or None: all), ``per_page`` to a page (default: all on one); ``include`` / ``exclude`` regular
    expressions choose the parameters first. One Figure per page."""
    poi, poi_hat, poi_unc, rows = read(result)
    rows = [rows[i] for i in select([r["name"] for r in rows], include, exclude)]
    if not rows:
        raise PlotInputError("no parameter left to show (every one excluded)")
    if top:
        rows = rows[:top]
    poi_tex = _style.par_label(poi_name or poi)
    reach = max(max(abs(r[k]) for k in ("pre_up", "pre_down", "post_up", "post_down")) for r in rows)
    reach = reach * 1.15 if reach > 0 else 1.0
    figs = [_page(rows[sl], reach, poi_tex, poi_hat, poi_unc, width, style, page == 0 and experiment, text, lumi, com)
            for page, sl in enumerate(pages(len(rows), per_page or len(rows)))]
    if len(figs) > 1:
        for i, fig in enumerate(figs):
            fig._hfcore_pull_axis.text(1.0, -0.6 / len(fig._hfcore_rows), f"{i + 1} / {len(figs)}",
                                        transform=fig._hfcore_pull_axis.transAxes, ha="right", va="top")
    return figs


def ranking(result, **kw):
    """The impact plot of the top parameters on one page; see ranking_pages."""
    kw["per_page"] = None
    return ranking_pages(result, **kw)[0]


def _page(rows, reach, poi_tex, poi_hat, poi_unc, width, style, experiment, text, lumi, com):
    n = len(rows)
    names = [r["name"] + ("" if r["constrained"] else " (free)") for r in rows]
    with _style.style(style):
        w, height = list_figsize(names, plot_width=5.0, extra_height=1.6)  # the legend above
        legend_in = height - list_figsize(names, plot_width=5.0)[1]
        fig, ax = _style.figure(style, figsize=(width or w, height))
        imp = ax.twiny()
        y = np.arange(n)
        h = 0.72
        post_up = [r["post_up"] for r in rows]
        post_down = [r["post_down"] for r in rows]
        pre_up = [r["pre_up"] for r in rows]
        pre_down = [r["pre_down"] for r in rows]
        bars = {
            "post_up": imp.barh(y, post_up, height=h, color=UP, lw=0, zorder=1),
            "post_down": imp.barh(y, post_down, height=h, color=DOWN, lw=0, zorder=1),
            "pre_up": imp.barh(y, pre_up, height=h, fill=False, edgecolor=UP_EDGE, lw=1.4, zorder=2),
            "pre_down": imp.barh(y, pre_down, height=h, fill=False, edgecolor=DOWN_EDGE, lw=1.4, zorder=2),
        }
        imp.axvline(0, color="0.3", lw=0.8, zorder=2)
        imp.set_xlim(-reach, reach)
        imp.xaxis.set_major_locator(MaxNLocator(nbins=6, symmetric=True))
        imp.set_xlabel(rf"$\Delta${poi_tex}", loc="right")
        imp.minorticks_on()
        imp.tick_params(axis="y", which="both", left=False, right=False)

        # Pulls on the bottom axis, drawn over the bars.
        ax.set_zorder(imp.get_zorder() + 1)
        ax.patch.set_visible(False)
        pull = np.array([r["pull"] for r in rows])
        cons = np.array([r["constraint"] for r in rows])
        drawn = np.isfinite(pull)
        for x in (-1, 1):
            ax.axvline(x, color="0.55", lw=0.9, ls=":", zorder=0)
        ax.errorbar(pull[drawn], y[drawn], xerr=np.nan_to_num(cons[drawn]), fmt="o", color="black", ms=5,
                    lw=1.5, capsize=0, zorder=5)
        lim = max(2.0, np.ceil(np.nanmax(np.abs(pull) + np.nan_to_num(cons), initial=0) + 0.2)) if drawn.any() else 2.0
        ax.set_xlim(-lim, lim)
        ax.set_xlabel(r"$(\hat{\theta} - \theta_0)\,/\,\Delta\theta$", loc="right")
        ax.tick_params(axis="x", which="both", top=False)
        imp.tick_params(axis="x", which="both", bottom=False)
        name_axis(ax, names)
        imp.set_ylim(ax.get_ylim())
        bad = [i for i, r in enumerate(rows) if not r["converged"]]
        for i in bad:
            ax.get_yticklabels()[i].set_color("red")

        top_frac = 1 - legend_in / height
        fig.tight_layout(rect=(0, 0, 1, top_frac))
        # Two columns: pre-fit bars and the pull marker, then the post-fit bars.
        handles = [
            Patch(facecolor="none", edgecolor=UP_EDGE, lw=1.4, label=r"Pre-fit: $\theta = \hat{\theta} + \Delta\theta$"),
            Patch(facecolor="none", edgecolor=DOWN_EDGE, lw=1.4,
                  label=r"Pre-fit: $\theta = \hat{\theta} - \Delta\theta$"),
            Line2D([], [], color="black", marker="o", ms=5, lw=1.5, label="Pull"),
            Patch(color=UP, label=r"Post-fit: $\theta = \hat{\theta} + \Delta\hat{\theta}$"),
            Patch(color=DOWN, label=r"Post-fit: $\theta = \hat{\theta} - \Delta\hat{\theta}$"),
        ]
        best = rf"$\hat{{{poi_tex.strip('$')}}}$" if poi_tex.startswith("$") else f"best-fit {poi_tex}"
        title = rf"Impact on {poi_tex}, {best} = {poi_hat:.3g}"
        if np.isfinite(poi_unc):
            title += rf" $\pm$ {poi_unc:.2g}"
        # The legend right above the top axis' label, the experiment label above the legend.
        fig.draw_without_rendering()  # places the tick labels and the axis label, measured next
        renderer = fig.canvas.get_renderer()
        pos = ax.get_position()
        above = [imp.xaxis.label] + [t for t in imp.get_xticklabels() if t.get_text()]
        top = max(t.get_window_extent(renderer).y1 for t in above) / fig.bbox.height
        legend = fig.legend(handles=handles, loc="lower center", ncol=2, title=title, fontsize="small",
                            bbox_to_anchor=((pos.x0 + pos.x1) / 2, top + 0.005), bbox_transform=fig.transFigure)
        if experiment or text:
            head = legend.get_window_extent(renderer).y1 / fig.bbox.height
            header = fig.add_axes((pos.x0, head, pos.width, 1e-3))
            header.axis("off")
            _style.experiment_label(header, experiment, text, lumi, com)
    fig._hfcore_bars = bars
    fig._hfcore_rows = [r["name"] for r in rows]
    fig._hfcore_pull_axis = ax
    return fig
