"""hfcore.Model against pyhf.Model: config, logpdf (1e-12 relative), batched logpdf, expected data, gradient."""

import numpy as np
import pytest

import hfcore

from conftest import ERJR, EXAMPLES, REFERENCE, case, erjr_points, load, needs_shared, rel, validation_cases

pytestmark = needs_shared


def both_models(pyhf, name):
    spec, _, codes = case(name)
    ws_p, ws_h = pyhf.Workspace(spec), hfcore.Workspace(spec)
    m_p = ws_p.model(modifier_settings=codes)
    m_h = ws_h.model(modifier_settings=codes)
    return m_p, m_h, ws_p.data(m_p), ws_h.data(m_h)


def random_points(model, k, seed=7):
    """k points around the suggested init, within the bounds (1-sigma-ish moves)."""
    rng = np.random.default_rng(seed)
    init = np.asarray(model.config.suggested_init(), dtype=float)
    bounds = np.asarray(model.config.suggested_bounds(), dtype=float)
    pts = init + rng.normal(0.0, 0.3, size=(k, init.size)) * np.minimum(1.0, (bounds[:, 1] - bounds[:, 0]) / 4)
    return np.clip(pts, bounds[:, 0] + 1e-9, bounds[:, 1])


@pytest.mark.parametrize("name", validation_cases())
def test_config_matches_pyhf(pyhf, name):
    m_p, m_h, d_p, d_h = both_models(pyhf, name)
    c_p, c_h = m_p.config, m_h.config
    assert c_h.par_order == c_p.par_order
    assert c_h.par_names == c_p.par_names
    assert c_h.npars == c_p.npars
    assert c_h.poi_name == c_p.poi_name and c_h.poi_index == c_p.poi_index
    assert c_h.suggested_init() == c_p.suggested_init()
    assert [tuple(b) for b in c_h.suggested_bounds()] == [tuple(b) for b in c_p.suggested_bounds()]
    assert c_h.suggested_fixed() == c_p.suggested_fixed()
    assert c_h.auxdata == c_p.auxdata
    assert c_h.auxdata_order == c_p.auxdata_order
    assert c_h.channels == c_p.channels and c_h.samples == c_p.samples
    assert c_h.modifiers == c_p.modifiers
    assert c_h.channel_nbins == c_p.channel_nbins
    assert c_h.channel_slices == c_p.channel_slices
    assert c_h.nmaindata == c_p.nmaindata and c_h.nauxdata == c_p.nauxdata
    assert c_h.parameters == c_p.parameters
    for p in c_p.par_order:
        assert c_h.par_slice(p) == c_p.par_slice(p)
        assert c_h.param_set(p).n_parameters == c_p.param_set(p).n_parameters
        assert c_h.param_set(p).constrained == c_p.param_set(p).constrained
    assert d_h == d_p
    assert isinstance(d_h, list)


@pytest.mark.parametrize("name", validation_cases())
def test_logpdf_matches_pyhf(pyhf, name):
    m_p, m_h, d_p, _ = both_models(pyhf, name)
    data = np.asarray(d_p)
    points = np.vstack([np.asarray(m_p.config.suggested_init()), random_points(m_p, 5)])
    for pars in points:
        lp_p = m_p.logpdf(pars, data)
        lp_h = m_h.logpdf(pars, data)
        assert lp_h.shape == lp_p.shape == (1,)
        assert rel(lp_h, lp_p) < 1e-12
        # lists in, as pyhf users write them
        assert rel(m_h.logpdf(list(pars), list(d_p)), lp_p) < 1e-12
        if m_p.config.nauxdata == 0:  # pyhf fails an index here; hfcore gives an empty array
            assert m_h.expected_auxdata(pars).shape == (0,)
        for what in ("expected_data", "expected_actualdata", "expected_auxdata")[: 3 if m_p.config.nauxdata else 2]:
            e_p = np.asarray(getattr(m_p, what)(pars))
            e_h = getattr(m_h, what)(pars)
            assert e_h.shape == e_p.shape, what
            if e_p.size:
                assert rel(e_h, e_p) < 1e-12, what
        assert rel(m_h.expected_data(pars, include_auxdata=False), m_p.expected_data(pars, include_auxdata=False)) < 1e-12


