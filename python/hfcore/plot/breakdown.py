"""The uncertainty breakdown plot: horizontal bars of the POI's total, statistical and systematic uncertainty and
of each group's impact (`hfcore breakdown`), largest group first, with each bar's share of the total."""

import numpy as np

from . import _style
from ._io import Node, expect_kind, load

TOTAL, STAT, SYST, GROUP = "#000000", "#3f90da", "#bd1f01", "#ffa90e"


def read(result):
    """(poi, convention, rows) of an `hfcore breakdown` result; each row (label, value, colour, converged), the
    total, statistical and systematic rows first, then the groups by impact."""
    doc, source = load(result)
    expect_kind(doc, source, "breakdown", "breakdown")
    root = Node(doc, source)
    rows = [("total", root["total"].num(), TOTAL, True), ("statistical", root["statistical"].num(), STAT, True),
            ("systematic", root["systematic"].num(), SYST, True)]
    groups = [(g["name"].str(), g["impact"].num(), GROUP, g.get("converged", True).bool())
              for g in root["groups"].items(min_length=1)]
    rows += sorted(groups, key=lambda r: -r[1])
    return root.get("poi", "mu").value, root.get("convention", "").value, rows


def breakdown(result, *, poi_name=None, experiment=None, text=None, lumi=None, com=None, style="ATLAS", figsize=None):
    """The breakdown of an `hfcore breakdown` result (path or dict) as one Figure."""
    poi, convention, rows = read(result)
    with _style.style(style):
        fig, ax = _style.figure(style, figsize=figsize or (7.0, 1.2 + 0.42 * len(rows)))
        y = np.arange(len(rows))[::-1]
        values = [r[1] for r in rows]
        ax.barh(y, values, color=[r[2] for r in rows], height=0.6)
        total = rows[0][1]
        reach = max(values) * 1.45 if max(values) > 0 else 1.0
        for yi, (label, value, _, converged) in zip(y, rows):
            share = f"{100 * value / total:.1f}%" if total > 0 else ""
            note = "" if converged else " (not converged)"
            ax.text(value + 0.01 * reach, yi, f"{value:.3g}  {share}{note}", va="center", ha="left", fontsize="small")
        ax.set_yticks(y)
        ax.tick_params(axis="y", which="both", length=0)
        ax.set_yticklabels([_style.tex_escape(r[0]) for r in rows])
        ax.set_xlim(0, reach)
        ax.set_ylim(-0.7, len(rows) - 0.3)
        what = f" ({convention} uncertainties)" if convention else ""
        ax.set_xlabel(f"uncertainty of {_style.par_label(poi_name or poi)}{what}")
        ax.axhline(y[2] - 0.5, color="grey", lw=0.8)
        _style.experiment_label(ax, experiment, text, lumi, com)
        fig.tight_layout()
    return fig
