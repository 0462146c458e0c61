"""Maximum-likelihood fits, as ``pyhf.infer.mle``."""

from __future__ import annotations

import numpy as np

from .. import _core
from .. import exceptions
from ..tensor import get_backend
from ._common import as_tensor, check_converged, covariance, result_object
from ._minuit import minuit_at_minimum
from . import _python_models

__all__ = ["fit", "fixed_poi_fit", "twice_nll"]

_OPTIMIZER_OPTIONS = ("do_grad", "do_stitch", "maxiter", "tolerance", "verbose", "method", "strategy",
                      "solver_options")


def twice_nll(pars, data, pdf):
    """-2 log L at pars: an array of shape (1,) (or (K,) for [K, P] pars)."""
    return -2 * pdf.logpdf(pars, data)


def _fit(data, pdf, init_pars, par_bounds, fixed_params, fixed_poi, return_fitted_val, return_result_obj,
         return_uncertainties, return_correlations, kwargs):
    for key in list(kwargs):
        if key not in _OPTIMIZER_OPTIONS:
            raise exceptions.Unsupported(f"Unsupported options were passed in: {[key]}.")
    if _python_models.is_python_model(pdf):
        return _python_models.fit(data, pdf, init_pars, par_bounds, fixed_params, fixed_poi, return_fitted_val,
                                  return_result_obj, return_uncertainties, return_correlations)
    optimizer = get_backend()[1]
    kind = getattr(optimizer, "name", "hfcore")
    # maxiter: a floor on NLopt's evaluations (at least 100 per algorithm); tolerance: hfcore's convergence
    # criterion, the Newton estimate of the remaining decrease of the NLL (default 1e-9 at 64b, 1e-4 at 32b).
    # Under pyhf's optimizers the tolerance is theirs (Minuit's EDM goal, scipy's ftol), looser than hfcore's
    # default: it configures the Minuit object handed back, and hfcore's minimiser keeps its own.
    maxiter = kwargs.get("maxiter") or 0
    tolerance = (kwargs.get("tolerance") or 0.0) if kind == "hfcore" else 0.0
    with_minuit = kind == "minuit" and bool(return_result_obj or return_uncertainties)
    want_hessian = bool(return_uncertainties or return_correlations or (return_result_obj and kind != "hfcore"))
    r = _core.fit(pdf, data, init_pars, par_bounds, fixed_params, fixed_poi, want_hessian, int(maxiter),
                  float(tolerance))
    check_converged(r)
    unc = r.uncertainties
    minuit = None
    if with_minuit:
        minuit = _minuit_for(r, data, pdf, par_bounds, fixed_params, fixed_poi, optimizer, kwargs)
        # pyhf's uncertainties under Minuit are Minuit's errors: from the same covariance, but taken through
        # Minuit's transform of bounded parameters (the half-width of the mapped interval, not the linearised
        # one; smaller by up to ~1% for a parameter whose error is a fair part of its range).
        unc = np.where(np.array(minuit.fixed), 0.0, np.array(minuit.errors)) if r.hessian_ok else unc
    x = r.bestfit
    if return_uncertainties:
        x = np.stack([x, unc], axis=1)
    out = [x]
    if return_correlations:
        out.append(r.correlations)
    if return_fitted_val:
        out.append(as_tensor(r.twice_nll))
    if return_result_obj:
        result = result_object(r)
        if kind == "scipy":
            # pyhf's type under its scipy_optimizer (hfcore.optimize.scipy_optimizer needs scipy, as pyhf's).
            from scipy.optimize import OptimizeResult

            result = OptimizeResult(result)
        result.unc = unc
        result.minuit = minuit
        out.append(result)
    return tuple(out) if len(out) > 1 else out[0]


def _minuit_for(r, data, pdf, par_bounds, fixed_params, fixed_poi, optimizer, kwargs):
    """The iminuit.Minuit at this fit's minimum, with the fit's bounds and fixed parameters (the POI too when it
    was fixed), and pyhf's precedence for strategy and tolerance: the fit's keyword, then the optimizer's."""
    fixed = list(fixed_params if fixed_params is not None else pdf.config.suggested_fixed())
    if fixed_poi is not None:
        fixed[pdf.config.poi_index] = True
    bounds = par_bounds if par_bounds is not None else pdf.config.suggested_bounds()
    strategy = kwargs["strategy"] if "strategy" in kwargs else getattr(optimizer, "strategy", None)
    tolerance = kwargs["tolerance"] if "tolerance" in kwargs else getattr(optimizer, "tolerance", 0.1)
    return minuit_at_minimum(pdf, data, r.bestfit, r.twice_nll, covariance(r), fixed, bounds, r.n_eval,
                             optimizer, strategy, tolerance)


def fit(data, pdf, init_pars=None, par_bounds=None, fixed_params=None, return_fitted_val=False,
        return_result_obj=False, return_uncertainties=False, return_correlations=False, **kwargs):
    """Maximum-likelihood fit of every parameter not fixed, as ``pyhf.infer.mle.fit``.

    Returns the best-fit parameters (shape (P,), or (P, 2) with uncertainties when ``return_uncertainties``),
    then the correlation matrix, -2 log L at the minimum (0-d) and the result object, each when asked, in pyhf's
    order. Uncertainties come from the Hessian at the minimum (fixed parameters: 0). A fit that does not
    converge raises FailedMinimization (its ``result`` has the point reached and the reason); an init outside
    its bounds raises ValueError (InvalidFitInput).
    """
    return _fit(data, pdf, init_pars, par_bounds, fixed_params, None, return_fitted_val, return_result_obj,
                return_uncertainties, return_correlations, kwargs)


def fixed_poi_fit(poi_val, data, pdf, init_pars=None, par_bounds=None, fixed_params=None, return_fitted_val=False,
                  return_result_obj=False, return_uncertainties=False, return_correlations=False, **kwargs):
    """The fit with the POI fixed at ``poi_val``, as ``pyhf.infer.mle.fixed_poi_fit`` (UnspecifiedPOI for a
    model without a POI)."""
    if pdf.config.poi_index is None:
        raise exceptions.UnspecifiedPOI("No POI is defined. A POI is required to fit with a fixed POI.")
    return _fit(data, pdf, init_pars, par_bounds, fixed_params, float(poi_val), return_fitted_val,
                return_result_obj, return_uncertainties, return_correlations, kwargs)
