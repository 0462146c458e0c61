"""``hfcore.readxml``: HistFactory XML + ROOT histograms to a pyhf JSON workspace (pyhf 0.7's readxml).

The top-level XML (a ``<Combination>``) names one XML file per channel (``<Input>``) and the measurements; each
channel file names its data and samples, whose histograms live in ROOT files. The result is the dict that
``pyhf xml2json`` writes: ``measurements``, ``channels``, ``observations``, ``version``, in pyhf's order.

The ROOT files are read with uproot (``pip install "hfcore[xml]"``), imported when a histogram is first read, so
that ``import hfcore`` works without it. Opened files stay in a cache until :func:`clear_filecache`.
"""

from __future__ import annotations

import importlib
import logging
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from . import exceptions

log = logging.getLogger(__name__)

__all__ = [
    "binning",
    "clear_filecache",
    "dedupe_parameters",
    "extract_error",
    "find_root_histogram",
    "import_root_histogram",
    "parse",
    "process_channel",
    "process_data",
    "process_measurements",
    "process_sample",
]

# The version of pyhf's workspace schema that the result follows.
_WORKSPACE_SCHEMA_VERSION = "1.0.0"

# Opened ROOT files by resolved path: (file, its key names without cycles).
_FILECACHE = {}


def __dir__():
    return __all__


def __getattr__(name):
    # ``readxml.uproot``, as in pyhf (tests patch ``readxml.uproot.open``), without importing uproot at import.
    if name == "uproot":
        return _uproot()
    raise AttributeError(f"module 'hfcore.readxml' has no attribute {name!r}")


def _uproot():
    try:
        return importlib.import_module("uproot")
    except ImportError as e:
        raise ImportError(
            "hfcore.readxml reads ROOT histograms with uproot, which is not installed: "
            'pip install "hfcore[xml]" (or pip install uproot)'
        ) from e


def clear_filecache():
    """Forget (and close) the ROOT files opened so far."""
    global _FILECACHE
    for handle, _ in _FILECACHE.values():
        close = getattr(handle, "close", None)
        if callable(close):
            close()
    _FILECACHE = {}


def resolver_factory(rootdir, mounts):
    """A function from a file name written in the XML to the path to read: names under a mount point (the second
    path of a pair) are moved to its local folder (the first), then relative names are taken from ``rootdir``."""
    rootdir = Path(rootdir)
    mounts = [(Path(local), Path(mounted)) for local, mounted in (mounts or [])]

    def resolve(filename):
        path = Path(filename)
        for local, mounted in mounts:
            # parents excludes the path itself, which may be the mount point.
            if path == mounted or mounted in path.parents:
                path = local / path.relative_to(mounted)
                break
        return rootdir / path

    return resolve


def extract_error(hist):
    """The bin uncertainties of a histogram: sqrt of the sums of squared weights when the histogram has them,
    else (filled without weights) the Poisson sqrt of the contents."""
    # In the histogram's own precision (float32 for a TH1F filled without weights), as pyhf gives them.
    variances = hist.variances() if hist.weighted else hist.to_numpy()[0]
    return np.sqrt(variances).tolist()


def import_root_histogram(resolver, filename, path, name, filecache=None):
    """(bin contents, bin uncertainties) of histogram ``name`` in the ROOT file ``filename`` (resolved by
    ``resolver``), looked up at the top level, then in folder ``path``; KeyError naming both when absent."""
    hist, fullpath, inside = find_root_histogram(resolver, filename, path, name, filecache)
    values = hist.to_numpy()[0]
    if values.ndim != 1:
        # pyhf reads it as nested lists and fails later, without naming the histogram.
        raise ValueError(
            f"{fullpath}: histogram {inside.lstrip('/')} has {values.ndim} dimensions; the histograms of "
            "HistFactory's samples, data and variations are 1-D"
        )
    return values.tolist(), extract_error(hist)


