"""hfcore.optimize: pyhf's optimizer objects chosen with set_backend, and what a fit hands back under them (the
result object's fields; under minuit_optimizer an iminuit.Minuit at hfcore's minimum, with MINOS)."""

import sys

import numpy as np
import pytest

import hfcore

from conftest import case, needs_shared

pytestmark = needs_shared


@pytest.fixture
def restore_optimizer():
    _, before = hfcore.get_backend()
    yield
    hfcore.set_backend(hfcore.tensorlib, before)


def test_optimizer_objects(restore_optimizer):
    opt = hfcore.optimize.minuit_optimizer(verbose=1, strategy=2, tolerance=1e-3, errordef=0.5)
    assert (opt.name, opt.verbose, opt.strategy, opt.tolerance, opt.errordef) == ("minuit", 1, 2, 1e-3, 0.5)
    hfcore.set_backend(hfcore.tensorlib, opt)
    assert hfcore.get_backend()[1] is opt and hfcore.optimizer is opt
    hfcore.set_backend("numpy", "scipy")
    assert hfcore.get_backend()[1].name == "scipy"
    assert hfcore.optimize.scipy_optimizer(tolerance=1e-6).tolerance == 1e-6
    with pytest.raises(hfcore.exceptions.Unsupported, match="bogus"):
        hfcore.optimize.minuit_optimizer(bogus=1)
    with pytest.raises(hfcore.exceptions.InvalidOptimizer):
        hfcore.set_backend("numpy", "nlopt")

    class Named:
        def __init__(self, name):
            self.name = name

    with pytest.raises(AttributeError, match="should be of type"):  # pyhf's check: "scipy" must be its class
        hfcore.set_backend(hfcore.tensorlib, Named("scipy"))
    mine = Named("mine")
    hfcore.set_backend(hfcore.tensorlib, mine)
    assert hfcore.optimizer is mine


def _fit(model, data, **kw):
    return hfcore.infer.mle.fit(data, model, return_uncertainties=True, return_correlations=True,
                                return_fitted_val=True, return_result_obj=True, **kw)


@pytest.mark.parametrize("optimizer", ["scipy", "minuit"])
def test_result_object_fields(restore_optimizer, optimizer):
    spec, _, codes = case("2bin_2channel_coupledhistosys")
    ws = hfcore.Workspace(spec)
    model = ws.model(modifier_settings=codes)
    data = ws.data(model)
    hfcore.set_backend(hfcore.tensorlib, optimizer)
    x, corr, twice_nll, res = _fit(model, data)
    np.testing.assert_array_equal(res.x, x[:, 0])
    np.testing.assert_array_equal(res.unc, x[:, 1])
    np.testing.assert_array_equal(res.corr, corr)
    assert float(res.fun) == float(twice_nll) and res.success and res.nfev > 0 and res.message
    assert (res.minuit is not None) == (optimizer == "minuit")
    # scipy: the uncertainties are the Hessian's; minuit: Minuit's errors of that same covariance.
    errors = np.sqrt(np.diag(res.hess_inv))
    if optimizer == "minuit":
        np.testing.assert_array_equal(x[:, 1], np.array(res.minuit.errors))
        errors = np.sqrt(np.diag(np.array(res.minuit.covariance)))
    np.testing.assert_allclose(errors, np.sqrt(np.diag(res.hess_inv)), rtol=1e-9)
    if optimizer == "scipy":
        np.testing.assert_allclose(x[:, 1], errors, rtol=1e-12)
        from scipy.optimize import OptimizeResult

        assert isinstance(res, OptimizeResult)


@pytest.mark.parametrize("name,library,error", [("scipy_optimizer", "scipy", ImportError),
                                                ("minuit_optimizer", "iminuit", hfcore.exceptions.ImportBackendError)])
def test_optimizer_names_resolve_on_use(monkeypatch, name, library, error):
    """As pyhf's: each name checks its library whenever it is used (it is not a module global)."""
    assert name not in vars(hfcore.optimize)
    assert getattr(hfcore.optimize, name)().name == name.split("_")[0]
    monkeypatch.setitem(sys.modules, library, None)
    with pytest.raises(error):
        getattr(hfcore.optimize, name)
    with pytest.raises(error):
        hfcore.optimize.by_name(name.split("_")[0])


