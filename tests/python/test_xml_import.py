"""hfcore.readxml against pyhf.readxml: the workspace of every HistFactory XML configuration in pyhf 0.7.6's
validation/ and tests/ folders (../shared/peers/pyhf-0.7.6) is pyhf's, to the last digit (the JSON texts are
compared, so 1 and 1.0 differ), and configurations pyhf refuses are refused with pyhf's error."""

import json
import logging
import pathlib
import sys
import xml.etree.ElementTree as ET

import pytest

import hfcore
import hfcore.readxml
import pyhf
import pyhf.readxml
from conftest import SHARED

PYHF_PEERS = SHARED / "peers" / "pyhf-0.7.6"
pytestmark = pytest.mark.skipif(not PYHF_PEERS.is_dir(), reason=f"pyhf's tests not found at {PYHF_PEERS}")

# The configurations whose XML names its files with absolute paths: folder -> the paths the XML uses.
MOUNTED = {"tests/test_scripts/xmlimport_absolutePaths": ["/absolute/path/to", "/another/absolute/path/to"]}
# Configurations whose ROOT files pyhf's tests replace by a mock (they have none): read with a fake histogram.
MOCKED = "tests/test_import/"
# Where hfcore's error is clearer than pyhf's: config -> (pyhf's exception, hfcore's, a part of hfcore's message).
CLEARER = {
    "validation/xmlimport_input/config/examples/example_ShapeSys2D.xml":
        ("TypeError", "ValueError", "ShapeSys2D.root: histogram data has 2 dimensions"),
}


def top_level_configs():
    if not PYHF_PEERS.is_dir():
        return []
    found = []
    for folder in ("validation", "tests"):
        for xml in sorted((PYHF_PEERS / folder).rglob("*.xml")):
            if ET.parse(xml).getroot().tag == "Combination":
                found.append(str(xml.relative_to(PYHF_PEERS)))
    return found


CONFIGS = top_level_configs()


def test_every_configuration_is_found():
    # 16 in validation/, 4 in tests/ (pyhf 0.7.6): a changed layout must not pass by finding none.
    assert len(CONFIGS) == 20


def outcome(module, config):
    """(JSON text of the workspace, None) or (None, (exception type name, message)) of module.readxml.parse."""
    path = PYHF_PEERS / config
    # The files are named relative to the folder that holds config/.
    base = next(parent.parent for parent in path.parents if parent.name == "config")
    key = str(base.relative_to(PYHF_PEERS))
    mounts = [(base, pathlib.Path(mounted)) for mounted in MOUNTED.get(key, [])]
    module.readxml.clear_filecache()
    try:
        spec = module.readxml.parse(path, base, mounts=mounts)
    except Exception as e:  # compared with pyhf's below
        return None, (type(e).__name__, str(e))
    return json.dumps(spec, sort_keys=True), None


@pytest.mark.parametrize("config", CONFIGS)
def test_parse_equals_pyhf(config, monkeypatch):
    if config.startswith(MOCKED):
        for module in (pyhf.readxml, hfcore.readxml):
            monkeypatch.setattr(module, "import_root_histogram", lambda *args, **kwargs: ([0.0], [1.0]))
    expected, expected_error = outcome(pyhf, config)
    got, error = outcome(hfcore, config)
    if config in CLEARER:
        theirs, ours, message = CLEARER[config]
        assert expected_error[0] == theirs and error[0] == ours and message in error[1]
        return
    assert error == expected_error
    assert got == expected
    if not config.startswith(MOCKED):
        assert expected is not None, expected_error  # a real workspace, not only the same error


def test_parsed_workspaces_are_usable():
    # Not only equal dicts: at least one of each kind of configuration gives a model with pyhf's numbers.
    base = PYHF_PEERS / "validation" / "xmlimport_input"
    spec = hfcore.readxml.parse(base / "config" / "example.xml", base)
    ws_h, ws_p = hfcore.Workspace(spec), pyhf.Workspace(spec)
    m_h, m_p = ws_h.model(), ws_p.model()
    d_h, d_p = ws_h.data(m_h), ws_p.data(m_p)
    init = m_p.config.suggested_init()
    assert float(m_h.logpdf(init, d_h)[0]) == pytest.approx(float(m_p.logpdf(init, d_p)[0]), rel=1e-12)


def test_histogram_and_cache():
    base = PYHF_PEERS / "validation" / "xmlimport_input" / "data"
    hfcore.readxml.clear_filecache()
    values, errors = hfcore.readxml.import_root_histogram(lambda name: base / name, "example.root", "", "data")
    # float32 contents and their float32 square roots, as pyhf returns them.
    assert values == [122.0, 112.0]
    assert errors == [11.045360565185547, 10.58300495147705]
    with pytest.raises(KeyError, match="invalid_key"):
        hfcore.readxml.import_root_histogram(lambda name: base / name, "example.root", "", "invalid_key")
    assert len(hfcore.readxml._FILECACHE) == 1
    hfcore.readxml.clear_filecache()
    assert not hfcore.readxml._FILECACHE


