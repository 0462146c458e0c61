"""hfcore.plot and the hfcore-plot command: every kind rendered from real outputs (the hfcore command's JSON when
its binary is found, hfcore.infer's dicts - the same keys - otherwise; the eRJR scan for the contours, the
example workspace for the rest) into PNG files that are opened and measured, the artists that must be there
counted (bars = parameters shown, contour paths, points), and bad inputs that must fail with a clear message.
Also the progress callbacks of the long calls (hfcore.progress)."""

import json
import math
import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("matplotlib", reason="hfcore.plot needs the plot extra: pip install 'hfcore[plot]'")
pytest.importorskip("mplhep", reason="hfcore.plot needs the plot extra: pip install 'hfcore[plot]'")
pytest.importorskip("scipy", reason="hfcore.plot needs the plot extra: pip install 'hfcore[plot]'")

import matplotlib.image  # noqa: E402
from matplotlib.container import BarContainer  # noqa: E402

import hfcore  # noqa: E402
from hfcore import plot  # noqa: E402
from hfcore.infer import diagnostics  # noqa: E402

from conftest import ERJR, ROOT, erjr_points  # noqa: E402

EXAMPLE = ROOT / "examples" / "workspaces" / "example.json"
needs_erjr = pytest.mark.skipif(not ERJR.is_dir(), reason=f"eRJR likelihoods not found at {ERJR}")


def hfcore_cli():
    """The hfcore command: $HFCORE_CLI, a build tree's, or the one on PATH (None when there is none)."""
    candidates = [os.environ.get("HFCORE_CLI")] + [str(p) for p in sorted(ROOT.glob("build/*/bin/hfcore"))]
    candidates.append(shutil.which("hfcore"))
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


class Run:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def hfcore_plot(*args, process=False):
    """Runs hfcore-plot: in this process (its main(), output captured), or with process=True as a command, the
    installed script beside this Python when there is one, else the module."""
    args = [str(a) for a in args]
    if process:
        script = pathlib.Path(sys.executable).with_name("hfcore-plot")
        cmd = [str(script)] if script.is_file() else [sys.executable, "-m", "hfcore._plot_command"]
        r = subprocess.run(cmd + args, capture_output=True, text=True)
        return Run(r.returncode, r.stdout, r.stderr)
    import contextlib
    import io

    from hfcore._plot_command import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(args)
        except SystemExit as e:  # argparse
            rc = e.code
    return Run(rc, out.getvalue(), err.getvalue())


def png(path, min_kb=8):
    """(height, width) of a PNG that opens, after checking it is not a near-empty file."""
    assert os.path.getsize(path) > min_kb * 1024, path
    image = matplotlib.image.imread(str(path))
    assert image.ndim == 3 and image.shape[0] > 300 and image.shape[1] > 300
    assert image[..., :3].std() > 0.05  # something drawn
    return image.shape[:2]


@pytest.fixture(scope="module")
def example():
    ws = hfcore.Workspace(json.loads(EXAMPLE.read_text()))
    model = ws.model()
    return ws, model, ws.data(model)


@pytest.fixture(scope="module")
def results(example):
    """Every diagnostic of the example workspace, as hfcore.infer returns it (the CLI's JSON keys)."""
    _, model, data = example
    ul = hfcore.infer.intervals.upper_limits.upper_limit(data, model, scan=np.linspace(0, 5, 21),
                                                         return_results=True)
    return {
        "pulls": diagnostics.pulls(data, model),
        "ranking": diagnostics.ranking(data, model),
        "breakdown": diagnostics.breakdown(data, model),
        "yields_pre": diagnostics.yields(data, model),
        "yields_post": diagnostics.yields(data, model, postfit=True),
        "profile_1d": diagnostics.profile_scan(data, model, {"mu": np.linspace(0, 4, 21)}),
        "profile_2d": diagnostics.profile_scan(data, model, {"mu": np.linspace(0, 4, 11),
                                                             "ttbar_generator": np.linspace(-3, 3, 11)}),
        "upper_limit": ul,
    }


def erjr_patches():
    return {name: json.loads((ERJR / f"patch.{name}.json").read_text()) for name in erjr_points()}