@pytest.mark.parametrize("name", validation_cases())
def test_batched_logpdf(pyhf, name):
    """[K, P] parameters in one call equal K single calls, with shared data and with one data row per point."""
    m_p, m_h, d_p, _ = both_models(pyhf, name)
    data = np.asarray(d_p)
    points = random_points(m_p, 8)
    singles = np.array([m_p.logpdf(p, data)[0] for p in points])
    batched = m_h.logpdf(points, data)
    assert batched.shape == (8,)
    assert rel(batched, singles) < 1e-12
    per_row = m_h.logpdf(points, np.tile(data, (8, 1)))
    assert rel(per_row, singles) < 1e-12
    # pyhf's own batched model agrees too
    spec, _, codes = case(name)
    m_pb = pyhf.Workspace(spec).model(modifier_settings=codes, batch_size=8)
    assert rel(batched, m_pb.logpdf(points, np.tile(data, (8, 1)))) < 1e-12
    e = m_h.expected_data(points)
    assert e.shape == (8, data.size)
    assert rel(e[3], m_p.expected_data(points[3])) < 1e-12
    assert m_h.expected_auxdata(points).shape == (8, m_p.config.nauxdata)


@pytest.mark.parametrize("name", ["2bin_histosys", "1bin_shapesys", "2bin_2channel_coupledshapefactor"])
def test_bound_likelihood(pyhf, name):
    """Model.bind(data).logpdf(pars) equals Model.logpdf(pars, data) exactly; two bindings keep their own data."""
    m_p, m_h, d_p, _ = both_models(pyhf, name)
    data = np.asarray(d_p, dtype=float)
    other = data.copy()
    other[: m_p.config.nmaindata] += 3.0
    points = random_points(m_p, 4)
    bound, bound_other = m_h.bind(data), m_h.bind(other)
    for _ in range(2):
        assert np.array_equal(bound.logpdf(points), m_h.logpdf(points, data))
        assert np.array_equal(bound_other.logpdf(points), m_h.logpdf(points, other))
        assert np.array_equal(bound.logpdf(points[0]), m_h.logpdf(points[0], data))
    assert bound.logpdf(points).shape == (4,)
    assert not np.array_equal(bound.logpdf(points), bound_other.logpdf(points))
    rows = m_h.bind(np.vstack([data, other, data, other]))
    assert np.array_equal(rows.logpdf(points), m_h.logpdf(points, np.vstack([data, other, data, other])))
    with pytest.raises(hfcore.exceptions.InvalidPdfData):
        m_h.bind(data[:-1])


@pytest.mark.parametrize("name", ["2bin_histosys", "1bin_shapesys", "2bin_2channel_coupledshapefactor",
                                  "shapesys_nuisparfilter"])
def test_gradient_matches_finite_differences(pyhf, name):
    _, m_h, d_p, _ = both_models(pyhf, name)
    pars = random_points(m_h, 1)[0]
    lp, grad = m_h.logpdf_and_grad(pars, d_p)
    assert lp.shape == (1,) and grad.shape == pars.shape
    assert rel(lp, m_h.logpdf(pars, d_p)) < 1e-14
    h = 1e-6
    for i in range(pars.size):
        up, dn = pars.copy(), pars.copy()
        up[i] += h
        dn[i] -= h
        fd = (m_h.logpdf(up, d_p)[0] - m_h.logpdf(dn, d_p)[0]) / (2 * h)
        assert abs(grad[i] - fd) <= 1e-5 * max(1.0, abs(fd)), (i, grad[i], fd)
    lp_k, grad_k = m_h.logpdf_and_grad(np.vstack([pars, pars]), d_p)
    assert lp_k.shape == (2,) and grad_k.shape == (2, pars.size)
    assert rel(grad_k[1], grad) < 1e-14


def example_workspaces():
    if not (EXAMPLES / "index.json").is_file():
        return []
    index = load(EXAMPLES / "index.json")
    return sorted(p for p, v in index["files"].items() if v["kind"] == "workspace" and v["accepted"])


@pytest.mark.parametrize("path", example_workspaces())
def test_example_workspaces_match_pyhf(pyhf, path):
    spec = load(EXAMPLES / path)
    m_p = pyhf.Workspace(spec).model()
    m_h = hfcore.Workspace(spec).model()
    assert m_h.config.par_names == m_p.config.par_names
    data = pyhf.Workspace(spec).data(m_p)
    assert hfcore.Workspace(spec).data(m_h) == data
    for pars in np.vstack([m_p.config.suggested_init(), random_points(m_p, 3)]):
        assert rel(m_h.logpdf(pars, data), m_p.logpdf(pars, data)) < 1e-12


