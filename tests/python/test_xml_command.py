"""The ``hfcore`` command that ``pip install`` puts on PATH (hfcore._cli): the bundled C++ command line for its
commands, xml2json and json2xml with pyhf's options, their files compared with ``pyhf xml2json/json2xml``'s."""

import json
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET

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