def test_measurement_settings_like_pyhf():
    # ParamSetting over NormFactor configurations, two measurements, a parameter set twice, lumi constant.
    top = ET.fromstring(
        "<Combination>"
        "<Measurement Name='A' Lumi='2.0' LumiRelErr='0.05'><POI> mu </POI>"
        "<ParamSetting Const='True'>Lumi alpha_both alpha_only</ParamSetting>"
        "<ParamSetting Val='2.5'>alpha_both</ParamSetting></Measurement>"
        "<Measurement Name='B' Lumi='1' LumiRelErr='0.1'><POI>mu</POI>"
        "<ParamSetting Val='3'>alpha_both</ParamSetting></Measurement>"
        "</Combination>"
    )
    others = [{"name": "both", "inits": [1.0], "bounds": [[1.0, 5.0]], "fixed": False},
              {"name": "free", "inits": [1.0], "bounds": [[0.0, 10.0]]}]
    ours = hfcore.readxml.process_measurements(top, other_parameter_configs=others)
    theirs = pyhf.readxml.process_measurements(top, other_parameter_configs=others)
    assert json.dumps(ours) == json.dumps(theirs)
    # Names split at any whitespace (pyhf splits at single spaces: two make a parameter named "").
    top.find("Measurement/ParamSetting").text = " Lumi\n alpha_both  alpha_only "
    assert json.dumps(hfcore.readxml.process_measurements(top, other_parameter_configs=others)) == json.dumps(theirs)
    with pytest.raises(ValueError, match="gamma_bin_0"):
        hfcore.readxml.process_measurements(ET.fromstring(
            "<Combination><Measurement Name='A' Lumi='1' LumiRelErr='0.1'><POI>mu</POI>"
            "<ParamSetting Const='True'>gamma_bin_0</ParamSetting></Measurement></Combination>"))


def test_dedupe_and_unknown_modifier(caplog):
    same = [{"name": "mu", "bounds": [[0.0, 10.0]]}, {"name": "mu", "bounds": [[0.0, 10.0]]}]
    assert hfcore.readxml.dedupe_parameters(same) == [same[0]]
    with pytest.raises(RuntimeError, match="incompatible parameter configurations for mu"):
        hfcore.readxml.dedupe_parameters([same[0], {"name": "mu", "bounds": [[0.0, 2.0]]}])

    base = PYHF_PEERS / "validation" / "xmlimport_input"
    sample = ET.fromstring("<Sample Name='s' HistoName='signal'><UnknownSys/><StatError Activate='False'/></Sample>")
    with caplog.at_level(logging.WARNING, "hfcore.readxml"):
        result = hfcore.readxml.process_sample(sample, lambda name: base / name, "./data/example.root", "", "c")
    assert result["modifiers"] == []
    assert "not considering modifier tag <Element 'UnknownSys'" in caplog.text


def test_invalid_workspace_is_an_error_or_a_warning(tmp_path, caplog):
    # A NormFactor whose bounds are a string would break the schema: no such XML exists, so the JSON schema check
    # is shown on a channel without samples (pyhf's schema requires at least one).
    base = PYHF_PEERS / "validation" / "xmlimport_input"
    channel = tmp_path / "channel.xml"
    channel.write_text(f"<Channel Name='c' InputFile='{base}/data/example.root'><Data HistoName='data'/></Channel>")
    top = tmp_path / "top.xml"
    top.write_text(f"<Combination OutputFilePrefix='x'><Input>{channel}</Input>"
                   "<Measurement Name='m' Lumi='1' LumiRelErr='0.1'><POI>mu</POI></Measurement></Combination>")
    with pytest.raises(hfcore.exceptions.InvalidSpecification):
        hfcore.readxml.parse(top, tmp_path)
    with pytest.raises(pyhf.exceptions.InvalidSpecification):
        pyhf.readxml.parse(top, tmp_path)
    with caplog.at_level(logging.WARNING, "hfcore.readxml"):
        spec = hfcore.readxml.parse(top, tmp_path, validation_as_error=False)
    assert spec["channels"] == [{"name": "c", "samples": []}]
    assert caplog.records


def test_missing_uproot_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "uproot", None)  # import uproot now raises ImportError
    hfcore.readxml.clear_filecache()
    base = PYHF_PEERS / "validation" / "xmlimport_input"
    with pytest.raises(ImportError, match=r"hfcore\[xml\]"):
        hfcore.readxml.parse(base / "config" / "example.xml", base)
