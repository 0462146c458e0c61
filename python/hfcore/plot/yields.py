"""Pre- or post-fit yields: the samples stacked per channel with the uncertainty band of their sum, the data
with Poisson (Garwood) intervals, and a ratio panel data / prediction. Few channels: one panel each; many: one
summary plot with every bin of every channel side by side."""

import warnings

import numpy as np
from matplotlib.patches import Patch
from scipy.stats import chi2

from . import _binning, _style
from ._io import Node, PlotInputError, expect_kind, load

PANELS_UP_TO = 4   # channels drawn as separate panels; more go into one summary plot
HATCH = dict(hatch="////", facecolor="none", edgecolor="0.25", lw=0)


def read(result):
    """(postfit, channels): per channel a dict name, samples [names], yields [S, B], total [B], stdev [B],
    data [B]."""
    doc, source = load(result)
    expect_kind(doc, source, "yields", "yields")
    root = Node(doc, source)
    channels = []
    for c in root["channels"].items(min_length=1):
        total = np.array(c["total"].nums(min_length=1))
        nb = len(total)
        samples = c["samples"].items()
        # `hfcore yields --binning FILE`: the bins' edges in the channel's observable, and its axis label.
        if c.has("edges"):
            edges = np.array(c["edges"].nums(length=nb + 1))
            if not np.all(np.diff(edges) > 0):
                raise PlotInputError(f"{source}: the edges of channel '{c['name'].str()}' do not increase")
        else:
            edges = None
        channels.append({
            "edges": edges,
            "label": c["label"].str() if c.has("label") else None,
            "name": c["name"].str(),
            "samples": [s["name"].str() for s in samples],
            "yields": np.array([s["yields"].nums(length=nb) for s in samples]).reshape(len(samples), nb),
            "total": total,
            "stdev": np.array(c["total_stdev"].nums(length=nb)),
            # A blinded run (hfcore ... --blind) writes "blinded" for the data it hides: no data drawn there.
            "data": np.full(nb, np.nan) if c["data"].value == "blinded" else np.array(c["data"].nums(length=nb)),
        })
    return root.get("postfit", False).bool(False), channels


def poisson_interval(n):
    """The 68.27% central (Garwood) interval's distances below and above n."""
    n = np.asarray(n, float)
    a = 1 - 0.682689492
    lo = np.where(n > 0, chi2.ppf(a / 2, 2 * np.maximum(n, 1e-12)) / 2, 0.0)
    hi = chi2.ppf(1 - a / 2, 2 * (n + 1)) / 2
    return n - lo, hi - n


def _order(channels):
    """Samples in stack order (largest total at the bottom) and a colour per sample name, the same for the
    pre- and post-fit plots of one model (sorted names)."""
    names = sorted({s for c in channels for s in c["samples"]})
    totals = {s: sum(c["yields"][c["samples"].index(s)].sum() for c in channels if s in c["samples"]) for s in names}
    shown = [s for s in names if totals[s] > 0]
    palette = _style.SAMPLE_COLOURS
    if len(names) > len(palette):  # more samples than the 10 colours: tab20's, then its shades, all distinct
        import matplotlib

        palette = palette + [matplotlib.colors.to_hex(c) for c in matplotlib.colormaps["tab20"].colors]
        palette += [matplotlib.colors.to_hex(c) for c in matplotlib.colormaps["tab20b"].colors]
    colours = {s: palette[i % len(palette)] for i, s in enumerate(names)}
    return sorted(shown, key=lambda s: -totals[s]), colours


