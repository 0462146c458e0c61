"""hfcore.infer.scan under mpirun, as `hfcore scan` runs there: two ranks share the points of one scan, rank 0
returns the results (those of the one-process scan, equal) and keeps the journal, the other rank returns None.
CI runs this file in its MPI stage (scripts/ci/40-mpi.sh, HFCORE_REQUIRE_MPI=1: a skip fails there); elsewhere
it skips only where MPI is not built into hfcore or mpirun is missing."""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import hfcore
from hfcore import _core

from conftest import ERJR, ROOT, erjr_points, load

REQUIRED = os.environ.get("HFCORE_REQUIRE_MPI") == "1"
MPIRUN = shutil.which("mpirun") or shutil.which("mpiexec")


def missing_mpi():
    if not _core.mpi_compiled_in():
        return f"MPI is not built into this hfcore ({_core.mpi_description()})"
    if MPIRUN is None:
        return "no mpirun or mpiexec on PATH"
    return None


@pytest.fixture
def mpi():
    why = missing_mpi()
    if why and REQUIRED:
        pytest.fail(f"HFCORE_REQUIRE_MPI=1 but {why}")
    if why:
        pytest.skip(why)


def inputs():
    """Five eRJR points and one patch that cannot apply (its point is an error; the others finish)."""
    ws = hfcore.Workspace(ERJR / "BkgOnly.json")
    patches = {p: load(ERJR / f"patch.{p}.json") for p in erjr_points()[:5]}
    patches["broken"] = [{"op": "replace", "path": "/channels/99/samples/0/data", "value": [1.0]}]
    return ws, patches


# Runs on every rank: the scan with MPI required; rank 0 writes the results, every rank what it saw.
SCRIPT = textwrap.dedent("""
    import json, sys
    import hfcore
    from hfcore import _core
    inputs, out = sys.argv[1], sys.argv[2]
    with open(inputs) as f:
        job = json.load(f)
    rank, size = _core.mpi_world(True)
    ws = hfcore.Workspace(job["workspace"])
    results = hfcore.infer.scan(ws, job["patches"], upper_limit=True, threads=1, journal=job["journal"], mpi=True)
    with open(f"{out}.rank{rank}", "w") as f:
        json.dump({"rank": rank, "size": size, "results": results}, f)
""")


def mpirun_python(script, *args):
    cmd = [MPIRUN, "-n", "2", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none", sys.executable,
           str(script), *map(str, args)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.skipif(not ERJR.is_dir(), reason="eRJR data not found")
def test_two_ranks_return_the_one_process_scan(tmp_path, mpi):
    ws, patches = inputs()
    expected = hfcore.infer.scan(ws, patches, upper_limit=True, threads=1)
    assert "error" in expected[-1] and all("error" not in r for r in expected[:-1])

    job = tmp_path / "job.json"
    job.write_text(json.dumps({"workspace": str(ERJR / "BkgOnly.json"), "patches": patches,
                               "journal": str(tmp_path / "scan.journal")}))
    (tmp_path / "scan.py").write_text(SCRIPT)
    mpirun_python(tmp_path / "scan.py", job, tmp_path / "scan")

    ranks = [json.loads((tmp_path / f"scan.rank{r}").read_text()) for r in range(2)]
    assert [(r["rank"], r["size"]) for r in ranks] == [(0, 2), (1, 2)]
    assert ranks[1]["results"] is None
    assert ranks[0]["results"] == json.loads(json.dumps(expected))
    # Rank 0's journal holds every point, whichever rank computed it.
    lines = (tmp_path / "scan.journal").read_text().splitlines()
    assert json.loads(lines[0])["command"] == "python scan" and len(lines) == 1 + len(patches)


# A journal of other inputs: rank 0 refuses it, and rank 1 raises the same error instead of waiting for rank 0.
REFUSED = textwrap.dedent("""
    import sys
    import hfcore
    ws = hfcore.Workspace(sys.argv[1])
    rank, _ = hfcore._core.mpi_world(True)
    try:
        hfcore.infer.scan(ws, {"a": []}, poi_test=0.5, journal=sys.argv[2], mpi=True)
        message = "no error"
    except hfcore.exceptions.HFCoreError as e:
        message = str(e)
    with open(f"{sys.argv[3]}.rank{rank}", "w") as f:
        f.write(message)
""")


def test_a_refused_journal_is_an_error_on_every_rank(tmp_path, mpi):
    example = ROOT / "examples" / "workspaces" / "example.json"
    journal = tmp_path / "scan.journal"
    hfcore.infer.scan(hfcore.Workspace(example), {"a": []}, journal=journal)
    (tmp_path / "refused.py").write_text(REFUSED)
    mpirun_python(tmp_path / "refused.py", example, journal, tmp_path / "seen")
    seen = [(tmp_path / f"seen.rank{r}").read_text() for r in range(2)]
    assert seen[0] == seen[1] and "journal" in seen[0] and "digest" in seen[0], seen


def test_mpi_required_outside_mpirun_is_an_error():
    if _core.launched_by_mpi():
        pytest.skip("this test process itself runs under mpirun")
    ws = hfcore.Workspace(ROOT / "examples" / "workspaces" / "example.json")
    with pytest.raises(hfcore.exceptions.HFCoreError, match="mpi=True"):
        hfcore.infer.scan(ws, {}, mpi=True)
