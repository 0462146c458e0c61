"""hfcore.infer on a model written in Python (not an hfcore.Model): the scipy fallback of infer/_python_models.py.

The model below is a one-bin counting experiment with a Poisson-constrained background scale, which is the
likelihood of hfcore's simplemodels.uncorrelated_background([5], [50], [7]) (a shapesys): the fallback must give
the engine's numbers on the equivalent HistFactory model.
"""

import numpy as np
import pytest

import hfcore


class _Config:
    poi_index = 0
    npars = 2

    def suggested_init(self):
        return [1.0, 1.0]

    def suggested_bounds(self):
        return [[0.0, 10.0], [0.0, 10.0]]

    def suggested_fixed(self):
        return [False, False]


class CountingModel:
    signal, background, uncertainty = 5.0, 50.0, 7.0
    tau = (background / uncertainty) ** 2  # the constraint's Poisson scale, as HistFactory's shapesys

    def __init__(self):
        self.config = _Config()

    def expected_data(self, pars, include_auxdata=True):
        mu, gamma = pars
        main = [gamma * self.background + mu * self.signal]
        return np.asarray(main + [gamma * self.tau] if include_auxdata else main)

    def logpdf(self, pars, data):
        mu, gamma = pars
        main = hfcore.probability.Poisson(gamma * self.background + mu * self.signal).log_prob(data[0])
        aux = hfcore.probability.Poisson(gamma * self.tau).log_prob(data[1])
        return np.asarray([main + aux])


@pytest.fixture
def models():
    py = CountingModel()
    engine = hfcore.simplemodels.uncorrelated_background([5.0], [50.0], [7.0])
    data = [52.0, py.tau * 1.02]
    return py, engine, data


def test_fits_match_engine(models):
    py, engine, data = models
    x_py, nll_py = hfcore.infer.mle.fit(data, py, return_fitted_val=True)
    x_e, nll_e = hfcore.infer.mle.fit(data, engine, return_fitted_val=True)
    np.testing.assert_allclose(x_py, x_e, rtol=1e-5, atol=1e-6)
    assert float(nll_py) == pytest.approx(float(nll_e), rel=1e-10)
    x_py, nll_py = hfcore.infer.mle.fixed_poi_fit(2.0, data, py, return_fitted_val=True)
    x_e, nll_e = hfcore.infer.mle.fixed_poi_fit(2.0, data, engine, return_fitted_val=True)
    assert x_py[0] == 2.0
    np.testing.assert_allclose(x_py, x_e, rtol=1e-5)
    assert float(nll_py) == pytest.approx(float(nll_e), rel=1e-10)
    with pytest.raises(hfcore.exceptions.Unsupported, match="CountingModel"):
        hfcore.infer.mle.fit(data, py, return_uncertainties=True)


@pytest.mark.parametrize("name", ["q0", "qmu", "qmu_tilde", "tmu", "tmu_tilde"])
def test_statistics_match_engine(models, name):
    py, engine, data = models
    stat = getattr(hfcore.infer.test_statistics, name)
    mu = 0.0 if name == "q0" else 1.5
    args = ([1.0, 1.0], [[0.0, 10.0], [0.0, 10.0]], [False, False])
    v_py, (fixed_py, free_py) = stat(mu, data, py, *args, return_fitted_pars=True)
    v_e = stat(mu, data, engine, *args)
    assert float(v_py) == pytest.approx(float(v_e), rel=1e-6, abs=1e-9)
    assert fixed_py[0] == mu and free_py.shape == (2,)


@pytest.mark.parametrize("test_stat", ["qtilde", "q", "q0"])
def test_hypotest_matches_engine(models, test_stat):
    py, engine, data = models
    poi = 0.0 if test_stat == "q0" else 1.0
    kw = dict(test_stat=test_stat, return_tail_probs=True, return_expected_set=True)
    obs_py, tails_py, band_py = hfcore.infer.hypotest(poi, data, py, **kw)
    obs_e, tails_e, band_e = hfcore.infer.hypotest(poi, data, engine, **kw)
    assert float(obs_py) == pytest.approx(float(obs_e), rel=1e-6)
    np.testing.assert_allclose(np.array(tails_py, dtype=float), np.array(tails_e, dtype=float), rtol=1e-6)
    np.testing.assert_allclose(np.array(band_py, dtype=float), np.array(band_e, dtype=float), rtol=1e-6)
    cls, calc = hfcore.infer.hypotest(poi, data, py, test_stat=test_stat, return_calculator=True)
    assert isinstance(calc, hfcore.infer.calculators.AsymptoticCalculator) and float(cls) == float(obs_py)


def test_upper_limits_match_engine(models):
    """The limits of a Python model: scipy's TOMS 748 with pyhf's bracketing, and pyhf's grid interpolation;
    the engine's root finder on the equivalent HistFactory model finds the same roots."""
    py, engine, data = models
    limits = hfcore.infer.intervals.upper_limits
    obs_py, exp_py, (tested, results) = limits.upper_limit(data, py, rtol=1e-9, return_results=True)
    obs_e, exp_e = limits.upper_limit(data, engine, rtol=1e-9)
    assert float(obs_py) == pytest.approx(float(obs_e), rel=1e-6)
    np.testing.assert_allclose(np.array(exp_py, dtype=float), np.array(exp_e, dtype=float), rtol=1e-6)
    assert len(tested) == len(results) and len(results[0][1]) == 5
    cls_at_limit = hfcore.infer.hypotest(float(obs_py), data, py)
    assert float(cls_at_limit) == pytest.approx(0.05, rel=1e-6)
    scan = np.linspace(0.0, 10.0, 11)
    grid_py = limits.upper_limit(data, py, scan=scan)
    grid_e = limits.upper_limit(data, engine, scan=scan)
    np.testing.assert_allclose(np.array([grid_py[0]] + list(grid_py[1]), dtype=float),
                               np.array([grid_e[0]] + list(grid_e[1]), dtype=float), rtol=1e-6)
