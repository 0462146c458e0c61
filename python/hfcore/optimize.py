"""Optimizer choices with pyhf's names: ``hfcore.set_backend(tensorlib, hfcore.optimize.minuit_optimizer(...))``.

hfcore's own minimiser (L-BFGS on the analytic gradient, Newton polish, basin checks) finds the minimum whichever
optimizer is chosen; the choice decides what a fit hands back with ``return_result_obj=True``:

- ``scipy_optimizer``: a result object with scipy's OptimizeResult fields (x, fun, success, message, nfev, ...)
  and pyhf's additions (unc, corr, hess_inv).
- ``minuit_optimizer``: the same, plus ``minuit``: an ``iminuit.Minuit`` on the model's -2 log L and its
  analytic gradient, placed at hfcore's minimum with hfcore's covariance, ready for ``minos()``, ``hesse()``,
  ``fmin``, ``covariance`` (iminuit is the optional extra ``hfcore[minuit]``).

``strategy``, ``tolerance`` and ``errordef`` configure that Minuit object (its MINOS and HESSE calls), as pyhf's
do.

As in pyhf, each name is resolved on use (a module ``__getattr__``) and stands for its library: ``scipy_optimizer``
needs scipy (its result object is scipy's ``OptimizeResult``; ImportError without it), ``minuit_optimizer``
needs iminuit (ImportBackendError without it). hfcore's minimiser keeps its own convergence criterion, which is stricter than Minuit's at any tolerance
Minuit accepts, so the minimum does not move when the tolerance changes.
"""

from __future__ import annotations

from . import exceptions

__all__ = ["minuit_optimizer", "scipy_optimizer"]


class _OptimizerBase:
    """What pyhf's optimizers share: ``maxiter``, ``verbose`` and a clear error for an unknown option."""

    name = ""

    def __init__(self, **kwargs):
        self.maxiter = kwargs.pop("maxiter", 100000)
        self.verbose = kwargs.pop("verbose", 0)
        if kwargs:
            raise exceptions.Unsupported(f"Unsupported kwargs were passed in: {list(kwargs.keys())}.")

    def __repr__(self):
        return f"<hfcore.optimize.{type(self).__name__} (minimum found by hfcore's minimiser)>"


class _ScipyOptimizer(_OptimizerBase):
    """pyhf's ``scipy_optimizer(tolerance=None, solver_options={}, maxiter=100000, verbose=0)``."""

    def __init__(self, *args, **kwargs):
        self.name = "scipy"
        self.tolerance = kwargs.pop("tolerance", None)
        self.solver_options = kwargs.pop("solver_options", {})
        super().__init__(*args, **kwargs)


class _MinuitOptimizer(_OptimizerBase):
    """pyhf's ``minuit_optimizer(errordef=1, steps=1000, strategy=None, tolerance=0.1, maxiter=100000,
    verbose=0)``; ``strategy=None`` means 0 with an analytic gradient, as pyhf (hfcore always has one)."""

    def __init__(self, *args, **kwargs):
        self.name = "minuit"
        self.errordef = kwargs.pop("errordef", 1)
        self.steps = kwargs.pop("steps", 1000)
        self.strategy = kwargs.pop("strategy", None)
        self.tolerance = kwargs.pop("tolerance", 0.1)
        super().__init__(*args, **kwargs)


# Under pyhf's names in reprs and error messages.
_ScipyOptimizer.__name__ = _ScipyOptimizer.__qualname__ = "scipy_optimizer"
_MinuitOptimizer.__name__ = _MinuitOptimizer.__qualname__ = "minuit_optimizer"

_KNOWN = {"scipy": _ScipyOptimizer, "minuit": _MinuitOptimizer}


def __getattr__(name):
    # The public names are not module globals, so they resolve here on every use (also after a caller deleted
    # one, as pyhf's tests of its lazy imports do) and check the library each stands for at that moment.
    if name == "scipy_optimizer":
        import scipy.optimize  # noqa: F401  (ImportError without scipy, as pyhf)

        return _ScipyOptimizer
    if name == "minuit_optimizer":
        from .infer._minuit import _import_iminuit

        _import_iminuit()
        return _MinuitOptimizer
    raise AttributeError(f"module 'hfcore.optimize' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)


def by_name(name):
    """The optimizer object for pyhf's names "scipy" and "minuit" (set_backend(..., "minuit"))."""
    known = _KNOWN
    if name not in known:
        raise exceptions.InvalidOptimizer(
            f"The optimizer provided is not supported: {name}. Select from one of the supported optimizers: "
            f"{', '.join(known)}"
        )
    return __getattr__(f"{name}_optimizer")()
