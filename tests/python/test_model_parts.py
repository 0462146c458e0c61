"""model.main_model, model.constraint_model and model.fullpdf_tv against pyhf's: per-sample expected yields
(from hfcore's engine), each part's logpdf, their sum equal to model.logpdf, batched shapes, and the
config/param_set attributes cabinetry reads."""

import numpy as np
import pytest

from conftest import ROOT, load, needs_shared, validation_cases
from test_model import both_models, random_points

pytestmark = needs_shared

CASES = validation_cases()


@pytest.mark.parametrize("name", CASES)
def test_expected_data_by_sample(pyhf, name):
    m_p, m_h, _, _ = both_models(pyhf, name)
    assert m_h.config.samples == m_p.config.samples
    for pars in random_points(m_p, 3):
        want = np.asarray(m_p.main_model.expected_data(pars, return_by_sample=True))
        got = m_h.main_model.expected_data(pars, return_by_sample=True)
        assert got.shape == want.shape == (len(m_p.config.samples), m_p.config.nmaindata)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(m_h.main_model.expected_data(pars), m_p.main_model.expected_data(pars),
                                   rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(got.sum(axis=0), m_h.expected_actualdata(pars), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", CASES)
def test_logpdf_parts(pyhf, name):
    m_p, m_h, d_p, _ = both_models(pyhf, name)
    data = np.asarray(d_p, dtype=float)
    parts_p = m_p.fullpdf_tv.split(pyhf.tensorlib.astensor(data))
    parts_h = m_h.fullpdf_tv.split(data)
    assert len(parts_h) == len(parts_p)  # no auxiliary part without constraint terms, as pyhf
    for h, p in zip(parts_h, parts_p):
        np.testing.assert_array_equal(h, p)
    np.testing.assert_array_equal(m_h.fullpdf_tv.stitch(parts_h), data)
    main_p, main_h = parts_p[0], parts_h[0]
    aux_p = aux_h = data[m_h.config.nmaindata:]
    for pars in random_points(m_p, 3):
        main = float(m_h.main_model.logpdf(main_h, pars))
        constraint = float(m_h.constraint_model.logpdf(aux_h, pars))
        np.testing.assert_allclose(main, float(m_p.main_model.logpdf(main_p, pars)), rtol=1e-11)
        assert m_h.constraint_model.has_pdf() == m_p.constraint_model.has_pdf()
        if m_p.constraint_model.has_pdf():  # pyhf's raises without constraint terms; hfcore's gives 0
            np.testing.assert_allclose(constraint, float(m_p.constraint_model.logpdf(aux_p, pars)), rtol=1e-11,
                                       atol=1e-11)
        else:
            assert constraint == 0.0
        np.testing.assert_allclose(float(m_h.constraint_logpdf(aux_h, pars)), constraint, rtol=1e-15)
        np.testing.assert_allclose(main + constraint, float(m_h.logpdf(pars, data)[0]), rtol=1e-11)


def test_batched_shapes_and_poisson_factors(pyhf):
    """[K, P] pars give pyhf's batched shapes ([K, S, N], [K]); the Poisson constraints' rate factors (what
    cabinetry rescales shapesys auxdata with) are pyhf's, and absent, as in pyhf, without Poisson terms."""
    m_p, m_h, d_p, _ = both_models(pyhf, "1bin_shapesys")
    pts = random_points(m_p, 4)
    by_sample = m_h.main_model.expected_data(pts, return_by_sample=True)
    assert by_sample.shape == (4, len(m_h.config.samples), m_h.config.nmaindata)
    for k in range(4):
        np.testing.assert_allclose(by_sample[k], m_h.main_model.expected_data(pts[k], return_by_sample=True),
                                   rtol=1e-14)
    main, aux = m_h.fullpdf_tv.split(np.asarray(d_p, dtype=float))
    assert m_h.main_model.logpdf(main, pts).shape == (4,)
    assert m_h.constraint_model.logpdf(aux, pts).shape == (4,)
    np.testing.assert_allclose(m_h.constraint_model.constraints_poisson.batched_factors,
                               m_p.constraint_model.constraints_poisson.batched_factors, rtol=1e-15)
    _, m_h2, _, _ = both_models(pyhf, "2bin_histosys")
    assert not hasattr(m_h2.constraint_model.constraints_poisson, "batched_factors")
    assert m_h2.constraint_model.has_pdf() and m_h2.main_model.has_pdf()


def test_config_surface_cabinetry_reads(pyhf):
    spec = load(ROOT / "examples" / "workspaces" / "example.json")
    m_p, m_h = pyhf.Workspace(spec).model(), __import__("hfcore").Workspace(spec).model()
    c_p, c_h = m_p.config, m_h.config
    assert c_h.modifier_settings == c_p.modifier_settings
    assert dict(c_h.modifiers) == dict(c_p.modifiers)
    assert c_h.par_map.keys() == c_p.par_map.keys()
    for name in c_p.par_order:
        assert c_h.par_map[name]["slice"] == c_p.par_map[name]["slice"]
        ps_p, ps_h = c_p.param_set(name), c_h.param_set(name)
        for attr in ("n_parameters", "constrained", "suggested_init", "suggested_bounds", "suggested_fixed",
                     "is_scalar"):
            assert np.asarray(getattr(ps_h, attr)).tolist() == np.asarray(getattr(ps_p, attr)).tolist(), attr
        if ps_p.constrained:
            assert ps_h.pdf_type == ps_p.pdf_type
            np.testing.assert_allclose(ps_h.width(), ps_p.width(), rtol=1e-15)
            np.testing.assert_allclose(ps_h.auxdata, ps_p.auxdata, rtol=1e-15)