def find_root_histogram(resolver, filename, path, name, filecache=None):
    """(uproot histogram, the file's path, its name in the folder), found as import_root_histogram says."""
    cache = filecache or _FILECACHE
    folder = (path or "").strip("/")
    fullpath = str(resolver(filename))
    if fullpath not in cache:
        handle = _uproot().open(fullpath)
        cache[fullpath] = (handle, set(handle.keys(cycle=False)))
    handle, keys = cache[fullpath]

    inside = f"{folder}/{name}"
    if name in keys:
        hist = handle[name]
    elif inside in keys:
        hist = handle[inside]
    else:
        raise KeyError(f"Both {name} and {inside} were tried and not found in {fullpath}")
    return hist, fullpath, inside


def _lumi_modifier():
    return {"name": "lumi", "type": "lumi", "data": None}


def _normsys(tag, **_):
    return {"name": tag.attrib["Name"], "type": "normsys",
            "data": {"lo": float(tag.attrib["Low"]), "hi": float(tag.attrib["High"])}}


def _histosys(tag, resolver, inputfile, **_):
    def variation(side):
        values, _ = import_root_histogram(
            resolver, tag.attrib.get(f"HistoFile{side}", inputfile), tag.attrib.get(f"HistoPath{side}", ""),
            tag.attrib[f"HistoName{side}"],
        )
        return values

    return {"name": tag.attrib["Name"], "type": "histosys",
            "data": {"lo_data": variation("Low"), "hi_data": variation("High")}}


def _staterror(tag, resolver, inputfile, nominal, errors, channel_name, **_):
    if not tag.attrib.get("HistoName", ""):
        data = errors
    else:
        # A histogram of relative uncertainties: pyhf's staterror data are absolute.
        relative, _ = import_root_histogram(
            resolver, tag.attrib.get("HistoFile", inputfile), tag.attrib.get("HistoPath", ""), tag.attrib["HistoName"]
        )
        data = [r * n for r, n in zip(relative, nominal)]
    if not data:
        raise RuntimeError(f"cannot determine stat error (channel {channel_name}).")
    return {"name": f"staterror_{channel_name}", "type": "staterror", "data": data}


def _shapesys(tag, resolver, inputfile, nominal, **_):
    if tag.attrib.get("ConstraintType", "Poisson") != "Poisson":
        # pyhf's shapesys has a Poisson constraint only.
        log.warning("shapesys modifier %s has a non-poisson constraint", tag.attrib["Name"])
    relative, _ = import_root_histogram(
        resolver, tag.attrib.get("InputFile", inputfile), tag.attrib.get("HistoPath", ""), tag.attrib["HistoName"]
    )
    return {"name": tag.attrib["Name"], "type": "shapesys", "data": [r * n for r, n in zip(relative, nominal)]}


def _factor(kind):
    def build(tag, **_):
        return {"name": tag.attrib["Name"], "type": kind, "data": None}

    return build


_MODIFIER_TAGS = {
    "OverallSys": _normsys,
    "HistoSys": _histosys,
    "ShapeSys": _shapesys,
    "NormFactor": _factor("normfactor"),
    "ShapeFactor": _factor("shapefactor"),
}


def _normfactor_config(tag):
    config = {
        "name": tag.attrib["Name"],
        "bounds": [[float(tag.attrib["Low"]), float(tag.attrib["High"])]],
        "inits": [float(tag.attrib["Val"])],
    }
    if tag.attrib.get("Const"):
        config["fixed"] = tag.attrib["Const"] == "True"
    return config


