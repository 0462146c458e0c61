"""Bin edges in each channel's observable for the yields plot: the `--binning FILE` that `hfcore yields` reads
(``{"SR": {"edges": [0, 50, 120], "label": "m_T [GeV]"}, "CR": [10, 20]}``), also written by
``hfcore xml2json --binning-output`` from the ROOT histograms, since pyhf's JSON keeps no edges."""

import numpy as np

from ._io import Node, PlotInputError, load


def read(binning):
    """{channel: (edges array, label or None)} from a path, JSON text or dict; errors name the file and path."""
    doc, source = load(binning)
    root = Node(doc, source)
    if not isinstance(doc, dict):
        root._fail('expected an object {channel: {"edges": [...], "label": "..."}}')
    out = {}
    for name in doc:
        entry = root[name]
        label = None
        if isinstance(entry.value, dict):
            if entry.has("label"):
                label = entry["label"].str()
            entry = entry["edges"]
        edges = np.array([e.finite() for e in entry.items(min_length=2)])
        if not np.all(np.diff(edges) > 0):
            entry._fail("edges must increase strictly")
        out[name] = (edges, label)
    return out, source


def apply(channels, binning):
    """Sets `edges` and `label` of the channels the binning names (the plot's channel dicts, in place)."""
    table, source = read(binning)
    known = {c["name"]: c for c in channels}
    for name, (edges, label) in table.items():
        if name not in known:
            raise PlotInputError(f"{source}: {name}: the yields have no channel '{name}' "
                                 f"(channels: {', '.join(known)})")
        c = known[name]
        nb = len(c["total"])
        if len(edges) != nb + 1:
            raise PlotInputError(f"{source}: {name}: {len(edges)} edges for the {nb} bins of channel '{name}' "
                                 f"(needs {nb + 1})")
        c["edges"] = edges
        if label is not None:
            c["label"] = label
    return channels
