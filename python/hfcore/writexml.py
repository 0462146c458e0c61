"""``hfcore.writexml``: a pyhf JSON workspace to HistFactory XML + one ROOT file of histograms (pyhf 0.7's
writexml, used by ``hfcore json2xml``).

:func:`writexml` writes one XML file per channel into ``specdir``, every histogram into
``data_rootdir/data.root`` (with uproot: ``pip install "hfcore[xml]"``) and returns the top-level XML. The
``build_*`` functions make one element each; while :func:`writexml` runs, the histograms they make go to the
open ROOT file ``_ROOT_DATA_FILE`` (a module attribute, as in pyhf, so that tests can replace it).
"""

import logging
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from .readxml import _uproot

_ROOT_DATA_FILE = None

log = logging.getLogger(__name__)

__all__ = [
    "build_channel",
    "build_data",
    "build_measurement",
    "build_modifier",
    "build_sample",
    "indent",
    "writexml",
]

# ROOT's document type of HistFactory XML, written beside the channel files' folder (their DOCTYPE names it).
_DTD = Path(__file__).parent / "data" / "HistFactorySchema.dtd"

# The prefix ROOT gives each modifier type's parameters (in ParamSetting).
_ROOT_PREFIX = {"normsys": "alpha_", "histosys": "alpha_", "shapesys": "gamma_", "staterror": "gamma_"}

_XML_TAG = {
    "histosys": "HistoSys",
    "staterror": "StatError",
    "normsys": "OverallSys",
    "shapesys": "ShapeSys",
    "normfactor": "NormFactor",
    "shapefactor": "ShapeFactor",
}


def __dir__():
    return __all__


def _make_hist_name(channel, sample, modifier="", prefix="hist", suffix=""):
    return prefix + "_".join(part for part in (channel, sample, modifier) if part) + suffix


def _export_root_histogram(hist_name, data):
    """Put ``data`` as a histogram of unit-width bins from 0 into the ROOT file being written."""
    if hist_name in _ROOT_DATA_FILE:
        raise KeyError(f"Duplicate key {hist_name} being written.")
    _ROOT_DATA_FILE[hist_name] = _uproot().to_writable((np.asarray(data), np.arange(len(data) + 1)))


def _relative(absolute, nominal):
    """absolute / nominal per bin, 0 where the nominal is 0 (HistFactory stores relative uncertainties)."""
    absolute = np.asarray(absolute, dtype=float)
    nominal = np.asarray(nominal, dtype=float)
    return np.divide(absolute, nominal, out=np.zeros_like(absolute), where=nominal != 0).tolist()


def indent(elem, level=0):
    """Indent ``elem``'s subtree in place (two spaces a level), so that the written XML reads well."""
    ET.indent(elem, space="  ", level=level)


def build_measurement(measurementspec, modifiertypes):
    """The ``<Measurement>`` of a measurement of the workspace (defs.json#/definitions/measurement):
    luminosity, POI and the fixed parameters, named as ROOT names them (``modifiertypes``: modifier name to
    type, for the alpha_/gamma_ prefixes)."""
    config = measurementspec["config"]
    lumi, sigma = 1.0, 0.0
    fixed = []
    for parameter in config["parameters"]:
        name = parameter["name"]
        if name == "lumi":
            lumi, sigma = parameter["auxdata"][0], parameter["sigmas"][0]
        if parameter.get("fixed", False):
            fixed.append("Lumi" if name == "lumi" else _ROOT_PREFIX.get(modifiertypes.get(name), "") + name)

    # LumiRelErr is relative; readxml multiplies it by Lumi again.
    meas = ET.Element(
        "Measurement",
        Name=measurementspec["name"],
        Lumi=str(lumi),
        LumiRelErr=str(sigma / lumi if lumi else sigma),
        ExportOnly=str(True),
    )
    ET.SubElement(meas, "POI").text = config["poi"]
    if fixed:
        ET.SubElement(meas, "ParamSetting", Const="True").text = " ".join(fixed)
    return meas


def _normfactor_attributes(spec, name):
    # HistFactory configures a NormFactor where it is used; pyhf configures parameters per measurement: the
    # first measurement's configuration is written (its Const goes to the measurements' ParamSetting).
    val, low, high = 1, 0, 10
    for parameter in spec["measurements"][0]["config"]["parameters"]:
        if parameter["name"] == name:
            val = parameter.get("inits", [val])[0]
            low, high = parameter.get("bounds", [[low, high]])[0]
    return {"Val": str(val), "Low": str(low), "High": str(high)}


