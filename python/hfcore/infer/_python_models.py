"""pyhf's inference on a model hfcore's engine does not run: any object with pyhf's model interface
(``config.poi_index``, ``config.suggested_init/bounds/fixed()``, ``logpdf(pars, data)``, ``expected_data(pars)``)
that is not an ``hfcore.Model``, such as a likelihood written in Python.

pyhf's inference API takes such objects (its test_inferapi_pyhf_independence); so does hfcore's, on this path
only: the fits minimise -2 ``logpdf`` with scipy (SLSQP, bounded, with finite-difference gradients; the fixed
parameters are held out of the minimisation), the test statistics are pyhf's formulas on those fits, and
``hypotest`` runs pyhf's calculators (hfcore.infer.calculators) on them. Models built by hfcore never come here:
``is_python_model`` is the only check the engine path pays.
"""

from __future__ import annotations

import numpy as np

from .. import _core
from .. import exceptions
from ._common import as_tensor

# SLSQP's stopping rule: the change of -2 log L between iterations. The engine's fits stop at a Newton estimate
# of 1e-9 of the NLL; this is as tight as finite-difference gradients allow.
_FTOL = 1e-12


def is_python_model(pdf):
    """True for a model object that is not one of hfcore's (compiled by the engine)."""
    return not isinstance(pdf, _core.Model)


def _twice_nll(pdf, pars, data):
    return -2.0 * float(np.sum(np.asarray(pdf.logpdf(pars, data), dtype=float)))


def fit(data, pdf, init_pars, par_bounds, fixed_params, fixed_poi, return_fitted_val, return_result_obj,
        return_uncertainties, return_correlations):
    """hfcore.infer.mle's fit of a Python model (``fixed_poi``: the POI's value, or None for the free fit)."""
    from scipy.optimize import minimize

    if return_uncertainties or return_correlations:
        raise exceptions.Unsupported(
            "return_uncertainties / return_correlations: fits of a model hfcore does not compile (here a "
            f"{type(pdf).__name__}) run on scipy without a Hessian; fit an hfcore.Model for uncertainties"
        )
    config = pdf.config
    x0 = np.array(init_pars if init_pars is not None else config.suggested_init(), dtype=float)
    bounds = [tuple(b) for b in (par_bounds if par_bounds is not None else config.suggested_bounds())]
    fixed = np.array(fixed_params if fixed_params is not None else config.suggested_fixed(), dtype=bool)
    if fixed_poi is not None:
        x0[config.poi_index] = fixed_poi
        fixed[config.poi_index] = True
    free = np.flatnonzero(~fixed)
    data = np.asarray(data, dtype=float)

    def full(x_free):
        pars = x0.copy()
        pars[free] = x_free
        return pars

    r = minimize(lambda x: _twice_nll(pdf, full(x), data), x0[free], method="SLSQP",
                 bounds=[bounds[i] for i in free], options={"ftol": _FTOL, "maxiter": 100000})
    if not r.success:
        raise exceptions.FailedMinimization(r)
    bestfit = as_tensor(full(r.x))
    out = [bestfit]
    if return_fitted_val:
        out.append(as_tensor(r.fun))
    if return_result_obj:
        r.x = bestfit
        out.append(r)
    return tuple(out) if len(out) > 1 else out[0]


def profile_statistic(name, mu, data, pdf, init_pars, par_bounds, fixed_params, return_fitted_pars):
    """pyhf's profile-likelihood test statistics ("q0", "q", "qtilde", "t", "ttilde") from this module's fits:
    t = max(-2 log L(mu, theta_hat_hat) + 2 log L(mu_hat, theta_hat), 0); q and qtilde are 0 where mu_hat > mu,
    q0 where mu_hat < 0 (the tilde forms differ by the POI's bounds the caller passes, as in pyhf)."""
    if name == "q0":
        mu = 0.0
    poi = pdf.config.poi_index
    fixed_fit, fixed_val = fit(data, pdf, init_pars, par_bounds, fixed_params, float(mu), True, False, False,
                               False)
    free_fit, free_val = fit(data, pdf, init_pars, par_bounds, fixed_params, None, True, False, False, False)
    value = max(float(fixed_val) - float(free_val), 0.0)
    if (name in ("q", "qtilde") and free_fit[poi] > mu) or (name == "q0" and free_fit[poi] < 0):
        value = 0.0
    if return_fitted_pars:
        return as_tensor(value), (fixed_fit, free_fit)
    return as_tensor(value)