@pytest.fixture(scope="module")
def erjr_scan():
    """hfcore.infer.scan over the 66 eRJR patch files (no mass values: the names hold them)."""
    ws = hfcore.Workspace(json.loads((ERJR / "BkgOnly.json").read_text()))
    return hfcore.infer.scan(ws, erjr_patches(), threads=2)


def erjr_patchset(ws_spec):
    """The eRJR patches as a pyhf PatchSet with (m(chi2), m(chi1)) values and labels."""
    patches = []
    for name, ops in erjr_patches().items():
        _, a, b = name.split("_")
        patches.append({"metadata": {"name": name, "values": [float(a.replace("p", ".")), float(b.replace("p", "."))]},
                        "patch": ops})
    return {"metadata": {"name": "erjr", "description": "eRJR signal grid",
                         "digests": {"sha256": hfcore.utils.digest(ws_spec, "sha256")},
                         "labels": ["m_chi2", "m_chi1"], "references": {"hepdata": "ins0000000"}},
            "patches": patches, "version": "1.0.0"}


# --- every kind through the command, from the command's own JSON --------------------------------------------

@pytest.fixture(scope="module")
def json_files(tmp_path_factory, example, results):
    """The JSON files the plots read: written by the hfcore command when its binary is here, else the same
    documents from hfcore.infer (json.dump of the dicts)."""
    d = tmp_path_factory.mktemp("results")
    cli = hfcore_cli()
    files = {}
    if cli:
        runs = {
            "upper_limit": ["upper-limit", EXAMPLE, "--scan", "0,5,21"],
            "pulls": ["pulls", EXAMPLE, "--correlations"],
            "ranking": ["ranking", EXAMPLE],
            "breakdown": ["breakdown", EXAMPLE],
            "yields_pre": ["yields", EXAMPLE],
            "yields_post": ["yields", EXAMPLE, "--postfit"],
            "profile_1d": ["profile", EXAMPLE, "--par", "mu", "--range", "0,4,21"],
            "profile_2d": ["profile", EXAMPLE, "--par", "mu", "--range", "0,4,11", "--par", "ttbar_generator",
                           "--range", "-3,3,11"],
        }
        if ERJR.is_dir():
            runs["scan"] = ["scan", ERJR / "BkgOnly.json"] + sorted(ERJR.glob("patch.ERJR_*.json")) + ["--threads", "2"]
        for key, args in runs.items():
            files[key] = d / f"{key}.json"
            r = subprocess.run([cli] + [str(a) for a in args] + ["--output-file", str(files[key])],
                               capture_output=True, text=True)
            assert r.returncode == 0, (key, r.stderr)
    else:
        for key, doc in results.items():
            if key != "upper_limit":  # a tuple in Python; its JSON is the command's alone
                files[key] = d / f"{key}.json"
                files[key].write_text(json.dumps(doc))
        if ERJR.is_dir():
            ws = hfcore.Workspace(json.loads((ERJR / "BkgOnly.json").read_text()))
            files["scan"] = d / "scan.json"
            files["scan"].write_text(json.dumps({"results": hfcore.infer.scan(ws, erjr_patches(), threads=2)}))
    files["source"] = "cli" if cli else "python"
    return files


COMMANDS = [
    ("brazil", "upper_limit", []),
    ("contour", "scan", ["--pattern", "ERJR_{m1}_{m2}"]),
    ("pulls", "pulls", []),
    ("ranking", "ranking", ["--top", "10"]),
    ("breakdown", "breakdown", []),
    ("yields", "yields_pre", []),
    ("yields", "yields_post", ["--layout", "summary"]),
    ("corr", "pulls", []),
    ("profile", "profile_1d", []),
    ("profile", "profile_2d", ["--show-nll"]),
]


