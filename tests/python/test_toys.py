"""hfcore.infer.toys.fit_toys: per-toy arrays with the columns of ``hfcore toys --per-toy`` (the same numbers as
the command's .npz when its binary is found), the same toys for a seed on any number of threads, pulls of a
regular two-bin model with mean 0 and width 1 within their errors, and bad options as InvalidFitInput."""

import json
import subprocess

import numpy as np
import pytest

import hfcore
from hfcore.infer.toys import fit_toys

from conftest import ROOT
from test_plot import hfcore_cli

# The model of tests/reference/analysis/toy_study_pyhf.json (pyhf's study of it, made offline).
REFERENCE = ROOT / "tests" / "reference" / "analysis" / "toy_study_pyhf.json"


@pytest.fixture(scope="module")
def small():
    spec = json.loads(REFERENCE.read_text())["workspace"]
    ws = hfcore.Workspace(spec)
    model = ws.model()
    return spec, model, ws.data(model)


def test_columns_and_summary(small):
    _, model, data = small
    r = fit_toys(data, model, poi_values=[1.0, 2.0], ntoys=300, seed=3, toy_batch=100)
    n, p = 600, len(model.config.par_names)
    assert r["parameter_names"] == model.config.par_names
    for key in ("truth", "bestfit", "uncertainties", "pull"):
        assert r[key].shape == (n, p) and r[key].dtype == np.float64
    for key in ("poi_true", "twice_nll"):
        assert r[key].shape == (n,)
    assert r["toy"].dtype == np.int64 and list(r["toy"][298:302]) == [298, 299, 0, 1]
    assert r["converged"].dtype == bool and r["converged"].all() and r["hessian_ok"].all()
    assert list(np.unique(r["poi_true"])) == [1.0, 2.0]
    np.testing.assert_allclose(r["pull"], (r["bestfit"] - r["truth"]) / r["uncertainties"], rtol=1e-15)
    poi = model.config.poi_index
    points = r["summary"]["points"]
    assert [q["poi_value"] for q in points] == [1.0, 2.0]
    # The summary's statistics are those of the arrays.
    at1 = r["poi_true"] == 1.0
    s = points[0]["parameters"][poi]
    assert s["bias"] == pytest.approx(np.mean(r["bestfit"][at1, poi]) - 1.0, abs=1e-12)
    assert s["pull_width"] == pytest.approx(np.std(r["pull"][at1, poi], ddof=1), rel=1e-12)
    assert abs(s["pull_mean"]) < 3 * s["pull_mean_error"]
    assert abs(s["pull_width"] - 1) < 3 * s["pull_width_error"]
    inside = np.abs(r["bestfit"][at1, poi] - 1.0) <= r["uncertainties"][at1, poi]
    assert points[0]["poi_coverage"]["68"]["fraction"] == pytest.approx(inside.mean(), abs=1e-15)
    assert r["summary"]["linearity"]["defined"]


def test_same_seed_same_toys_on_any_threads(small):
    _, model, data = small
    a = fit_toys(data, model, poi_values=[1.5], ntoys=200, seed=8, toy_batch=40)
    b = fit_toys(data, model, poi_values=[1.5], ntoys=200, seed=8, toy_batch=40, threads=2)
    c = fit_toys(data, model, poi_values=[1.5], ntoys=200, seed=9, toy_batch=40)
    for key in ("bestfit", "uncertainties", "twice_nll"):
        np.testing.assert_array_equal(a[key], b[key])
    assert not np.array_equal(a["bestfit"], c["bestfit"])


def test_same_numbers_as_the_command(small, tmp_path):
    cli = hfcore_cli()
    if cli is None:
        pytest.fail("the hfcore command is needed (build/*/bin/hfcore, $HFCORE_CLI or PATH)")
    spec, model, data = small
    (tmp_path / "ws.json").write_text(json.dumps(spec))
    subprocess.run([cli, "toys", str(tmp_path / "ws.json"), "--ntoys", "50", "--mu-true", "0.5,1", "--seed", "4",
                    "--per-toy", str(tmp_path / "t.npz"), "--output-file", str(tmp_path / "t.json")], check=True)
    z = np.load(tmp_path / "t.npz", allow_pickle=False)
    r = fit_toys(data, model, poi_values=[0.5, 1.0], ntoys=50, seed=4)
    assert sorted(z.files) == sorted(k for k in r if k != "summary")
    assert list(z["parameter_names"]) == r["parameter_names"]
    for key in z.files:
        if key != "parameter_names":
            np.testing.assert_array_equal(z[key], r[key], err_msg=key)
    assert json.loads((tmp_path / "t.json").read_text())["points"] == r["summary"]["points"]


def test_bad_options(small):
    _, model, data = small
    with pytest.raises(hfcore.exceptions.InvalidFitInput, match=r"poi_values\[1\].*outside its bounds"):
        fit_toys(data, model, poi_values=[1.0, 20.0], ntoys=10)
    with pytest.raises(hfcore.exceptions.InvalidFitInput, match="ntoys"):
        fit_toys(data, model, ntoys=1)
    with pytest.raises(hfcore.exceptions.InvalidFitInput, match="nominal, fitted"):
        fit_toys(data, model, nuisance="observed")
    with pytest.raises(hfcore.exceptions.InvalidFitInput, match="sampled, fixed"):
        fit_toys(data, model, aux="thrown")


def test_plots(small, tmp_path):
    pytest.importorskip("matplotlib", reason="hfcore.plot needs the plot extra: pip install 'hfcore[plot]'")
    from hfcore import plot
    from test_plot import hfcore_plot, png

    _, model, data = small
    summary = fit_toys(data, model, poi_values=[0.5, 1.0, 2.0], ntoys=200, seed=1)["summary"]
    (tmp_path / "toys.json").write_text(json.dumps(summary))
    fig = plot.pulls_toys(summary, poi_value=1.0)
    assert fig._hfcore_rows == model.config.par_names  # every parameter has pulls here
    assert len(fig.axes[0].containers) == 2  # the widths and the means
    fig = plot.linearity(summary)
    points = fig.axes[0].containers[0]
    assert len(points.lines[0].get_xdata()) == 3
    for kind in ("pulls-toys", "linearity"):
        r = hfcore_plot(kind, tmp_path / "toys.json", "-o", tmp_path / f"{kind}.png")
        assert r.returncode == 0, r.stderr
        png(tmp_path / f"{kind}.png")
    r = hfcore_plot("pulls-toys", tmp_path / "toys.json", "--poi-value", "7", "-o", tmp_path / "x.png")
    assert r.returncode == 2 and "no toys at POI = 7" in r.stderr
    one = fit_toys(data, model, poi_values=[1.0], ntoys=20)["summary"]
    with pytest.raises(plot.PlotInputError, match="two injected POI values"):
        plot.linearity(one)
    with pytest.raises(plot.PlotInputError, match="hfcore toys"):
        plot.linearity({"parameters": [], "twice_nll": 1.0})
