"""hfcore.writexml against pyhf.writexml: the same XML files and the same histograms, and workspaces that read
back (hfcore.readxml) as pyhf's round trip reads back."""

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import uproot

import hfcore
import hfcore.readxml
import hfcore.writexml
import pyhf
import pyhf.readxml
import pyhf.writexml
from conftest import ROOT, SHARED, load

PYHF_PEERS = SHARED / "peers" / "pyhf-0.7.6"
pytestmark = pytest.mark.skipif(not PYHF_PEERS.is_dir(), reason=f"pyhf's tests not found at {PYHF_PEERS}")


def spec_from_xml():
    base = PYHF_PEERS / "validation" / "xmlimport_input"
    return pyhf.readxml.parse(base / "config" / "example.xml", base)


SPECS = {
    "xmlimport_input": spec_from_xml,
    "example": lambda: load(ROOT / "examples" / "workspaces" / "example.json"),
    "integer_data": lambda: load(PYHF_PEERS / "tests" / "test_export" / "workspace_integer_data.json"),
    "shapesys_staterror": lambda: pyhf.readxml.parse(
        PYHF_PEERS / "validation" / "xmlimport_input3" / "config" / "examples" / "example_ShapeSys.xml",
        PYHF_PEERS / "validation" / "xmlimport_input3"),
}


def write(module, spec, out):
    (out / "config").mkdir(parents=True)
    (out / "data").mkdir()
    top = module.writexml.writexml(spec, out / "config", out / "data", "FitConfig")
    (out / "FitConfig.xml").write_bytes(top)
    return top


def same_xml(ours, theirs):
    """The same DOCTYPE line and the same elements, attributes and texts (the indentation aside: pyhf indents
    closing tags one level too deep)."""
    head_o, _, body_o = ours.partition("\n")
    head_t, _, body_t = theirs.partition("\n")
    assert head_o == head_t
    assert ET.canonicalize(body_o, strip_text=True) == ET.canonicalize(body_t, strip_text=True)


def histograms(path):
    with uproot.open(path) as f:
        return {key: (f[key].values().tolist(), f[key].axis().edges().tolist()) for key in f.keys(cycle=False)}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_writexml_equals_pyhf(name, tmp_path):
    spec = SPECS[name]()
    theirs, ours = tmp_path / "pyhf", tmp_path / "hfcore"
    top_p = write(pyhf, spec, theirs).decode().replace(str(theirs), "OUT")
    top_h = write(hfcore, spec, ours).decode().replace(str(ours), "OUT")
    same_xml(top_h, top_p)
    channel_files = sorted(p.name for p in (theirs / "config").iterdir())
    assert sorted(p.name for p in (ours / "config").iterdir()) == channel_files
    for fname in channel_files:
        text_p = (theirs / "config" / fname).read_text().replace(str(theirs), "OUT")
        text_h = (ours / "config" / fname).read_text().replace(str(ours), "OUT")
        same_xml(text_h, text_p)
    assert histograms(ours / "data" / "data.root") == histograms(theirs / "data" / "data.root")

    # Read back: hfcore's files by hfcore as pyhf's files by pyhf.
    back_p = pyhf.readxml.parse(theirs / "FitConfig.xml", tmp_path)
    back_h = hfcore.readxml.parse(ours / "FitConfig.xml", tmp_path)
    assert json.dumps(back_h, sort_keys=True) == json.dumps(back_p, sort_keys=True)


def test_luminosity_other_than_one_reads_back(tmp_path):
    # LumiRelErr is relative: a luminosity of 2 with sigma 0.1 is written as 0.05 (pyhf writes 0.1).
    spec = SPECS["example"]()
    spec["measurements"][0]["config"]["parameters"].append(
        {"name": "lumi", "auxdata": [2.0], "sigmas": [0.1], "bounds": [[1.5, 2.5]], "inits": [2.0]})
    meas = hfcore.writexml.build_measurement(spec["measurements"][0], {})
    assert meas.get("Lumi") == "2.0" and meas.get("LumiRelErr") == "0.05"


def test_builders_like_pyhf():
    spec = {"measurements": [{"config": {"parameters": [{"name": "mu", "bounds": [[-5, 5]]}]}}]}
    factor = hfcore.writexml.build_modifier(spec, {"name": "mu", "type": "normfactor", "data": None}, "c", "s", None)
    assert dict(factor.attrib) == {"Name": "mu", "Val": "1", "Low": "-5", "High": "5"}
    assert hfcore.writexml.build_modifier(spec, {"name": "lumi", "type": "lumi", "data": None}, "c", "s", None) is None
    assert hfcore.writexml.build_modifier(spec, {"name": "x", "type": "custom"}, "c", "s", None) is None

    measurement = {"name": "m", "config": {"poi": "mu", "parameters": [
        {"name": "lumi", "auxdata": [1.0], "sigmas": [0.029], "fixed": True},
        {"name": "syst1", "fixed": True}, {"name": "syst3", "fixed": True}, {"name": "free"}]}}
    types = {"syst1": "normsys", "syst3": "shapesys"}
    ours = hfcore.writexml.build_measurement(measurement, types)
    theirs = pyhf.writexml.build_measurement(measurement, types)
    assert ET.tostring(ours) == ET.tostring(theirs)
    assert ours.find("ParamSetting").text == "Lumi alpha_syst1 gamma_syst3"


def test_zero_nominal_gives_zero_relative_uncertainty(tmp_path):
    hfcore.writexml._ROOT_DATA_FILE = {}
    try:
        hfcore.writexml.build_modifier({}, {"name": "st", "type": "staterror", "data": [1.0, 2.0]}, "c", "s", [0, 4])
        hfcore.writexml.build_modifier({}, {"name": "sh", "type": "shapesys", "data": [1, 2]}, "c", "s", [2, 0])
        with pytest.raises(KeyError, match="Duplicate"):
            hfcore.writexml._export_root_histogram("histc_s_st", [1.0])
        written = {k: np.asarray(v.values()).tolist() for k, v in hfcore.writexml._ROOT_DATA_FILE.items()}
    finally:
        hfcore.writexml._ROOT_DATA_FILE = None
    assert written == {"histc_s_st": [0.0, 0.5], "histc_s_sh": [0.5, 0.0]}
