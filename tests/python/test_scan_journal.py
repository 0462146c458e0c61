"""hfcore.infer.scan's journal: each finished point is kept as it finishes, a later call with the same inputs takes
the points the journal holds instead of computing them again, and a journal made with other inputs is refused."""

import json

import pytest

import hfcore

from conftest import ERJR, erjr_points, load

pytestmark = pytest.mark.skipif(not ERJR.is_dir(), reason="eRJR data not found")


def inputs():
    points = erjr_points()[:4]
    ws = hfcore.Workspace(ERJR / "BkgOnly.json")
    return ws, {p: load(ERJR / f"patch.{p}.json") for p in points}


def entries(path):
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    return header, [json.loads(line) for line in lines[1:]]


def test_a_journaled_scan_resumes_from_what_it_kept(tmp_path):
    ws, patches = inputs()
    path = tmp_path / "scan.journal"
    first = hfcore.infer.scan(ws, patches, threads=2, journal=path)
    assert [r["name"] for r in first] == list(patches)
    header, done = entries(path)
    assert header["command"] == "python scan" and len(done) == len(patches)
    assert first == hfcore.infer.scan(ws, patches, threads=2)  # the same points without a journal

    # A run killed after two points: its journal holds those two. One of them is marked, so that the call below
    # shows it took the journal's point instead of computing it again.
    kept = done[:2]
    kept[0]["result"]["CLs_obs"] = 0.123456
    path.write_text("\n".join(json.dumps(x) for x in [header, *kept]) + "\n")
    resumed = hfcore.infer.scan(ws, patches, threads=2, journal=path)
    marked = next(r for r in resumed if r["name"] == kept[0]["result"]["name"])
    assert marked["CLs_obs"] == 0.123456
    assert [r for r in resumed if r is not marked] == [r for r in first if r["name"] != marked["name"]]
    assert len(entries(path)[1]) == len(patches)  # the two computed now were appended


def test_a_journal_of_other_inputs_is_refused(tmp_path):
    ws, patches = inputs()
    path = tmp_path / "scan.journal"
    hfcore.infer.scan(ws, dict(list(patches.items())[:1]), journal=path)
    with pytest.raises(hfcore.exceptions.HFCoreError, match="journal"):
        hfcore.infer.scan(ws, dict(list(patches.items())[:1]), poi_test=0.5, journal=path)