def hypotest(poi_test, data, pdf, init_pars, par_bounds, fixed_params, calctype, kwargs):
    """pyhf's hypotest on pyhf's calculators: (CLsb, CLb, CLs) observed, their expected bands, the calculator."""
    from .utils import create_calculator

    calc = create_calculator(calctype, data, pdf, init_pars or pdf.config.suggested_init(),
                             par_bounds or pdf.config.suggested_bounds(),
                             fixed_params or pdf.config.suggested_fixed(), **kwargs)
    teststat = calc.teststatistic(poi_test)
    sig_plus_bkg, bkg_only = calc.distributions(poi_test)
    observed = tuple(as_tensor(p) for p in calc.pvalues(teststat, sig_plus_bkg, bkg_only))
    expected = calc.expected_pvalues(sig_plus_bkg, bkg_only)
    return observed, expected, calc


def toms748_scan(data, pdf, bounds_low, bounds_up, level, atol, rtol, from_upper_limit_fn, hypotest_kwargs):
    """pyhf's toms748_scan: each limit is scipy's TOMS 748 root of CLs - level (k=2, xtol=atol, rtol); the
    observed one in [bounds_low, bounds_up] after the lower end is halved until every CLs (observed and
    expected) is at least the level there and the upper end doubled until every one is below it, each expected
    one in the tightest bracket of the POI values tested so far. Returns what upper_limits.toms748_scan does."""
    from scipy.optimize import toms748

    from . import hypotest

    cache = {}

    def results(poi):
        if poi not in cache:
            cache[poi] = hypotest(poi, data, pdf, return_expected_set=True, **hypotest_kwargs)
        return cache[poi]

    def cls(poi, which):  # which: 0 observed, 1..5 the expected band from -2 to +2 sigma
        obs, band = results(poi)
        return float(obs if which == 0 else band[which - 1])

    def bracket(which):
        pois = sorted(cache)
        above = [p for p in pois if cls(p, which) >= level]
        below = [p for p in pois if cls(p, which) < level]
        return (min(above, key=lambda p: cls(p, which) - level),
                max(below, key=lambda p: cls(p, which) - level))

    for _ in range(64):
        if all(cls(bounds_low, i) >= level for i in range(6)):
            break
        bounds_low /= 2
    else:
        raise exceptions.FailedMinimization(f"upper limit: CLs stays below {level} down to the POI {bounds_low}")
    for _ in range(64):
        if all(cls(bounds_up, i) <= level for i in range(6)):
            break
        bounds_up *= 2
    else:
        raise exceptions.FailedMinimization(f"upper limit: CLs stays above {level} up to the POI {bounds_up}")
    limits = [as_tensor(toms748(lambda poi, i: cls(poi, i) - level, *((bounds_low, bounds_up) if i == 0 else
                                                                       bracket(i)),
                                args=(i,), k=2, xtol=atol, rtol=rtol)) for i in range(6)]
    if from_upper_limit_fn:
        return limits[0], limits[1:], (list(cache), list(cache.values()))
    return limits[0], limits[1:]


def linear_grid_scan(data, pdf, scan, level, return_results, hypotest_kwargs):
    """pyhf's linear_grid_scan: each limit numpy.interp'ed at the level from the CLs of the hypotests on
    ``scan``."""
    from . import hypotest

    scan = np.asarray(scan, dtype=float)
    results = [hypotest(mu, data, pdf, return_expected_set=True, **hypotest_kwargs) for mu in scan]
    table = np.array([[float(r[0])] + [float(x) for x in r[1]] for r in results]).T
    limits = [as_tensor(np.interp(level, row[::-1], scan[::-1])) for row in table]
    if return_results:
        return limits[0], limits[1:], (scan, results)
    return limits[0], limits[1:]
