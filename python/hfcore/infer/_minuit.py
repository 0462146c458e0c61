"""The ``iminuit.Minuit`` a fit under ``minuit_optimizer`` hands back: built on the model's -2 log L and analytic
gradient, and placed at hfcore's minimum without a MIGRAD run (but for a minimum on a parameter's limit, see
below), so that MINOS, HESSE, ``fmin`` and ``covariance`` work from the point hfcore found.

The placement goes through Minuit's public ``scipy()`` entry with a "method" that returns hfcore's answer
(best-fit point, -2 log L, gradient, inverse Hessian) instead of searching: Minuit then builds its function
minimum (EDM, validity, covariance) from these numbers, as it does after any external minimiser. Where hfcore has
no positive-definite Hessian, Minuit's own HESSE computes the covariance at that point; where the minimum lies on
a limit, a Migrad from that point finishes what Minuit's limit transform leaves (see minuit_at_minimum).
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


def _transform_derivatives(x, lo, hi):
    """d x / d theta and d2 x / d theta2 of Minuit's map from its internal parameter theta to a parameter x with
    limits lo, hi (sin for two limits, sqrt for one, identity for none)."""
    j, c = np.ones_like(x), np.zeros_like(x)
    both = np.isfinite(lo) & np.isfinite(hi)
    half = 0.5 * (hi[both] - lo[both])
    sin = np.clip((x[both] - lo[both]) / half - 1.0, -1.0, 1.0)
    j[both] = half * np.sqrt(1.0 - sin * sin)
    c[both] = -half * sin
    for side, sign in ((np.isfinite(lo) & ~both, 1.0), (np.isfinite(hi) & ~both, -1.0)):
        edge = np.where(sign > 0, lo, hi)[side]
        t = np.sqrt(np.maximum((sign * (x[side] - edge) + 1.0) ** 2 - 1.0, 0.0))
        j[side] = sign * t / np.sqrt(t * t + 1.0)
        c[side] = sign / (t * t + 1.0) ** 1.5
    return j, c


class _AtMinimum:
    """A scipy.optimize.minimize "method" that reports hfcore's minimum (in the free parameters Minuit passes).

    Minuit converts the inverse Hessian it is given to its internal parameters with the Jacobian of its limit
    transform only. At a minimum on a limit the gradient does not vanish, and the internal Hessian has a second
    term, gradient x curvature of the transform, which is what makes such a minimum valid for Minuit (its own
    HESSE measures it). The matrix handed over includes that term, so the internal Hessian Minuit ends up with
    is the one its HESSE would measure; away from limits the term is zero and the matrix is hfcore's."""

    def __init__(self, x_free, fun, grad_free, hess_free, lower, upper, nfev):
        self.x_free, self.fun, self.grad_free, self.hess_free = x_free, fun, grad_free, hess_free
        self.lower, self.upper, self.nfev = lower, upper, nfev

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
        if self.hess_free is not None:
            jac, curv = _transform_derivatives(x, self.lower, self.upper)
            internal = jac[:, None] * self.hess_free * jac[None, :] + np.diag(self.grad_free * curv)
            out["hess_inv"] = jac[:, None] * np.linalg.inv(internal) * jac[None, :]
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
    m.errordef = getattr(optimizer, "errordef", 1)
    m.limits = [tuple(b) for b in bounds]
    m.fixed = list(fixed)
    m.print_level = 0  # the placement itself prints nothing; verbosity is restored below
    if strategy is None:
        # pyhf's default: 0 where the backend differentiates (Minuit trusts the gradient), else 1.
        from ..tensor import get_backend

        strategy = 0 if getattr(get_backend()[0], "default_do_grad", True) else 1
    m.strategy = int(strategy)
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
    # The Hessian of fcn = -2 log L is 2 * covariance^-1 (Minuit's covariance is then 2 * errordef * its
    # inverse: hfcore's covariance at errordef 1, as pyhf's Minuit on -2 log L).
    hess_free = None if cov_free is None else 2.0 * np.linalg.inv(cov_free)
    lower = np.array([b[0] for b in bounds], dtype=float)[free]
    upper = np.array([b[1] for b in bounds], dtype=float)[free]
    placement = _AtMinimum(x[free], float(twice_nll), grad(x)[free], hess_free, lower, upper, int(nfev))
    # With the inverse Hessian passed as accurate (hess given), Minuit keeps it; without one, strategy > 0
    # runs HESSE, so ask for it explicitly whatever the strategy.
    accurate = (lambda p: hess_free) if hess_free is not None else None
    if not free.any():
        return m  # every parameter fixed: nothing for Minuit to place (its HESSE and MINOS refuse such a fit)
    m.scipy(method=placement, hess=accurate)
    if cov_free is None:
        m.hesse()
    if not m.valid:
        # A minimum on a limit: Minuit's transform keeps the parameter a little inside it (by Minuit's numerical
        # precision), where the slope left over is above Minuit's EDM goal. Migrad from here, seeded with the
        # covariance above, moves that parameter the rest of the way (and runs HESSE at strategy 2), as pyhf's
        # own Minuit fit would end.
        m.migrad()
        if m.valid and m.strategy.strategy < 2:
            m.hesse()  # pyhf's errors after Migrad are HESSE's (strategy 2 has just run it)
    m.print_level = int(getattr(optimizer, "verbose", 0) or 0)
    return m
