"""The ``iminuit.Minuit`` a fit under ``minuit_optimizer`` hands back: built on the model's -2 log L and analytic
gradient, and placed at hfcore's minimum without a MIGRAD run, so that MINOS, HESSE, ``fmin`` and ``covariance``
work from the point hfcore found.

The placement goes through Minuit's public ``scipy()`` entry with a "method" that returns hfcore's answer
(best-fit point, -2 log L, gradient, inverse Hessian) instead of searching: Minuit then builds its function
minimum (EDM, validity, covariance) from these numbers, as it does after any external minimiser. Where hfcore has
no positive-definite Hessian, Minuit's own HESSE computes the covariance at that point.
"""

from __future__ import annotations

import numpy as np

from .. import exceptions


def _import_iminuit():
    try:
        import iminuit
    except ImportError as e:
        raise exceptions.ImportBackendError(
            "minuit_optimizer hands back an iminuit.Minuit, and iminuit is not installed: "
            "pip install 'hfcore[minuit]' (or pip install iminuit)"
        ) from e
    return iminuit


class _AtMinimum:
    """A scipy.optimize.minimize "method" that reports hfcore's minimum (in the free parameters Minuit passes)."""

    def __init__(self, x_free, fun, grad_free, hess_inv, nfev):
        self.x_free, self.fun, self.grad_free, self.hess_inv, self.nfev = x_free, fun, grad_free, hess_inv, nfev

    def __call__(self, fun, x0, args=(), bounds=None, **unused):
        from scipy.optimize import OptimizeResult

        x = np.array(self.x_free, dtype=float)
        if bounds is not None:
            # Minuit hands slightly tightened limits (so its internal transform stays finite): a minimum on a
            # bound is reported just inside it, as Minuit's own minimisers would.
            if hasattr(bounds, "lb"):
                lb, ub = bounds.lb, bounds.ub
            else:
                lb, ub = zip(*bounds)
            x = np.clip(x, np.asarray(lb, dtype=float), np.asarray(ub, dtype=float))
        out = OptimizeResult(x=x, fun=self.fun, jac=self.grad_free, nfev=self.nfev, njev=1, success=True,
                             message="hfcore's minimum", status=0)
        if self.hess_inv is not None:
            out["hess_inv"] = self.hess_inv
        return out

    def __str__(self):
        # Minuit names the algorithm "SciPy[<this>]" in its fmin display.
        return "hfcore"


def minuit_at_minimum(model, data, bestfit, twice_nll, covariance, fixed, bounds, nfev, optimizer, strategy,
                      tolerance):
    """An iminuit.Minuit at hfcore's minimum. ``covariance`` [P, P] (zeros for fixed parameters, None when hfcore
    has no Hessian), ``fixed`` [P] bools, ``bounds`` [(lo, hi)] as the fit used them."""
    iminuit = _import_iminuit()
    data = np.asarray(data, dtype=float)

    def fcn(pars):
        return float(-2.0 * model.logpdf(pars, data)[0])

    def grad(pars):
        _, g = model.logpdf_and_grad(pars, data)
        return -2.0 * np.asarray(g, dtype=float)

    x = np.asarray(bestfit, dtype=float)
    fixed = np.asarray(fixed, dtype=bool)
    m = iminuit.Minuit(fcn, x, grad=grad, name=list(model.config.par_names))
    m.errordef = optimizer.errordef
    m.limits = [tuple(b) for b in bounds]
    m.fixed = list(fixed)
    m.print_level = 0  # the placement itself prints nothing; verbosity is restored below
    # pyhf's default strategy with an analytic gradient is 0; cabinetry passes its own.
    m.strategy = 0 if strategy is None else int(strategy)
    m.tol = tolerance
    free = ~fixed
    cov_free = None
    if covariance is not None:
        c = np.asarray(covariance, dtype=float)[np.ix_(free, free)]
        if np.all(np.isfinite(c)) and c.size and np.all(np.diag(c) > 0):
            cov_free = c
            errors = np.array(m.errors)
            errors[free] = np.sqrt(np.diag(c))
            m.errors = errors
    # Minuit reads an external minimiser's hess_inv as the inverse Hessian of fcn, and makes the covariance
    # 2 * errordef * hess_inv from it: hand it hfcore's covariance scaled accordingly.
    hess_inv = None if cov_free is None else cov_free / (2.0 * m.errordef)
    placement = _AtMinimum(x[free], float(twice_nll), grad(x)[free], hess_inv, int(nfev))
    # With the inverse Hessian passed as accurate (hess given), Minuit keeps it; without one, strategy > 0
    # runs HESSE, so ask for it explicitly whatever the strategy.
    accurate = (lambda p: np.linalg.inv(hess_inv)) if hess_inv is not None else None
    m.scipy(method=placement, hess=accurate)
    if cov_free is None:
        m.hesse()
    m.print_level = int(optimizer.verbose or 0)
    return m
