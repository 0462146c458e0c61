"""The bin edges of HistFactory XML channels (readxml.binning): pyhf's JSON has none, but every channel's data
histogram has its axis, and hfcore's yields and plots can draw a channel in its observable."""

import xml.etree.ElementTree as ET

from . import readxml


def channel_binning(configfile, resolver):
    """{channel name: {"edges": [...], "label": title}} (label only when the axis has a title), from the ``<Data>``
    histogram of each channel file the top-level XML lists as ``<Input>``."""
    toplvl = ET.parse(configfile)
    out = {}
    for inp in toplvl.findall("Input"):
        if not inp.text or not inp.text.strip():
            continue
        channel = ET.parse(resolver(inp.text.strip())).getroot()
        name = channel.attrib["Name"]
        data = channel.find("Data")
        if data is None:
            raise RuntimeError(f"Channel {name} is missing data. See issue #1911.")
        hist, fullpath, inside = readxml.find_root_histogram(
            resolver,
            data.attrib.get("InputFile", channel.attrib.get("InputFile", "")),
            data.attrib.get("HistoPath", channel.attrib.get("HistoPath", "")),
            data.attrib["HistoName"],
        )
        axis = hist.axis()
        entry = {"edges": [float(e) for e in axis.edges()]}
        title = _axis_title(axis)
        if title:
            entry["label"] = title
        out[name] = entry
    return out


def _axis_title(axis):
    try:
        return str(axis.member("fTitle"))
    except (KeyError, AttributeError):
        return ""