def build_modifier(spec, modifierspec, channelname, samplename, sampledata):
    """The XML element of one modifier of a sample (None for lumi, which is the sample's NormalizeByTheory, and
    for a type HistFactory XML lacks); histograms it needs go to the ROOT file."""
    name, kind = modifierspec["name"], modifierspec["type"]
    if name == "lumi":
        return None
    if kind not in _XML_TAG:
        log.warning(f"Skipping modifier {name}({kind}) for now")
        return None

    attrs = {"Name": name}
    if kind == "histosys":
        attrs["HistoNameLow"] = _make_hist_name(channelname, samplename, name, suffix="Low")
        attrs["HistoNameHigh"] = _make_hist_name(channelname, samplename, name, suffix="High")
        _export_root_histogram(attrs["HistoNameLow"], modifierspec["data"]["lo_data"])
        _export_root_histogram(attrs["HistoNameHigh"], modifierspec["data"]["hi_data"])
    elif kind == "normsys":
        attrs["High"] = str(modifierspec["data"]["hi"])
        attrs["Low"] = str(modifierspec["data"]["lo"])
    elif kind == "normfactor":
        attrs.update(_normfactor_attributes(spec, name))
    elif kind == "staterror":
        # HistFactory's StatError has no name: one per channel.
        del attrs["Name"]
        attrs["Activate"] = "True"
        attrs["HistoName"] = _make_hist_name(channelname, samplename, name)
        _export_root_histogram(attrs["HistoName"], _relative(modifierspec["data"], sampledata))
    elif kind == "shapesys":
        attrs["ConstraintType"] = "Poisson"
        attrs["HistoName"] = _make_hist_name(channelname, samplename, name)
        _export_root_histogram(attrs["HistoName"], _relative(modifierspec["data"], sampledata))
    return ET.Element(_XML_TAG[kind], **attrs)


def build_sample(spec, samplespec, channelname):
    """The ``<Sample>`` of a sample with its modifiers; its nominal histogram goes to the ROOT file."""
    histname = _make_hist_name(channelname, samplespec["name"])
    sample = ET.Element(
        "Sample",
        Name=samplespec["name"],
        HistoName=histname,
        InputFile=_ROOT_DATA_FILE.file_path,
        NormalizeByTheory="False",
    )
    for modifierspec in samplespec["modifiers"]:
        if modifierspec["type"] == "lumi":
            sample.set("NormalizeByTheory", "True")
        modifier = build_modifier(spec, modifierspec, channelname, samplespec["name"], samplespec["data"])
        if modifier is not None:
            sample.append(modifier)
    _export_root_histogram(histname, samplespec["data"])
    return sample


def build_data(obsspec, channelname):
    """The ``<Data>`` of a channel, from the observations (``obsspec``); its histogram goes to the ROOT file."""
    histname = _make_hist_name(channelname, "data")
    observation = next((obs for obs in obsspec if obs["name"] == channelname), None)
    if observation is None:
        raise KeyError(f"observations: no entry for channel {channelname!r}")
    _export_root_histogram(histname, observation["data"])
    return ET.Element("Data", HistoName=histname, InputFile=_ROOT_DATA_FILE.file_path)


def build_channel(spec, channelspec, obsspec):
    """The ``<Channel>`` of a channel: its data (when ``obsspec`` is given) and samples."""
    channel = ET.Element("Channel", Name=channelspec["name"], InputFile=_ROOT_DATA_FILE.file_path)
    if obsspec:
        channel.append(build_data(obsspec, channelspec["name"]))
    for samplespec in channelspec["samples"]:
        channel.append(build_sample(spec, samplespec, channelspec["name"]))
    return channel


def _modifier_types(channels):
    types = {}
    for channel in channels:
        for sample in channel["samples"]:
            for modifier in sample.get("modifiers", []):
                types[modifier["name"]] = modifier["type"]
    return types


def writexml(spec, specdir, data_rootdir, resultprefix):
    """Write the workspace ``spec`` as HistFactory XML: ``specdir/<resultprefix>_<channel>.xml`` per channel,
    ``data_rootdir/data.root`` with the histograms, ``HistFactorySchema.dtd`` in ``specdir``'s parent; returns
    the top-level XML (bytes), whose ``<Input>`` elements name the channel files."""
    global _ROOT_DATA_FILE
    specdir = Path(specdir)
    shutil.copyfile(_DTD, specdir.parent / "HistFactorySchema.dtd")
    combination = ET.Element("Combination", OutputFilePrefix=str(specdir / resultprefix))

    with _uproot().recreate(Path(data_rootdir) / "data.root") as _ROOT_DATA_FILE:
        for channelspec in spec["channels"]:
            channelfile = str(specdir / f"{resultprefix}_{channelspec['name']}.xml")
            channel = build_channel(spec, channelspec, spec.get("observations"))
            indent(channel)
            with open(channelfile, "w", encoding="utf-8") as out:
                out.write("<!DOCTYPE Channel SYSTEM '../HistFactorySchema.dtd'>\n\n")
                out.write(ET.tostring(channel, encoding="unicode") + "\n")
            ET.SubElement(combination, "Input").text = channelfile
    _ROOT_DATA_FILE = None

    types = _modifier_types(spec["channels"])
    for measurement in spec["measurements"]:
        combination.append(build_measurement(measurement, types))
    indent(combination)
    doctype = b"<!DOCTYPE Combination  SYSTEM 'HistFactorySchema.dtd'>\n\n"
    return doctype + ET.tostring(combination, encoding="utf-8") + b"\n"
