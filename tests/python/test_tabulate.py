"""hfcore.tabulate.yields against cabinetry 0.6.0's tabulate.yields (tests/reference/yield_tables/example.json, made
by tests/reference/make_yield_table_fixtures.py): the cells of its per-bin and per-channel rows, pre-fit and
post-fit (cabinetry's own fit fed through hfcore.infer.diagnostics.yields' propagation via a saved result), the
formats, and bad input."""

import csv
import io
import json

import pytest

import hfcore
import hfcore.tabulate
from hfcore.infer import diagnostics

from conftest import REFERENCE, ROOT

FIXTURE = REFERENCE / "yield_tables" / "example.json"


@pytest.fixture(scope="module")
def example():
    ws = hfcore.Workspace(json.loads((ROOT / "examples" / "workspaces" / "example.json").read_text()))
    model = ws.model()
    return model, ws.data(model), json.loads(FIXTURE.read_text())


def cells(text):
    """{(table title, row name, column header): cell} of a markdown document."""
    out, title, header = {}, None, None
    for line in text.splitlines():
        if line.startswith("**"):
            title, header = line.strip("*"), None
        elif line.startswith("| :---"):
            continue
        elif line.startswith("|"):
            row = [c.strip() for c in line.strip("|").split("|")]
            if header is None:
                header = row
            else:
                out.update({(title, row[0], h): c for h, c in zip(header[1:], row[1:])})
    return out


def test_prefit_cells_equal_cabinetry(example):
    model, data, ref = example
    got = cells(hfcore.tabulate.yields(data, model, table_format="markdown"))
    n = 0
    for row in ref["prefit"]["tables"]["per_bin"]:
        for key, cell in row.items():
            if key == "sample":
                continue
            channel, b = key.split("\nbin ")
            assert got[(f"{channel} (pre-fit)", row["sample"], f"bin {b}")] == cell
            n += 1
    for row in ref["prefit"]["tables"]["per_channel"]:
        for channel, cell in row.items():
            if channel != "sample":
                assert got[("all channels, summed over bins (pre-fit)", row["sample"], channel)] == cell
                n += 1
    assert n > 20


def test_csv_numbers_match_cabinetry_to_1e6(example):
    model, data, ref = example
    rows = list(csv.DictReader(io.StringIO(hfcore.tabulate.yields(data, model, table_format="csv"))))
    assert rows and set(rows[0]) == {"channel", "bin", "row", "yield", "stdev"}
    by = {(r["channel"], r["bin"], r["row"]): r for r in rows}
    for ch in ref["prefit"]["yields"]:
        for s in ch["samples"]:
            for b, (y, sd) in enumerate(zip(s["yields"], s["stdev"])):
                r = by[(ch["name"], str(b + 1), s["name"])]
                assert float(r["yield"]) == pytest.approx(y, rel=1e-6, abs=1e-9)
                assert float(r["stdev"]) == pytest.approx(sd, rel=1e-6, abs=1e-9)
            r = by[(ch["name"], "sum", s["name"])]
            assert float(r["stdev"]) == pytest.approx(s["channel_sum_stdev"], rel=1e-6, abs=1e-9)
        r = by[(ch["name"], "sum", "total")]
        assert float(r["yield"]) == pytest.approx(ch["channel_total"], rel=1e-6)
        assert float(r["stdev"]) == pytest.approx(ch["channel_total_stdev"], rel=1e-6)
        assert float(by[(ch["name"], "1", "data")]["yield"]) == ch["data"][0]


def test_saved_result_and_formats(example, tmp_path):
    model, data, _ = example
    result = diagnostics.yields(data, model, postfit=True)
    path = tmp_path / "yields.json"
    path.write_text(json.dumps(result))
    text = hfcore.tabulate.yields(str(path))
    assert text == hfcore.tabulate.yields(result)
    assert "SR (post-fit)" in text and "data / model" in text
    latex = hfcore.tabulate.yields(result, table_format="latex", digits=3)
    assert "\\begin{tabular}" in latex and "$\\pm$" in latex and "CR\\_top" in latex
    blinded = hfcore.tabulate.yields(result, blinded_channels=["SR"])
    assert "blinded: the data of SR are not shown" in blinded


def test_bad_input(example):
    model, data, _ = example
    result = diagnostics.yields(data, model)
    with pytest.raises(ValueError, match="table_format"):
        hfcore.tabulate.yields(result, table_format="html")
    broken = json.loads(json.dumps(result))
    del broken["channels"][0]["samples"][0]["stdev"]
    with pytest.raises(ValueError, match=r"channels\[0\]\.samples\[0\].*stdev"):
        hfcore.tabulate.yields(broken)
    with pytest.raises(TypeError):
        hfcore.tabulate.yields(42)


def test_blinded_result_tables_and_plot(example):
    """A result of `hfcore yields --blind SR` (the SR data written as "blinded"): the tables say so and show no
    SR data, and the yields plot draws without them."""
    import matplotlib

    matplotlib.use("Agg")
    from hfcore import plot

    model, data, _ = example
    result = diagnostics.yields(data, model)
    sr = next(c for c in result["channels"] if c["name"] == "SR")
    observed = list(sr["data"])
    sr["data"] = "blinded"
    text = hfcore.tabulate.yields(result)
    assert "blinded: the data of SR are not shown" in text
    assert f"{observed[0]:.2f}" not in text and f"{sum(observed):.2f}" not in text
    fig = plot.yields(result)
    assert fig.axes
    matplotlib.pyplot.close(fig)