def process_sample(sample, resolver, inputfile, histopath, channel_name, track_progress=False):
    """A ``<Sample>`` as pyhf's sample dict (name, data, modifiers) plus ``parameter_configs``: the bounds and
    initial values its NormFactors declare. ``track_progress`` is accepted for pyhf's signature."""
    inputfile = sample.attrib.get("InputFile", inputfile)
    histopath = sample.attrib.get("HistoPath", histopath)
    nominal, errors = import_root_histogram(resolver, inputfile, histopath, sample.attrib["HistoName"])

    modifiers = []
    configs = []
    if sample.attrib.get("NormalizeByTheory", "False") == "True":
        modifiers.append(_lumi_modifier())
    context = dict(resolver=resolver, inputfile=inputfile, nominal=nominal, errors=errors, channel_name=channel_name)
    for tag in sample:
        if tag.tag == "StatError" and tag.attrib.get("Activate") == "True":
            modifiers.append(_staterror(tag, **context))
        elif tag.tag in _MODIFIER_TAGS:
            modifiers.append(_MODIFIER_TAGS[tag.tag](tag, **context))
            if tag.tag == "NormFactor":
                configs.append(_normfactor_config(tag))
        else:
            log.warning("not considering modifier tag %s", tag)
    return {"name": sample.attrib["Name"], "data": nominal, "modifiers": modifiers, "parameter_configs": configs}


def process_data(sample, resolver, inputfile, histopath):
    """The observed bin counts of a channel's ``<Data>``."""
    inputfile = sample.attrib.get("InputFile", inputfile)
    histopath = sample.attrib.get("HistoPath", histopath)
    histoname = sample.attrib["HistoName"]
    if inputfile == "" or histoname == "":
        raise NotImplementedError(
            "Conversion of workspaces without data is currently not supported.\n"
            "See https://github.com/scikit-hep/pyhf/issues/566"
        )
    data, _ = import_root_histogram(resolver, inputfile, histopath, histoname)
    return data


def process_channel(channelxml, resolver, track_progress=False):
    """A channel file (an ElementTree or its root ``<Channel>``) as (name, observed data, samples, the
    NormFactor parameter configurations of its samples)."""
    channel = channelxml.getroot() if hasattr(channelxml, "getroot") else channelxml
    inputfile = channel.attrib.get("InputFile", "")
    histopath = channel.attrib.get("HistoPath", "")
    name = channel.attrib["Name"]

    data = channel.find("Data")
    if data is None:
        raise RuntimeError(f"Channel {name} is missing data. See issue #1911.")
    observed = process_data(data, resolver, inputfile, histopath)

    samples, configs = [], []
    for sample in channel.findall("Sample"):
        result = process_sample(sample, resolver, inputfile, histopath, name, track_progress)
        configs.extend(result.pop("parameter_configs"))
        samples.append(result)
    return name, observed, samples, configs


_GAMMA = re.compile(r"^gamma_(.+)_(\d+)$")


def _parameter_name(rootname):
    """pyhf's name of a parameter that ROOT calls ``rootname`` (alpha_X -> X, Lumi -> lumi); ValueError for a
    bin of a shape parameter set (gamma_X_N), which pyhf cannot configure on its own."""
    if rootname.startswith("gamma_"):
        if not _GAMMA.match(rootname):
            raise ValueError(f"confusing rootname {rootname}. Please report as a bug.")
        raise ValueError(
            f'pyhf does not support setting non-scalar parameters ("gammas")  constant, such as for {rootname}.'
        )
    if rootname.startswith("alpha_"):
        return rootname[len("alpha_"):]
    return "lumi" if rootname == "Lumi" else rootname


def _lumi_config(measurement):
    lumi = float(measurement.attrib["Lumi"])
    sigma = lumi * float(measurement.attrib["LumiRelErr"])
    return {"name": "lumi", "auxdata": [lumi], "bounds": [[lumi - 5.0 * sigma, lumi + 5.0 * sigma]],
            "inits": [lumi], "sigmas": [sigma]}


