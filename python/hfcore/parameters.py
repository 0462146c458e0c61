"""Parameter sets, as ``pyhf.parameters`` (``pyhf.parameters.paramsets``): what a parameter set suggests (inits,
bounds, fixed) and, for a constrained one, its auxiliary data and constraint width.

hfcore's models build their parameter sets in the engine; ``model.config.param_set(name)`` shows them. These
classes are for code that makes parameter sets itself (custom modifiers, tools written against pyhf).
"""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["constrained_by_normal", "constrained_by_poisson", "constrained_paramset", "paramset", "paramsets",
           "unconstrained"]


def __dir__():
    return __all__


class paramset:
    """``name``, ``n_parameters``, ``inits``, ``bounds``, ``fixed`` (one bool for all, or one per parameter) and
    ``is_scalar`` (then exactly one parameter)."""

    def __init__(self, **kwargs):
        self.name = kwargs.pop("name")
        self.n_parameters = kwargs.pop("n_parameters")
        self.suggested_init = kwargs.pop("inits")
        self.suggested_bounds = kwargs.pop("bounds")
        self._suggested_fixed = kwargs.pop("fixed")
        self.is_scalar = kwargs.pop("is_scalar")
        if self.is_scalar and self.n_parameters != 1:
            raise ValueError(f"misconfigured parameter set {self.name}: scalar, but {self.n_parameters} parameters")

    @property
    def suggested_fixed(self):
        if isinstance(self._suggested_fixed, bool):
            return [self._suggested_fixed] * self.n_parameters
        return self._suggested_fixed

    @suggested_fixed.setter
    def suggested_fixed(self, value):
        if not isinstance(value, bool) and len(value) != self.n_parameters:
            raise ValueError(f"suggested_fixed of {self.name}: expected {self.n_parameters} values, got {len(value)}")
        self._suggested_fixed = value

    @property
    def suggested_fixed_as_bool(self):
        """The one bool all parameters share (RuntimeError where they differ)."""
        fixed = self.suggested_fixed
        if all(x == fixed[0] for x in fixed):
            return fixed[0]
        raise RuntimeError(f"{fixed} is neither all-True nor all-False, so not compressible")


class unconstrained(paramset):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.constrained = False


class constrained_paramset(paramset):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.constrained = True


class constrained_by_normal(constrained_paramset):
    """Gaussian constraints: ``auxdata`` and ``sigmas`` (default 1)."""

    def __init__(self, **kwargs):
        self.auxdata = kwargs.pop("auxdata")
        sigmas = kwargs.pop("sigmas", None)
        super().__init__(**kwargs)
        self.pdf_type = "normal"
        if sigmas:
            self.sigmas = sigmas

    def width(self):
        return getattr(self, "sigmas", [1.0] * self.n_parameters)


class constrained_by_poisson(constrained_paramset):
    """Poisson constraints: ``auxdata`` and ``factors`` (tau); the width is 1/sqrt(tau)."""

    def __init__(self, **kwargs):
        self.auxdata = kwargs.pop("auxdata")
        self.factors = kwargs.pop("factors")
        super().__init__(**kwargs)
        self.pdf_type = "poisson"

    def width(self):
        if not self.factors:
            raise RuntimeError(f"{self.name}: no factors, so no width")
        return np.sqrt(1.0 / np.asarray(self.factors, dtype=float)).tolist()


# pyhf's submodule name: ``from pyhf.parameters import paramsets`` gives these classes.
paramsets = sys.modules[__name__]
