"""The ``hfcore`` command that ``pip install`` puts on PATH (hfcore._cli): the bundled C++ command line for its
commands, xml2json and json2xml with pyhf's options, their files compared with ``pyhf xml2json/json2xml``'s."""

import json
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import hfcore
import pyhf
from conftest import ROOT, SHARED, load

PYHF_PEERS = SHARED / "peers" / "pyhf-0.7.6"
XMLIMPORT = PYHF_PEERS / "validation" / "xmlimport_input"
EXAMPLE = ROOT / "examples" / "workspaces" / "example.json"
pytestmark = pytest.mark.skipif(not PYHF_PEERS.is_dir(), reason=f"pyhf's tests not found at {PYHF_PEERS}")


def script(name):
    """The console script of the installed package (and pyhf's) beside this Python."""
    path = pathlib.Path(sys.executable).with_name(name)
    assert path.is_file(), f"{path}: not installed (pip install the package into this Python's environment)"
    return str(path)


def run(name, *args, **kwargs):
    return subprocess.run([script(name), *map(str, args)], capture_output=True, text=True, **kwargs)


def test_entry_point_and_bundled_binary():
    from importlib import metadata

    dist = metadata.distribution("hfcore")
    scripts = {e.name: e.value for e in dist.entry_points if e.group == "console_scripts"}
    assert scripts["hfcore"] == "hfcore._cli:main"
    assert "xml" in dist.metadata.get_all("Provides-Extra")
    binary = pathlib.Path(hfcore.__file__).parent / "bin" / "hfcore"
    assert binary.is_file()


def test_help_lists_both_kinds_of_command():
    r = run("hfcore", "--help")
    assert r.returncode == 0, r.stderr
    for command in ("cls", "fit", "upper-limit", "xml2json", "json2xml"):
        assert command in r.stdout
    r = run("hfcore", "xml2json", "--help")
    assert r.returncode == 0 and "--basedir" in r.stdout and "--hide-progress" in r.stdout


def test_cls_runs_the_bundled_engine():
    r = run("hfcore", "cls", EXAMPLE)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    spec = load(EXAMPLE)
    ws = hfcore.Workspace(spec)
    model = ws.model()
    obs, exp = hfcore.infer.hypotest(1.0, ws.data(model), model, return_expected_set=True)
    assert out["CLs_obs"] == pytest.approx(float(obs), rel=1e-9)
    assert out["CLs_exp"] == pytest.approx([float(x) for x in exp], rel=1e-9)
    ws_p = pyhf.Workspace(spec)
    model_p = ws_p.model()
    obs_p = pyhf.infer.hypotest(1.0, ws_p.data(model_p), model_p)
    assert out["CLs_obs"] == pytest.approx(float(obs_p), rel=1e-4)
    # Errors are the binary's: a bad command line exits 2.
    assert run("hfcore", "cls", "--no-such-option", EXAMPLE).returncode == 2


def test_xml2json_json2xml_like_pyhf(tmp_path):
    files = {}
    for tool in ("pyhf", "hfcore"):
        out = tmp_path / tool
        out.mkdir()
        r = run(tool, "xml2json", XMLIMPORT / "config" / "example.xml", "--basedir", XMLIMPORT,
                "--output-file", out / "ws.json", "--hide-progress")
        assert r.returncode == 0 and r.stdout == "" and r.stderr == "", r.stderr
        # A patch that changes the data of one channel, applied before writing.
        patch = tmp_path / "patch.json"
        patch.write_text(json.dumps([{"op": "replace", "path": "/observations/0/data", "value": [100.0, 90.0]}]))
        r = run(tool, "json2xml", out / "ws.json", "--output-dir", out, "-p", patch)
        assert r.returncode == 0, r.stderr
        files[tool] = {str(p.relative_to(out)): p for p in sorted(out.rglob("*")) if p.is_file()}

    assert sorted(files["hfcore"]) == sorted(files["pyhf"])
    assert (tmp_path / "hfcore" / "ws.json").read_text() == (tmp_path / "pyhf" / "ws.json").read_text()
    for name in files["pyhf"]:
        if name.endswith(".xml"):
            theirs = files["pyhf"][name].read_text().replace(str(tmp_path / "pyhf"), "OUT")
            ours = files["hfcore"][name].read_text().replace(str(tmp_path / "hfcore"), "OUT")
            head_o, _, body_o = ours.partition("\n")
            head_t, _, body_t = theirs.partition("\n")
            assert head_o == head_t, name
            assert ET.canonicalize(body_o, strip_text=True) == ET.canonicalize(body_t, strip_text=True), name
        else:
            assert files["hfcore"][name].read_bytes() != b"", name

    # The written XML read back by the command, with the patched data.
    r = run("hfcore", "xml2json", tmp_path / "hfcore" / "FitConfig.xml", "--hide-progress")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["observations"][0]["data"] == [100.0, 90.0]