def process_measurements(toplvl, other_parameter_configs=None):
    """The ``<Measurement>`` elements of the top-level XML as pyhf measurements (defs.json#/definitions/
    measurement): the POI, the luminosity parameter, the parameter configurations of the channels
    (``other_parameter_configs``) with each ``<ParamSetting>`` applied over them."""
    results = []
    for measurement in toplvl.findall("Measurement"):
        name = measurement.attrib["Name"]
        poi = measurement.find("POI")
        if poi is None:
            raise RuntimeError(f"Measurement {name} is missing POI specification")
        lumi = _lumi_config(measurement)
        # Per measurement: a copy of each configuration, so one measurement's settings stay its own.
        configs = {c["name"]: dict(c) for c in (other_parameter_configs or [])}
        for setting in measurement.findall("ParamSetting"):
            common = {}
            if setting.attrib.get("Const"):
                common["fixed"] = setting.attrib["Const"] == "True"
            if setting.attrib.get("Val"):
                common["inits"] = [float(setting.attrib["Val"])]
            for rootname in (setting.text or "").split():
                pname = _parameter_name(rootname)
                if pname == "lumi":
                    lumi.update(common)
                    continue
                # Set parameters move to the end, in the order of the settings (as pyhf lists them).
                config = configs.pop(pname, {"name": pname})
                config.update(common)
                configs[pname] = config
        results.append({
            "name": name,
            "config": {"poi": poi.text.strip() if poi.text else "", "parameters": [lumi, *configs.values()]},
        })
    return results


def dedupe_parameters(parameters):
    """The parameter configurations one per name; RuntimeError naming a parameter configured differently by two
    channels."""
    by_name = {}
    for config in parameters:
        first = by_name.setdefault(config["name"], config)
        if config != first:
            for other in parameters:
                if other["name"] == config["name"]:
                    log.warning(other)
            raise RuntimeError(
                f"cannot import workspace due to incompatible parameter configurations for {config['name']}."
            )
    return list(by_name.values())


def _validate(spec, validation_as_error):
    # hfcore.schema (pyhf's schema module) when present, else the engine's check of the same schema.
    try:
        from . import schema
    except ImportError:
        schema = None
    try:
        if schema is not None:
            schema.validate(spec, "workspace.json")
        else:
            _engine_schema_check(spec)
    except exceptions.InvalidSpecification as e:
        if validation_as_error:
            raise
        log.warning(e)


def _engine_schema_check(spec):
    from . import _core

    try:
        _core.Workspace(spec, "<xml2json>")
    except exceptions.InvalidModel:
        pass  # valid for the schema; the semantic rules are checked when a model is built, as in pyhf


def binning(configfile, rootdir, mounts=None):
    """Each channel's bin edges and axis title from its data histogram, ``{channel: {"edges", "label"}}``."""
    from ._xml_binning import channel_binning

    return channel_binning(configfile, resolver_factory(rootdir, mounts))


def parse(configfile, rootdir, mounts=None, track_progress=False, validation_as_error=True):
    """The pyhf JSON workspace of the HistFactory XML ``configfile`` (a path or a file object), whose relative
    file names are taken from ``rootdir``; ``mounts``: (local folder, folder named in the XML) pairs.

    The result is checked against pyhf's workspace schema: InvalidSpecification, or a logged warning when
    ``validation_as_error`` is False. ``track_progress`` draws a bar over the channels.
    """
    from .progress import reporting

    toplvl = ET.parse(configfile)
    resolver = resolver_factory(rootdir, mounts)
    inputs = [x.text.strip() for x in toplvl.findall("Input") if x.text and x.text.strip()]

    channels, observations, configs = [], [], []
    with reporting(bool(track_progress), "xml2json") as report:
        for done, inp in enumerate(inputs):
            if report is not None:
                report(done, len(inputs), f"channel {inp}")
            name, data, samples, channel_configs = process_channel(ET.parse(resolver(inp)), resolver, track_progress)
            channels.append({"name": name, "samples": samples})
            observations.append({"name": name, "data": data})
            configs.extend(channel_configs)
        if report is not None:
            report(len(inputs), len(inputs), "done")

    result = {
        "measurements": process_measurements(toplvl, other_parameter_configs=dedupe_parameters(configs)),
        "channels": channels,
        "observations": observations,
        "version": _WORKSPACE_SCHEMA_VERSION,
    }
    _validate(result, validation_as_error)
    return result