def yields(result, *, channels=None, layout="auto", logy=None, experiment=None, text=None, lumi=None, com=None,
           style="ATLAS", figsize=None, ratio_range=None, binning=None):
    """Stacked yields with data and a ratio panel for an `hfcore yields` result (path or dict); returns the
    Figure. ``channels``: names to show (default all); ``layout``: "panels" (one per channel), "summary" (every
    bin side by side) or "auto" (panels up to 4 channels); ``logy``: None chooses from the yields' range;
    ``binning``: bin edges per channel (a `--binning` file's path or dict), drawn in the observable."""
    postfit, chans = read(result)
    if binning is not None:
        _binning.apply(chans, binning)
    if channels:
        wanted = [channels] if isinstance(channels, str) else list(channels)
        known = [c["name"] for c in chans]
        for w in wanted:
            if w not in known:
                raise PlotInputError(f"no channel '{w}' in the yields (channels: {', '.join(known)})")
        chans = [c for c in chans if c["name"] in wanted]
    if layout not in ("auto", "panels", "summary"):
        raise PlotInputError(f"layout '{layout}': choose auto, panels or summary")
    if layout == "auto":
        layout = "panels" if len(chans) <= PANELS_UP_TO else "summary"
    if layout == "summary":
        chans = [_concatenate(chans)]
    order, colours = _order(chans)
    if logy is None:
        logy = any(_wide_range(c) for c in chans)
    n = len(chans)
    widths = [min(max(len(c["total"]), 1.5), 8) for c in chans] if layout == "panels" else [1]
    with _style.style(style):
        if figsize is None:
            w = 3.2 * n + 2.5 if layout == "panels" else min(4 + 0.45 * len(chans[0]["total"]), 16)
            figsize = (max(w, 6.5), 6.5)
        fig, axes = _style.figure(style, nrows=2, ncols=n, figsize=figsize, squeeze=False, sharex="col",
                                  gridspec_kw={"height_ratios": [3, 1], "width_ratios": widths, "hspace": 0.06,
                                               "wspace": 0.28})
        ratio_range = ratio_range or _ratio_range(chans)
        for k, c in enumerate(chans):
            _channel(axes[0, k], axes[1, k], c, order, colours, logy, ratio_range, first=k == 0,
                     summary=layout == "summary")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # shared axes: tight_layout still does the right thing
            fig.tight_layout(h_pad=0.0)
        fig.subplots_adjust(hspace=0.06)
        _style.experiment_label(axes[0, 0], experiment, text, lumi, com)
        handles = [axes[0, 0].errorbar([], [], yerr=[], fmt="o", color="black", ms=5, label="Data")]
        # The legend lists the samples as they appear in the stack, top first.
        handles += [Patch(color=colours[s], label=_style.tex_escape(s)) for s in reversed(order)]
        handles.append(Patch(label="Uncertainty", **HATCH))
        axes[0, -1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.03, 1.0), borderaxespad=0.0,
                           title="Post-fit" if postfit else "Pre-fit")
    fig._hfcore_channels = [c["name"] for c in chans]
    return fig


def _ratio_range(chans):
    """One ratio-panel range for every channel: the data's deviations with their errors and the band, a
    multiple of 0.25, at most 1 +- 1."""
    reach = 0.1
    for c in chans:
        pred = np.where(c["total"] > 0, c["total"], np.nan)
        down, up = poisson_interval(c["data"])
        dev = np.concatenate([np.abs(c["data"] / pred - 1) + np.maximum(down, up) / pred, c["stdev"] / pred])
        if np.isfinite(dev).any():
            reach = max(reach, np.nanmax(dev))
    reach = min(np.ceil(reach * 1.15 / 0.25) * 0.25, 1.0)
    return (1 - reach, 1 + reach)


def _wide_range(c):
    tot = c["total"][c["total"] > 0]
    return len(tot) > 0 and tot.max() / tot.min() > 50


def _concatenate(chans):
    """All channels as one: bins side by side, labelled 'channel' or 'channel bin'."""
    samples = sorted({s for c in chans for s in c["samples"]})
    ys, labels, bounds = [], [], []
    for c in chans:
        nb = len(c["total"])
        rows = [c["yields"][c["samples"].index(s)] if s in c["samples"] else np.zeros(nb) for s in samples]
        ys.append(np.array(rows).reshape(len(samples), nb))
        labels += [c["name"]] if nb == 1 else [f"{c['name']} {b + 1}" for b in range(nb)]
        bounds.append(nb)
    return {"name": "", "samples": samples, "channels": [c["name"] for c in chans], "yields": np.concatenate(ys, axis=1),
            "total": np.concatenate([c["total"] for c in chans]), "stdev": np.concatenate([c["stdev"] for c in chans]),
            "data": np.concatenate([c["data"] for c in chans]), "labels": labels, "bounds": np.cumsum(bounds)}


