"""Profile-likelihood test statistics, as ``pyhf.infer.test_statistics``."""

from __future__ import annotations

from .. import _core
from .. import exceptions
from ._common import as_tensor, check_converged, emit_warnings
from . import _python_models

__all__ = ["q0", "qmu", "qmu_tilde", "tmu", "tmu_tilde"]


def _stat(name, mu, data, pdf, init_pars, par_bounds, fixed_params, return_fitted_pars):
    if pdf.config.poi_index is None:
        raise exceptions.UnspecifiedPOI(
            "No POI is defined. A POI is required for profile likelihood based test statistics."
        )
    if _python_models.is_python_model(pdf):
        return _python_models.profile_statistic(name, mu, data, pdf, init_pars, par_bounds, fixed_params,
                                                return_fitted_pars)
    value, fixed_fit, free_fit, warnings = _core.test_statistic(name, float(mu), pdf, data, init_pars, par_bounds,
                                                                fixed_params)
    emit_warnings(warnings)
    check_converged(fixed_fit)
    check_converged(free_fit)
    if return_fitted_pars:
        return as_tensor(value), (fixed_fit.bestfit, free_fit.bestfit)
    return as_tensor(value)


def q0(mu, data, pdf, init_pars, par_bounds, fixed_params, return_fitted_pars=False):
    """Discovery test statistic q0 (mu is set to 0, with pyhf's warning otherwise)."""
    return _stat("q0", mu, data, pdf, init_pars, par_bounds, fixed_params, return_fitted_pars)


def qmu(mu, data, pdf, init_pars, par_bounds, fixed_params, return_fitted_pars=False):
    """q_mu: -2 log lambda(mu), 0 where mu_hat > mu."""
    return _stat("q", mu, data, pdf, init_pars, par_bounds, fixed_params, return_fitted_pars)


def qmu_tilde(mu, data, pdf, init_pars, par_bounds, fixed_params, return_fitted_pars=False):
    """q~_mu: as q_mu with the POI bounded at 0."""
    return _stat("qtilde", mu, data, pdf, init_pars, par_bounds, fixed_params, return_fitted_pars)


def tmu(mu, data, pdf, init_pars, par_bounds, fixed_params, return_fitted_pars=False):
    """t_mu: -2 log lambda(mu)."""
    return _stat("t", mu, data, pdf, init_pars, par_bounds, fixed_params, return_fitted_pars)


def tmu_tilde(mu, data, pdf, init_pars, par_bounds, fixed_params, return_fitted_pars=False):
    """t~_mu: t_mu with the POI bounded at 0."""
    return _stat("ttilde", mu, data, pdf, init_pars, par_bounds, fixed_params, return_fitted_pars)