def test_xml2json_mounts_and_bad_input(tmp_path):
    data = PYHF_PEERS / "tests" / "test_scripts" / "xmlimport_absolutePaths"
    r = run("hfcore", "xml2json", "--hide-progress", "-v", f"{data}:/absolute/path/to",
            "--output-file", tmp_path / "ws.json", data / "config" / "example.xml")
    # The channel file names its ROOT file under a second path: a clear error until it is mounted too.
    assert r.returncode == 2 and "/another/absolute/path/to/data/example.root" in r.stderr
    r = run("hfcore", "xml2json", "--hide-progress", "-v", f"{data}:/absolute/path/to",
            "-v", f"{data}:/another/absolute/path/to", "--output-file", tmp_path / "ws.json",
            data / "config" / "example.xml")
    assert r.returncode == 0 and r.stdout == "" and r.stderr == "", r.stderr
    assert [c["name"] for c in json.loads((tmp_path / "ws.json").read_text())["channels"]] == ["channel1"]

    r = run("hfcore", "xml2json", "--hide-progress", "-v", f"{data}::/absolute/path/to", data / "config" / "example.xml")
    assert r.returncode == 2 and "is not a valid colon-separated option" in r.stderr
    r = run("hfcore", "xml2json", tmp_path / "missing.xml")
    assert r.returncode == 2 and "missing.xml" in r.stderr
    (tmp_path / "bad.xml").write_text("<Combination>")
    r = run("hfcore", "xml2json", tmp_path / "bad.xml", "--hide-progress")
    assert r.returncode == 2 and "hfcore xml2json: error" in r.stderr


def test_xml2json_binning_output(tmp_path):
    """The bin edges and axis title of each channel's data histogram, which pyhf's JSON drops, written beside the
    workspace; `hfcore yields --binning` and the yields plot read them."""
    import uproot
    from uproot.writing.identify import to_TAxis, to_TH1x

    # pyhf's example with the data histogram given an axis title (the file's other histograms copied as read).
    root = tmp_path / "xml"
    (root / "data").mkdir(parents=True)
    (root / "config").mkdir()
    for name in ("example.xml", "example_channel.xml", "HistFactorySchema.dtd"):
        (root / "config" / name).write_bytes((XMLIMPORT / "config" / name).read_bytes())
    source = uproot.open(XMLIMPORT / "data" / "example.root")
    data = source["data"]
    edges = data.axis().edges()
    with uproot.recreate(root / "data" / "example.root") as out:
        for key in source.keys(cycle=False):
            if key != "data":
                out[key] = source[key]
        axis = to_TAxis("xaxis", "m_T [GeV]", len(edges) - 1, edges[0], edges[-1], fXbins=edges)
        out["data"] = to_TH1x("data", "data", np.r_[0.0, data.values().astype(float), 0.0], 1.0, 1.0, 0.0, 0.0, 0.0,
                              np.r_[0.0, data.values().astype(float), 0.0], axis)

    r = run("hfcore", "xml2json", root / "config" / "example.xml", "--basedir", root, "--hide-progress",
            "--output-file", tmp_path / "ws.json", "--binning-output", tmp_path / "binning.json")
    assert r.returncode == 0, r.stderr
    binning = json.loads((tmp_path / "binning.json").read_text())
    assert binning == {"channel1": {"edges": [1.0, 1.5, 2.0], "label": "m_T [GeV]"}}
    assert hfcore.readxml.binning(root / "config" / "example.xml", root) == binning
    # Without a title there is no label; the workspace is the one written without the option.
    plain = hfcore.readxml.binning(XMLIMPORT / "config" / "example.xml", XMLIMPORT)
    assert plain == {"channel1": {"edges": [1.0, 1.5, 2.0]}}
    r = run("hfcore", "xml2json", XMLIMPORT / "config" / "example.xml", "--basedir", XMLIMPORT, "--hide-progress")
    assert json.loads(r.stdout) == json.loads((tmp_path / "ws.json").read_text())

    # The C++ yields command takes the file as written.
    r = run("hfcore", "yields", tmp_path / "ws.json", "--binning", tmp_path / "binning.json",
            "--output-file", tmp_path / "yields.json")
    assert r.returncode == 0, r.stderr
    channel = json.loads((tmp_path / "yields.json").read_text())["channels"][0]
    assert channel["edges"] == [1.0, 1.5, 2.0] and channel["label"] == "m_T [GeV]"
