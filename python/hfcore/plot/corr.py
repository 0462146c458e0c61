"""The correlation matrix of the fitted parameters, pruned to those correlated with another one by at least a
threshold, so that it stays readable with hundreds of parameters."""

import warnings

import numpy as np

from . import _style
from ._io import Node, PlotInputError, expect_kind, load

THRESHOLD = 0.1   # |rho| with some other parameter for a parameter to be shown
MAX_PARS = 40     # then at most this many, those with the largest |rho| first
ANNOTATE_UP_TO = 20


def read(result):
    """(names, matrix [P, P], poi or None) of `hfcore pulls --correlations` or `hfcore fit --uncertainties`."""
    doc, source = load(result)
    kind = expect_kind(doc, source, ("pulls", "fit"), "corr")
    root = Node(doc, source)
    if not root.has("correlations"):
        flag = "--correlations" if kind == "pulls" else "--uncertainties"
        raise PlotInputError(f"{source}: no 'correlations' in this {kind} result; run `hfcore {kind} WS {flag}`")
    c = root["correlations"]
    names = [n.str() for n in c["par_names"].items(min_length=1)]
    rows = c["matrix"].items(length=len(names))
    m = np.array([r.nums(length=len(names), allow_none=True) for r in rows], dtype=float)
    poi = root.get("poi").value
    return names, m, poi if isinstance(poi, str) else None


def prune(names, m, threshold=THRESHOLD, max_pars=MAX_PARS, keep_names=()):
    """Indices of the parameters whose largest |rho| with another (finite, not fixed) exceeds the threshold,
    at most max_pars of them (the most correlated), in their original order; those in keep_names (the POI)
    always."""
    off = np.abs(np.where(np.eye(len(names), dtype=bool), np.nan, m))
    strength = np.nanmax(np.where(np.isfinite(off), off, np.nan), axis=1, initial=0)
    fixed = ~np.isfinite(np.diag(m)) | (np.diag(m) == 0)
    always = [i for i, n in enumerate(names) if n in keep_names and not fixed[i]]
    keep = [i for i in range(len(names)) if strength[i] >= threshold and not fixed[i] and i not in always]
    if max_pars and len(keep) + len(always) > max_pars:
        keep = sorted(keep, key=lambda i: -strength[i])[:max(max_pars - len(always), 0)]
    return sorted(keep + always)


def corr(result, *, threshold=THRESHOLD, max_pars=MAX_PARS, annotate=None, experiment=None, text=None, lumi=None,
         com=None, style="ATLAS", figsize=None):
    """The correlation matrix of `hfcore pulls --correlations` / `hfcore fit --uncertainties` (path or dict),
    pruned (see prune; the POI, named by the pulls, always shown); returns the Figure. ``annotate``: print the values in the cells (default: up to 20
    parameters)."""
    names, m, poi = read(result)
    keep = prune(names, m, threshold, max_pars, keep_names=(poi,) if poi else ())
    n_all = int(np.sum(np.isfinite(np.diag(m)) & (np.diag(m) != 0)))
    if len(keep) < 2:
        raise PlotInputError(f"fewer than two parameters have |correlation| >= {threshold:g} with another; "
                             "lower the threshold")
    if max_pars and len(keep) == max_pars and n_all > max_pars:
        warnings.warn(f"showing the {max_pars} most correlated parameters of {n_all} (raise max_pars to see more)",
                      stacklevel=2)
    sub = m[np.ix_(keep, keep)]
    labels = [_style.tex_escape(names[i]) for i in keep]
    n = len(keep)
    annotate = n <= ANNOTATE_UP_TO if annotate is None else annotate
    with _style.style(style):
        size = min(max(6.0, 2.5 + 0.32 * n), 20.0)
        fig, ax = _style.figure(style, figsize=figsize or (size + 1.6, size))
        im = ax.imshow(sub, cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest", aspect="equal")
        tick_size = "medium" if n <= 20 else ("small" if n <= 40 else "x-small")
        ax.set_xticks(np.arange(n))
        ax.set_yticks(np.arange(n))
        ax.set_xticklabels(labels, rotation=90, fontsize=tick_size)
        ax.set_yticklabels(labels, fontsize=tick_size)
        ax.tick_params(which="both", top=False, right=False, bottom=False, left=False, labeltop=False)
        ax.set_xticks(np.arange(n + 1) - 0.5, minor=True)
        ax.set_yticks(np.arange(n + 1) - 0.5, minor=True)
        ax.grid(which="minor", color="white", lw=0.5)
        if annotate:
            fs = 12 if n <= 10 else (9 if n <= 15 else 7)
            for i in range(n):
                for j in range(n):
                    v = sub[i, j]
                    ax.text(j, i, f"{v:.2f}".replace("-0.00", "0.00"), ha="center", va="center", fontsize=fs,
                            color="white" if abs(v) > 0.6 else "black")
        cbar = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.03)
        cbar.set_label("Correlation", loc="top")
        fig.tight_layout()
        _style.experiment_label(ax, experiment, text, lumi, com)
    fig._hfcore_rows = [names[i] for i in keep]
    return fig