ERJR_SAMPLE = erjr_points()[::11]  # 6 of the 66 points; the C++ model tests cover all of them


@pytest.mark.parametrize("point", ERJR_SAMPLE)
def test_erjr_logpdf(point):
    """eRJR against pyhf's fixtures (tests/reference/model, made by make_model_fixtures.py): 1e-12 relative to
    the exact likelihood, and to pyhf's own value within its float rounding (up to 2e-3 absolute there)."""
    fixture = load(REFERENCE / "model" / f"erjr_{point}.json")
    ws = hfcore.Workspace(ERJR / "BkgOnly.json")
    model = ws.model(patches=[load(ERJR / f"patch.{point}.json")])
    data = ws.data(model)
    assert model.config.par_names == fixture["par_names"]
    assert data == fixture["data"]
    pars = np.array([p["pars"] for p in fixture["points"]])
    batched = model.logpdf(pars, data)
    for k, p in enumerate(fixture["points"]):
        assert abs(batched[k] - p["logpdf_exact"]) <= 1e-12 * abs(p["logpdf_exact"])
        assert abs(batched[k] - p["logpdf"]) <= 1e-12 * abs(p["logpdf"]) + p["logpdf_pyhf_rounding"]
        assert abs(model.logpdf(p["pars"], data)[0] - batched[k]) <= 1e-12 * abs(batched[k])
        assert rel(model.expected_data(p["pars"]), p["expected_data"]) < 1e-12


def test_model_from_spec_and_poi(pyhf):
    spec = {"channels": [{"name": "c", "samples": [
        {"name": "s", "data": [5.0, 6.0], "modifiers": [{"name": "mu", "type": "normfactor", "data": None}]},
        {"name": "b", "data": [50.0, 60.0], "modifiers": [{"name": "u", "type": "shapesys", "data": [5.0, 7.0]}]}]}]}
    m_h, m_p = hfcore.Model(spec), pyhf.Model(spec)
    assert m_h.config.poi_name == "mu" and m_h.config.poi_index == m_p.config.poi_index
    assert hfcore.Model(spec, poi_name=None).config.poi_index is None
    m_h.config.set_poi(None)
    assert m_h.config.poi_index is None
    m_h.config.set_poi("mu")
    assert m_h.config.poi_index == 0
    s_h = hfcore.simplemodels.uncorrelated_background([5.0, 6.0], [50.0, 60.0], [5.0, 7.0])
    s_p = pyhf.simplemodels.uncorrelated_background([5.0, 6.0], [50.0, 60.0], [5.0, 7.0])
    data = [55.0, 66.0] + s_p.config.auxdata
    assert rel(s_h.logpdf(s_h.config.suggested_init(), data), s_p.logpdf(s_p.config.suggested_init(), data)) < 1e-12
    c_h = hfcore.simplemodels.correlated_background([5.0], [50.0], [55.0], [45.0])
    c_p = pyhf.simplemodels.correlated_background([5.0], [50.0], [55.0], [45.0])
    pars = [0.5, 1.2]
    data = [52.0] + c_p.config.auxdata
    assert rel(c_h.logpdf(pars, data), c_p.logpdf(pars, data)) < 1e-12


def test_param_set_bounds_keep_pyhf_types():
    """pyhf's param_set bounds: a parameter config's bounds stay the lists given, a modifier's defaults are tuples."""
    spec = {"channels": [{"name": "c", "samples": [
        {"name": "s", "data": [5.0, 6.0], "modifiers": [{"name": "mu", "type": "normfactor", "data": None}]},
        {"name": "b", "data": [50.0, 60.0], "modifiers": [{"name": "bkg_norm", "type": "shapesys", "data": [10, 10]}]},
    ]}], "parameters": [{"name": "bkg_norm", "inits": [99, 99], "bounds": [[95, 95], [95, 96]]}]}
    config = hfcore.Model(spec).config
    assert config.param_set("bkg_norm").suggested_bounds == [[95, 95], [95, 96]]
    assert config.param_set("mu").suggested_bounds == [(0, 10)]
    assert config.suggested_bounds() == [(0, 10), [95, 95], [95, 96]]