@pytest.mark.parametrize("kind,key,extra", COMMANDS, ids=[f"{k}-{key}" for k, key, _ in COMMANDS])
def test_command_renders_every_kind(json_files, tmp_path, kind, key, extra):
    if key not in json_files:
        pytest.skip("the upper-limit scan JSON comes from the hfcore command, not found here" if key == "upper_limit"
                    else f"eRJR likelihoods not found at {ERJR}")
    out = tmp_path / f"{kind}.png"
    r = hfcore_plot(kind, json_files[key], "-o", out, *extra, process=kind == "pulls")  # one as a command
    assert r.returncode == 0, r.stderr
    assert "warning" not in r.stderr
    png(out)


def test_command_writes_pdf_and_svg_and_pages(json_files, tmp_path):
    r = hfcore_plot("pulls", json_files["pulls"], "-o", tmp_path / "pulls.pdf", "--per-page", "5")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "pulls.pdf").read_bytes()[:5] == b"%PDF-"
    # 12 constrained parameters, 5 a page: three pages, one pdf; as png, three files.
    r = hfcore_plot("pulls", json_files["pulls"], "-o", tmp_path / "pulls.png", "--per-page", "5")
    assert r.returncode == 0 and "pulls_3.png" in r.stderr
    for i in (1, 2, 3):
        png(tmp_path / f"pulls_{i}.png", min_kb=4)
    assert not (tmp_path / "pulls_4.png").exists()
    r = hfcore_plot("ranking", json_files["ranking"], "-o", tmp_path / "ranking.svg", "--experiment", "ATLAS",
                    "--text", "Internal", "--lumi", "139")
    assert r.returncode == 0, r.stderr
    svg = (tmp_path / "ranking.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg


def test_installed_command_and_extra():
    """The package declares the hfcore-plot command and the plot extra (checked where it is installed)."""
    from importlib import metadata

    try:
        dist = metadata.distribution("hfcore")
    except metadata.PackageNotFoundError:
        pytest.skip("hfcore is not installed as a distribution here (a build tree on PYTHONPATH)")
    scripts = {e.name: e.value for e in dist.entry_points if e.group == "console_scripts"}
    assert scripts.get("hfcore-plot") == "hfcore._plot_command:main"
    extras = dist.metadata.get_all("Provides-Extra")
    assert "plot" in extras
    r = subprocess.run([str(pathlib.Path(sys.executable).with_name("hfcore-plot")), "-h"], capture_output=True,
                       text=True)
    assert r.returncode == 0 and "brazil" in r.stdout and "contour" in r.stdout


# --- what each plot draws ------------------------------------------------------------------------------------

def save_and_check(fig, tmp_path, name):
    (path,) = plot.save(fig, tmp_path / f"{name}.png")
    return png(path)


def test_brazil(results, tmp_path):
    obs, exp, (scan, cls) = results["upper_limit"]
    fig = plot.brazil(results["upper_limit"], poi_name="mu")
    ax = fig.axes[0]
    observed = [line for line in ax.get_lines() if line.get_label().startswith("Observed")]
    assert len(observed) == 1 and len(observed[0].get_xdata()) == len(scan)
    np.testing.assert_allclose(observed[0].get_ydata(), [float(c[0]) for c in cls])
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(f"{float(obs):.3g}" in t for t in texts) and any(f"{float(exp[2]):.3g}" in t for t in texts)
    assert len(ax.collections) == 2  # the +-1 and +-2 sigma bands
    assert ax.get_xlabel() == r"$\mu$"
    save_and_check(fig, tmp_path, "brazil")
    log = plot.brazil(results["upper_limit"], logy=True)
    assert log.axes[0].get_yscale() == "log"
    save_and_check(log, tmp_path, "brazil_log")


def contour_paths(fig, which):
    cs = fig._hfcore_contours[which]
    return [p for p in cs.get_paths() if len(p.vertices) > 1]


@needs_erjr
def test_contour_from_names(erjr_scan, tmp_path):
    fig = plot.contour(erjr_scan, pattern="ERJR_{m1}_{m2}")
    assert contour_paths(fig, "observed") and contour_paths(fig, "expected")
    ax = fig.axes[0]
    points = [line for line in ax.get_lines() if line.get_label() == "Signal points"]
    assert len(points) == 1 and len(points[0].get_xdata()) == 66
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("m1", "m2")
    # The observed contour separates excluded from allowed points: it lies within the grid's mass range.
    verts = np.concatenate([p.vertices for p in contour_paths(fig, "observed")])
    assert 100 <= verts[:, 0].min() and verts[:, 0].max() <= 500
    save_and_check(fig, tmp_path, "contour")
    # A regular expression does the same.
    fig2 = plot.contour(erjr_scan, pattern=r"ERJR_(?P<mass_a>[0-9p]+)_(?P<mass_b>[0-9p]+)")
    assert fig2.axes[0].get_xlabel() == "mass_a"
    np.testing.assert_allclose(np.concatenate([p.vertices for p in contour_paths(fig2, "observed")]), verts)


@needs_erjr
def test_contour_from_patchset_values(tmp_path):
    """A PatchSet scan carries the masses: no pattern needed; its labels name the axes (the command's JSON)."""
    spec = json.loads((ERJR / "BkgOnly.json").read_text())
    patchset = erjr_patchset(spec)
    scan = hfcore.infer.scan(hfcore.Workspace(spec), hfcore.PatchSet(patchset), threads=2)
    assert scan[0]["values"] == patchset["patches"][0]["metadata"]["values"]
    fig = plot.contour(scan)
    assert contour_paths(fig, "observed")
    cli = hfcore_cli()
    if cli:
        (tmp_path / "patchset.json").write_text(json.dumps(patchset))
        out = tmp_path / "scan.json"
        r = subprocess.run([cli, "scan", str(ERJR / "BkgOnly.json"), str(tmp_path / "patchset.json"), "--threads",
                            "2", "--output-file", str(out)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        doc = json.loads(out.read_text())
        assert doc["labels"] == ["m_chi2", "m_chi1"]
        fig = plot.contour(doc)
        assert (fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()) == ("m_chi2", "m_chi1")
        save_and_check(fig, tmp_path, "contour_patchset")


def test_pulls(results, tmp_path):
    constrained = [p["name"] for p in results["pulls"]["parameters"] if p["pull"] is not None]
    pages = plot.pulls_pages(results["pulls"], per_page=5)
    assert len(pages) == math.ceil(len(constrained) / 5)
    shown = [name for fig in pages for name in fig._hfcore_rows]
    assert shown == constrained  # unconstrained (mu, mu_wjets, ttbar_shape) have no pull
    for fig in pages:
        ax = fig.axes[0]
        assert [t.get_text() for t in ax.get_yticklabels()] == fig._hfcore_rows
        (bars,) = ax.containers
        assert len(bars.lines[0].get_xdata()) == len(fig._hfcore_rows)  # one point per parameter
    only = plot.pulls(results["pulls"], exclude=["staterror"])
    assert only._hfcore_rows == [n for n in constrained if "staterror" not in n]
    save_and_check(plot.pulls(results["pulls"]), tmp_path, "pulls")


def test_ranking(results, tmp_path):
    entries = results["ranking"]["ranking"]
    fig = plot.ranking(results["ranking"], top=5)
    assert fig._hfcore_rows == [e["name"] for e in entries[:5]]
    bars = [c for ax in fig.axes for c in ax.containers if isinstance(c, BarContainer)]
    assert len(bars) == 4 and all(len(b.patches) == 5 for b in bars)  # pre/post-fit, up/down: a bar each
    widths = {k: [p.get_width() for p in b.patches] for k, b in fig._hfcore_bars.items()}
    np.testing.assert_allclose(widths["post_up"], [e["impact_postfit_up"] for e in entries[:5]])
    np.testing.assert_allclose(widths["pre_down"], [e["impact_prefit_down"] for e in entries[:5]])
    # The pulls overlaid: one point per constrained parameter shown.
    pull_axis = fig._hfcore_pull_axis
    (points,) = pull_axis.containers
    assert len(points.lines[0].get_xdata()) == sum(e["prefit_uncertainty"] > 0 for e in entries[:5])
    everything = plot.ranking_pages(results["ranking"], top=0, per_page=6)
    assert sum(len(f._hfcore_rows) for f in everything) == len(entries) and len(everything) == math.ceil(len(entries) / 6)
    save_and_check(fig, tmp_path, "ranking")


def test_breakdown(json_files, tmp_path):
    doc = json.loads(json_files["breakdown"].read_text())
    fig = plot.breakdown(doc)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    groups = sorted(doc["groups"], key=lambda g: -g["impact"])
    assert labels == ["total", "statistical", "systematic"] + [g["name"] for g in groups]
    widths = [p.get_width() for p in fig.axes[0].patches]
    assert widths == pytest.approx([doc["total"], doc["statistical"], doc["systematic"]] + [g["impact"] for g in groups])
    save_and_check(fig, tmp_path, "breakdown")
    with pytest.raises(plot.PlotInputError, match="breakdown plot needs the output of `hfcore breakdown`"):
        plot.breakdown(json.loads(json_files["ranking"].read_text()))


def test_yields(results, tmp_path):
    fig = plot.yields(results["yields_post"])
    assert fig._hfcore_channels == ["CR_top", "CR_wjets", "SR"]
    assert len(fig.axes) == 6  # a main and a ratio panel per channel
    legend = [t.get_text() for t in fig.axes[2].get_legend().get_texts()]
    assert legend[0] == "Data" and legend[-1] == "Uncertainty"
    assert set(legend[1:-1]) == {"signal", "ttbar", "wjets", "diboson"}
    assert fig.axes[2].get_legend().get_title().get_text() == "Post-fit"
    save_and_check(fig, tmp_path, "yields")
    summary = plot.yields(results["yields_pre"], layout="summary")
    assert len(summary.axes) == 2
    assert [t.get_text() for t in summary.axes[1].get_xticklabels()] == ["CR_top 1", "CR_top 2", "CR_wjets", "SR 1", "SR 2"]
    one = plot.yields(results["yields_pre"], channels=["SR"], logy=True)
    assert one._hfcore_channels == ["SR"] and one.axes[0].get_yscale() == "log"
    with pytest.raises(plot.PlotInputError, match="no channel 'XR'"):
        plot.yields(results["yields_pre"], channels=["XR"])


def test_yields_binning(results, json_files, tmp_path):
    """A --binning file (as `hfcore yields --binning` reads it) draws the channels it names in their observable;
    its errors name the file and the JSON path."""
    binning = {"SR": {"edges": [0, 50, 120], "label": "m_T [GeV]"}, "CR_top": [10, 20, 40]}
    fig = plot.yields(results["yields_pre"], binning=binning)
    ratio = {name: fig.axes[3 + i] for i, name in enumerate(fig._hfcore_channels)}
    assert ratio["SR"].get_xlabel() == "m_T [GeV]" and ratio["SR"].get_xlim() == (0, 120)
    assert ratio["CR_top"].get_xlabel() == "CR_top" and ratio["CR_top"].get_xlim() == (10, 40)
    assert ratio["CR_wjets"].get_xlabel() == "Bin"
    path = tmp_path / "binning.json"
    path.write_text(json.dumps(binning))
    out = tmp_path / "binned.png"
    r = hfcore_plot("yields", json_files["yields_pre"], "--binning", path, "-o", out)
    assert r.returncode == 0 and out.stat().st_size > 0, r.stderr
    for bad, message in [({"XR": [0, 1]}, "binning.json: XR: the yields have no channel 'XR'"),
                         ({"SR": [0, 1]}, "binning.json: SR: 2 edges for the 2 bins of channel 'SR' .needs 3."),
                         ({"SR": {"edges": [0, 2, 1]}}, r"binning.json: SR.edges: edges must increase strictly"),
                         ({"SR": {"label": "x"}}, "binning.json: SR: missing 'edges'"),
                         ([1, 2], r"binning.json: \(top level\): expected an object")]:
        path.write_text(json.dumps(bad))
        with pytest.raises(plot.PlotInputError, match=message):
            plot.yields(results["yields_pre"], binning=path)
        r = hfcore_plot("yields", json_files["yields_pre"], "--binning", path, "-o", out)
        assert r.returncode != 0 and "binning.json" in r.stderr

def test_corr(results, tmp_path):
    names = results["pulls"]["correlations"]["par_names"]
    fig = plot.corr(results["pulls"], threshold=0.2)
    kept = fig._hfcore_rows
    m = np.array(results["pulls"]["correlations"]["matrix"])
    for i, name in enumerate(names):
        off = np.max(np.abs(np.delete(m[i], i)))
        assert (name in kept) == (off >= 0.2 or name == "mu"), name
    assert len(fig.axes[0].texts) == len(kept) ** 2  # annotated
    save_and_check(fig, tmp_path, "corr")
    with pytest.warns(UserWarning, match="the 5 most correlated parameters of 16"):
        small = plot.corr(results["pulls"], threshold=0.0, max_pars=5)
    assert len(small._hfcore_rows) == 5 and "mu" in small._hfcore_rows
    with pytest.raises(plot.PlotInputError, match="lower the threshold"):
        plot.corr(results["pulls"], threshold=0.99)


def test_profile(results, tmp_path):
    fig = plot.profile(results["profile_1d"])
    curve = fig.axes[0].get_lines()[0]
    np.testing.assert_allclose(curve.get_ydata(), [p["delta_twice_nll"] for p in results["profile_1d"]["points"]])
    lo, hi = results["profile_1d"]["intervals"]["68"]
    assert f"{results['profile_1d']['bestfit'][0]:.3g}" in curve.get_label()
    save_and_check(fig, tmp_path, "profile_1d")
    fig2 = plot.profile(results["profile_2d"])
    assert len(fig2._hfcore_contours.get_paths()) == 2  # the 68% and 95% levels
    assert all(len(p.vertices) > 10 for p in fig2._hfcore_contours.get_paths())
    assert (fig2.axes[0].get_xlabel(), fig2.axes[0].get_ylabel()) == (r"$\mu$", "ttbar_generator")
    save_and_check(fig2, tmp_path, "profile_2d")


# --- bad inputs ----------------------------------------------------------------------------------------------

def test_wrong_kind_of_json_is_named(json_files, tmp_path):
    r = hfcore_plot("brazil", json_files["ranking"], "-o", tmp_path / "x.png")
    assert r.returncode == 2
    assert "`hfcore upper-limit`" in r.stderr and "`hfcore ranking`" in r.stderr and "--scan" in r.stderr
    r = hfcore_plot("pulls", EXAMPLE, "-o", tmp_path / "x.png")
    assert r.returncode == 2 and "this is a workspace" in r.stderr
    assert not (tmp_path / "x.png").exists()


def test_upper_limit_without_its_curve(tmp_path):
    f = tmp_path / "ul.json"
    f.write_text(json.dumps({"obs": 2.6, "exp": [0.6, 0.8, 1.2, 1.7, 2.3]}))
    r = hfcore_plot("brazil", f, "-o", tmp_path / "x.png")
    assert r.returncode == 2 and "without the CLs curve" in r.stderr and "--scan LO,HI,N" in r.stderr


def test_scan_without_mass_values(tmp_path):
    f = tmp_path / "scan.json"
    rows = [{"name": f"SIG_{a}p0_{b}p0", "CLs_obs": 0.1, "CLs_exp": [0.01, 0.03, 0.1, 0.3, 0.6]}
            for a, b in ((100, 0), (200, 0), (200, 100))]
    f.write_text(json.dumps({"results": rows}))
    r = hfcore_plot("contour", f, "-o", tmp_path / "x.png")
    assert r.returncode == 2
    assert "results[0] ('SIG_100p0_0p0') has no 'values'" in r.stderr and "--pattern 'SIG_{x}_{y}'" in r.stderr
    r = hfcore_plot("contour", f, "-o", tmp_path / "x.png", "--pattern", "ERJR_{m1}_{m2}")
    assert r.returncode == 2 and "results[0].name: 'SIG_100p0_0p0' does not match" in r.stderr
    # Points on a line make no plane.
    rows[2]["name"] = "SIG_300p0_0p0"
    f.write_text(json.dumps({"results": rows}))
    r = hfcore_plot("contour", f, "-o", tmp_path / "x.png", "--pattern", "SIG_{a}_{b}")
    assert r.returncode == 2 and "lie on a line" in r.stderr


def test_malformed_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    r = hfcore_plot("pulls", bad, "-o", tmp_path / "x.png")
    assert r.returncode == 2 and "not JSON" in r.stderr and "bad.json" in r.stderr
    r = hfcore_plot("pulls", tmp_path / "missing.json", "-o", tmp_path / "x.png")
    assert r.returncode == 2 and "cannot read" in r.stderr
    broken = tmp_path / "ranking.json"
    broken.write_text(json.dumps({"poi": "mu", "poi_hat": 1.0, "ranking": [{"name": "a", "value": "x"}]}))
    r = hfcore_plot("ranking", broken, "-o", tmp_path / "x.png")
    assert r.returncode == 2 and "ranking[0]" in r.stderr


def test_bad_output_and_missing_correlations(json_files, results, tmp_path):
    r = hfcore_plot("pulls", json_files["pulls"], "-o", tmp_path / "x.jpeg")
    assert r.returncode == 2 and "must end in .png, .pdf, .svg" in r.stderr
    no_corr = dict(results["pulls"])
    no_corr.pop("correlations")
    with pytest.raises(plot.PlotInputError, match="--correlations"):
        plot.corr(no_corr)


# --- progress ------------------------------------------------------------------------------------------------

def test_progress_callbacks(example):
    ws, model, data = example
    seen = []
    r = diagnostics.ranking(data, model, progress=lambda *a: seen.append(a))
    assert seen and all(label == "fits" and 0 <= done <= total for done, total, label in seen)
    assert seen[-1][0] == seen[-1][1] == r["n_fits"] == 4 * 12 + 2 * 3  # 12 constrained, 3 free parameters
    seen.clear()
    diagnostics.profile_scan(data, model, {"mu": [0.5, 1.0, 2.0]}, progress=lambda *a: seen.append(a))
    assert seen[0][1] == 3 and seen[-1][0] == seen[-1][1]
    seen.clear()
    patches = {f"s{k}": [{"op": "replace", "path": "/channels/0/samples/0/data", "value": [k, k]}]
               for k in (2.0, 5.0, 9.0)}
    hfcore.infer.scan(ws, patches, threads=2, progress=lambda *a: seen.append(a))
    assert sorted(s[0] for s in seen) == [1, 2, 3] and all(s[1:] == (3, "scan") for s in seen)
    seen.clear()
    hfcore.infer.hypotest(1.0, data, model, calctype="toybased", ntoys=200, track_progress=lambda *a: seen.append(a))
    assert seen and seen[-1][0] == seen[-1][1] == 400  # signal- and background-like toys


def test_progress_quiet_off_a_terminal(example, capfd):
    _, model, data = example
    diagnostics.ranking(data, model)  # default: a bar only when stderr is a terminal (it is not here)
    hfcore.infer.hypotest(1.0, data, model, calctype="toybased", ntoys=100)
    assert capfd.readouterr().err == ""
    from hfcore.progress import Progress

    bar = Progress("test")
    bar._tqdm = None  # the plain bar, without tqdm
    for i in range(4):
        bar(i + 1, 4, "fits")
    bar.close()
    err = capfd.readouterr().err
    assert "test: fits: 100%" in err and "4/4" in err


# --- the docs ------------------------------------------------------------------------------------------------

def test_docs_show_every_plot_and_its_command():
    """docs/plots.md shows the images scripts/make-plot-images.sh makes, with the commands it runs."""
    doc = (ROOT / "docs" / "plots.md").read_text()
    script = (ROOT / "scripts" / "make-plot-images.sh").read_text()
    commands = [line.strip() for line in script.splitlines() if line.strip().startswith(("hfcore ", "hfcore-plot "))]
    assert len([c for c in commands if c.startswith("hfcore-plot ")]) >= 7
    for c in commands:
        assert c in doc, f"docs/plots.md does not show: {c}"
    for kind in ("brazil", "contour", "pulls", "ranking", "breakdown", "yields", "corr", "profile"):
        assert f"hfcore-plot {kind} " in doc
    for image in sorted(set(re.findall(r"\(images/([\w.-]+\.png)\)", doc))):
        assert (ROOT / "docs" / "images" / image).is_file(), image