def test_minuit_at_hfcore_minimum(restore_optimizer):
    """The Minuit object sits at hfcore's minimum with hfcore's covariance, valid, and MINOS runs from there:
    its interval brackets the best fit, and on a near-parabolic POI it matches the Hessian error to 2%."""
    spec, _, codes = case("2bin_2channel_coupledhistosys")
    ws = hfcore.Workspace(spec)
    model = ws.model(modifier_settings=codes)
    data = ws.data(model)
    hfcore.set_backend(hfcore.tensorlib, hfcore.optimize.minuit_optimizer(strategy=2, tolerance=1e-4))
    x, corr, twice_nll, res = _fit(model, data)
    m = res.minuit
    assert m.fmin.is_valid and m.valid and m.fmin.fval == pytest.approx(float(twice_nll), abs=1e-9)
    assert m.strategy.strategy == 2 and m.tol == 1e-4
    assert list(m.parameters) == model.config.par_names
    np.testing.assert_allclose(np.array(m.values), x[:, 0], rtol=0, atol=1e-12)
    free = ~np.array(m.fixed)
    np.testing.assert_allclose(np.array(m.covariance), res.hess_inv, rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(np.array(m.covariance.correlation())[np.ix_(free, free)],
                               corr[np.ix_(free, free)], atol=1e-9)
    poi = model.config.poi_name
    m.minos(poi)
    lo, hi = m.merrors[poi].lower, m.merrors[poi].upper
    assert m.merrors[poi].is_valid and lo < 0 < hi
    unc = x[model.config.poi_index, 1]
    assert abs(-lo / unc - 1) < 0.2 and abs(hi / unc - 1) < 0.2
    # A fit with the POI fixed hands back a Minuit with the POI fixed.
    _, _, _, res0 = hfcore.infer.mle.fixed_poi_fit(0.5, data, model, return_uncertainties=True,
                                                   return_correlations=True, return_fitted_val=True,
                                                   return_result_obj=True)
    assert res0.minuit.fixed[poi] and res0.minuit.values[poi] == 0.5


def test_minos_matches_pyhf(restore_optimizer, pyhf):
    """MINOS from hfcore's Minuit and from pyhf's (strategy 2, tolerance 1e-4) agree to 1e-4 (on a model where
    pyhf's Migrad reaches the global minimum: on 2bin_2channel_coupledhistosys it stops in the other basin)."""
    spec, _, codes = case("2bin_2channel")
    poi = "mu"
    hfcore.set_backend(hfcore.tensorlib, hfcore.optimize.minuit_optimizer(strategy=2, tolerance=1e-4))
    ws = hfcore.Workspace(spec)
    model = ws.model(modifier_settings=codes)
    m_h = _fit(model, ws.data(model))[-1].minuit
    m_h.minos(poi)
    _, before = pyhf.get_backend()
    pyhf.set_backend("numpy", pyhf.optimize.minuit_optimizer(strategy=2, tolerance=1e-4))
    try:
        ws_p = pyhf.Workspace(spec)
        model_p = ws_p.model(modifier_settings=codes)
        m_p = pyhf.infer.mle.fit(ws_p.data(model_p), model_p, return_result_obj=True)[-1].minuit
        m_p.minos(poi)
    finally:
        pyhf.set_backend("numpy", before)
    assert m_h.values[poi] == pytest.approx(m_p.values[poi], abs=1e-4)
    assert m_h.merrors[poi].lower == pytest.approx(m_p.merrors[poi].lower, abs=1e-4)
    assert m_h.merrors[poi].upper == pytest.approx(m_p.merrors[poi].upper, abs=1e-4)


def test_minuit_at_a_minimum_on_a_limit(restore_optimizer):
    """sbottom region A: the POI's best fit is on its lower bound (0), with the slope still pointing out. The
    Minuit handed back is valid there (a Migrad from hfcore's point finishes what Minuit's limit transform
    leaves), stays at hfcore's point, and MINOS runs (its lower error stops at the bound)."""
    spec, _, codes = case("sbottom_regionA_1300_205_60")
    ws = hfcore.Workspace(spec)
    model = ws.model(modifier_settings=codes)
    hfcore.set_backend(hfcore.tensorlib, hfcore.optimize.minuit_optimizer(strategy=2, tolerance=1e-4))
    x, res = hfcore.infer.mle.fit(ws.data(model), model, return_uncertainties=True, return_result_obj=True)
    poi = model.config.poi_name
    i = model.config.poi_index
    assert x[i, 0] == 0.0
    m = res.minuit
    assert m.valid and m.fmin.has_parameters_at_limit
    np.testing.assert_allclose(np.array(m.values), x[:, 0], atol=1e-4)
    assert m.fmin.fval == pytest.approx(float(res.fun), abs=1e-6)
    m.minos(poi)
    assert m.merrors[poi].upper > 0.3 * x[i, 1] and m.merrors[poi].lower == pytest.approx(-m.values[poi], abs=1e-6)
