"""Upper limits on the POI at CLs = level, as ``pyhf.infer.intervals.upper_limits``.

The root finding runs in C++ (Boost TOMS 748 with a secant step on the normal-quantile scale of CLs; pyhf's
``toms748_scan`` brackets: the POI's bounds, the upper end doubled until every CLs is below the level). The
asymptotic expected limits come from the fit to the Asimov data alone, so they add no hypotests.
"""

from __future__ import annotations

import numpy as np

from ... import _core
from ... import exceptions
from .._common import as_tensor, check_calctype, check_poi, emit_warnings, hypotest_kwargs
from .. import _python_models
from ...progress import reporting

__all__ = ["upper_limit", "linear_grid_scan", "toms748_scan"]


def _prepare(model, hypotest_kwargs_in):
    kwargs = dict(hypotest_kwargs_in)
    init_pars = kwargs.pop("init_pars", None)
    par_bounds = kwargs.pop("par_bounds", None)
    fixed_params = kwargs.pop("fixed_params", None)
    calctype = kwargs.pop("calctype", "asymptotics")
    check_calctype(calctype)
    opts = hypotest_kwargs(kwargs)
    check_poi(model, fixed_params, "an upper limit")
    return init_pars, par_bounds, fixed_params, calctype, opts


def _results(r):
    """pyhf's hypotest results of each POI value scanned: (CLs_obs, [5 expected CLs])."""
    return [(as_tensor(h.obs), [as_tensor(x) for x in h.exp]) for h in r.results]


def _check(r):
    for h in r.results:
        emit_warnings(h.warnings)
    if not r.converged:
        raise exceptions.FailedMinimization(
            {"success": False, "message": "a fit of the upper-limit search did not converge", "result": r}
        )


def toms748_scan(data, model, bounds_low, bounds_up, level=0.05, atol=2e-12, rtol=1e-4, from_upper_limit_fn=False,
                 **hypotest_kwargs):
    """Observed and expected upper limits by root finding in [bounds_low, bounds_up] (the upper end doubled
    until every CLs is below ``level``), as pyhf's ``toms748_scan``. Returns (obs, [5 expected]) as 0-d arrays;
    with ``from_upper_limit_fn`` also (POI values tested, their hypotest results)."""
    if _python_models.is_python_model(model):
        return _python_models.toms748_scan(data, model, bounds_low, bounds_up, level, atol, rtol,
                                           from_upper_limit_fn, hypotest_kwargs)
    init_pars, par_bounds, fixed_params, calctype, opts = _prepare(model, hypotest_kwargs)
    # Root finding takes a few asymptotic hypotests; with toys, a bar (hfcore.progress).
    with reporting(opts["track_progress"] if calctype == "toybased" else False, "upper limit") as progress:
        r = _core.upper_limit(model, data, float(level), float(atol), float(rtol), float(bounds_low),
                              float(bounds_up), init_pars, par_bounds, fixed_params, opts["test_stat"], calctype,
                              opts["calc_base_dist"], opts["ntoys"], opts["seed"], opts["toy_batch"],
                              progress=progress)
    _check(r)
    obs = as_tensor(r.obs)
    exp = [as_tensor(x) for x in r.exp]
    if from_upper_limit_fn:
        return obs, exp, (list(r.scanned), _results(r))
    return obs, exp


def linear_grid_scan(data, model, scan, level=0.05, return_results=False, **hypotest_kwargs):
    """Limits interpolated (numpy.interp) from hypotests on the grid ``scan``, as pyhf's ``linear_grid_scan``."""
    if _python_models.is_python_model(model):
        return _python_models.linear_grid_scan(data, model, scan, level, return_results, hypotest_kwargs)
    init_pars, par_bounds, fixed_params, calctype, opts = _prepare(model, hypotest_kwargs)
    scan = np.asarray(scan, dtype=float)
    with reporting(opts["track_progress"], "upper limit") as progress:
        r = _core.upper_limit_scan(model, data, scan, float(level), init_pars, par_bounds, fixed_params,
                                   opts["test_stat"], calctype, opts["calc_base_dist"], opts["ntoys"], opts["seed"],
                                   opts["toy_batch"], progress=progress)
    _check(r)
    obs = as_tensor(r.obs)
    exp = [as_tensor(x) for x in r.exp]
    if return_results:
        return obs, exp, (scan, _results(r))
    return obs, exp


def upper_limit(data, model, scan=None, level=0.05, return_results=False, **hypotest_kwargs):
    """Observed and expected (-2..+2 sigma) upper limits on the POI at CLs = ``level``, as
    ``pyhf.infer.intervals.upper_limits.upper_limit``: root finding from the POI's bounds when ``scan`` is None,
    else interpolation on the grid ``scan``. Returns (obs, [5 expected]) as 0-d arrays, and with
    ``return_results`` also (POI values tested, their (CLs_obs, [CLs_exp]) results)."""
    if model.config.poi_index is None:
        raise exceptions.UnspecifiedPOI("No POI is defined. A POI is required for an upper limit.")
    if scan is not None:
        return linear_grid_scan(data, model, scan, level, return_results, **hypotest_kwargs)
    if _python_models.is_python_model(model):
        # pyhf's bracket: the POI's suggested bounds (the object may have no par_slice / poi_name).
        lo, hi = model.config.suggested_bounds()[model.config.poi_index]
        obs, exp, results = toms748_scan(data, model, lo, hi, level=level, from_upper_limit_fn=True,
                                         **hypotest_kwargs)
        return (obs, exp, results) if return_results else (obs, exp)
    lo, _ = model.config.suggested_bounds()[model.config.par_slice(model.config.poi_name).start]
    # An upper end of NaN: the POI's upper bound, widened with the bracket when the limit lies beyond it.
    obs, exp, results = toms748_scan(data, model, lo, float("nan"), level=level, from_upper_limit_fn=True,
                                     **hypotest_kwargs)
    if return_results:
        return obs, exp, results
    return obs, exp