def _channel(ax, rax, c, order, colours, logy, ratio_range, first, summary):
    nb = len(c["total"])
    observable = not summary and c.get("edges") is not None  # drawn in the observable, not the bin index
    edges = c["edges"] if observable else np.arange(nb + 1, dtype=float)
    centres = (edges[:-1] + edges[1:]) / 2
    bottom = np.zeros(nb)
    for s in order:
        if s not in c["samples"]:
            continue
        y = c["yields"][c["samples"].index(s)]
        ax.stairs(bottom + y, edges, baseline=bottom.copy(), fill=True, color=colours[s], lw=0)
        bottom = bottom + y
    ax.stairs(c["total"], edges, color="black", lw=1.0)
    lo, hi = c["total"] - c["stdev"], c["total"] + c["stdev"]
    ax.stairs(hi, edges, baseline=lo, fill=True, **HATCH)
    down, up = poisson_interval(c["data"])
    ms = 5 if nb <= 40 else 3
    ax.errorbar(centres, c["data"], yerr=[down, up], fmt="o", color="black", ms=ms, lw=1.5, capsize=0, zorder=5)

    top = max(np.max(hi), np.nanmax(c["data"] + up, initial=0.0))  # blinded data are NaN
    if logy:
        positive = np.concatenate([c["yields"][c["yields"] > 0], c["data"][np.nan_to_num(c["data"]) > 0]])
        low = max(np.min(positive) * 0.5, top * 1e-6) if len(positive) else 0.1
        ax.set_yscale("log")
        ax.set_ylim(low, top * (top / low) ** 0.45)
    else:
        ax.set_ylim(0, top * 1.4)
    ax.set_xlim(edges[0], edges[-1])
    if c["name"]:
        ax.text(0.05, 0.95, _style.tex_escape(c["name"]), transform=ax.transAxes, ha="left", va="top",
                fontsize="large", fontweight="bold")
    if first:
        ax.set_ylabel("Events", loc="top")

    # Ratio: data / prediction, with the prediction's relative uncertainty as the band around 1.
    pred = np.where(c["total"] > 0, c["total"], np.nan)
    rel = c["stdev"] / pred
    rax.stairs(1 + rel, edges, baseline=1 - rel, fill=True, **HATCH)
    rax.axhline(1, color="black", lw=1.0)
    ratio = c["data"] / pred
    rax.errorbar(centres, ratio, yerr=[down / pred, up / pred], fmt="o", color="black", ms=ms, lw=1.5, capsize=0)
    rax.set_ylim(*ratio_range)
    if first:
        rax.set_ylabel("Data / Pred.", loc="center")
    if summary:
        # One label per bin when there are few, else one per channel under its bins.
        starts = np.concatenate([[0], c["bounds"][:-1]])
        if nb == len(c["bounds"]) or nb <= 12:
            ticks, names = centres, c["labels"]
        else:
            ticks, names = (starts + c["bounds"]) / 2, c["channels"]
        slant = max(len(s) for s in names) * len(names) > 30
        rax.set_xticks(ticks)
        rax.set_xticklabels([_style.tex_escape(s) for s in names], rotation=45 if slant else 0,
                            ha="right" if slant else "center", rotation_mode="anchor")
        for b in c["bounds"][:-1]:
            for a in (ax, rax):
                a.axvline(b, color="0.5", lw=0.8, ls=":")
    elif observable:
        rax.set_xlabel(_style.tex_escape(c["label"] or c["name"]), loc="right")
    else:
        rax.set_xticks(centres)
        rax.set_xticklabels([str(b + 1) for b in range(nb)] if nb <= 20 else [""] * nb)
        rax.set_xlabel("Bin", loc="right")
    for a in (ax, rax):
        a.tick_params(axis="x", which="minor", bottom=False, top=False)
    ax.tick_params(axis="y", which="minor", left=True, right=True)
    if not logy:
        ax.minorticks_on()
        ax.tick_params(axis="x", which="minor", bottom=False, top=False)
