"""Backends: which plugin evaluates models (``set_backend``), and pyhf's ``tensorlib`` vocabulary on numpy.

hfcore's models run in C++ on a backend plugin (cpu, opencl, cuda) and hand numpy arrays to Python, so the
``tensorlib`` that :func:`get_backend` returns is numpy underneath, with pyhf's method names
(``astensor``, ``tolist``, ``normal_cdf``, ...) and the precision of the current backend.
"""

from __future__ import annotations

import math

import numpy as np

from . import _core
from . import exceptions

__all__ = ["backends", "get_backend", "set_backend", "backend", "tensorlib", "optimizer"]

# pyhf's backend names that hfcore serves on the host: numpy arrays in and out, evaluated by the cpu plugin.
_HOST_ALIASES = {"numpy": "cpu", "cpu": "cpu"}
_PYHF_ONLY = {"jax", "pytorch", "tensorflow"}


def _canonical_precision(precision):
    if precision is None:
        return "64b"
    p = str(precision).lower()
    if p in ("64b", "64", "float64", "double"):
        return "64b"
    if p in ("32b", "32", "float32", "float"):
        return "32b"
    raise exceptions.Unsupported(f"The precision {precision!r} is not supported (use '32b' or '64b').")


def backend(name="cpu", precision="64b", device=0, platform=0):
    """Loads a new instance of backend plugin ``name`` (cpu, opencl, cuda, auto, or a plugin file).

    Pass it to ``Workspace.model(backend=...)`` or ``Model(spec, backend=...)`` to give a model its own
    backend: work on different backend instances runs in parallel from Python threads.
    """
    name = _HOST_ALIASES.get(name, name)
    if name in _PYHF_ONLY:
        raise exceptions.InvalidBackend(
            f"hfcore has no {name!r} backend; use 'cpu' (or 'numpy'), 'opencl', 'cuda' or 'auto'. "
            f"Backends found: {[b['name'] for b in backends()]}"
        )
    return _core.load_backend(name, _canonical_precision(precision), int(device), int(platform))


class tensorlib_numpy:
    """pyhf's tensorlib vocabulary on numpy, at the precision of an hfcore backend."""

    def __init__(self, backend_obj):
        self._backend = backend_obj
        self.name = backend_obj.name
        self.precision = backend_obj.precision
        self.dtypemap = {
            "float": np.float64 if self.precision == "64b" else np.float32,
            "int": np.int64 if self.precision == "64b" else np.int32,
            "bool": np.bool_,
        }
        self.default_do_grad = True
        self.array_type = np.ndarray
        self.array_subtype = np.number

    def __repr__(self):
        return f"<hfcore tensorlib on {self._backend.description}>"

    @property
    def backend(self):
        """The hfcore backend models are built on."""
        return self._backend

    # ---- creation and conversion ----
    def astensor(self, tensor_in, dtype="float"):
        try:
            dtype = self.dtypemap[dtype]
        except KeyError:
            raise KeyError(f"Invalid dtype: dtype must be float, int, or bool, not {dtype!r}")
        return np.asarray(tensor_in, dtype=dtype)

    def tolist(self, tensor_in):
        return np.asarray(tensor_in).tolist()

    def to_numpy(self, tensor_in):
        return np.asarray(tensor_in)

    def ones(self, shape, dtype="float"):
        return np.ones(shape, dtype=self.dtypemap[dtype])

    def zeros(self, shape, dtype="float"):
        return np.zeros(shape, dtype=self.dtypemap[dtype])

    def shape(self, tensor):
        return np.shape(tensor)

    def reshape(self, tensor, newshape):
        return np.reshape(tensor, newshape)

    def ravel(self, tensor):
        return np.ravel(tensor)

    # ---- arithmetic ----
    def sum(self, tensor_in, axis=None):
        return np.sum(tensor_in, axis=axis)

    def product(self, tensor_in, axis=None):
        return np.prod(tensor_in, axis=axis)

    def abs(self, tensor):
        return np.abs(tensor)

    def exp(self, tensor_in):
        return np.exp(tensor_in)

    def log(self, tensor_in):
        return np.log(tensor_in)

    def sqrt(self, tensor_in):
        return np.sqrt(tensor_in)

    def power(self, tensor_in_1, tensor_in_2):
        return np.power(tensor_in_1, tensor_in_2)

    def divide(self, tensor_in_1, tensor_in_2):
        return np.divide(tensor_in_1, tensor_in_2)

    def clip(self, tensor_in, min_value, max_value):
        return np.clip(tensor_in, min_value, max_value)

    def where(self, mask, tensor_in_1, tensor_in_2):
        return np.where(mask, tensor_in_1, tensor_in_2)

    def isfinite(self, tensor):
        return np.isfinite(tensor)

    def conditional(self, predicate, true_callable, false_callable):
        return true_callable() if predicate else false_callable()

    def concatenate(self, sequence, axis=0):
        return np.concatenate(sequence, axis=axis)

    def stack(self, sequence, axis=0):
        return np.stack(sequence, axis=axis)

    def tile(self, tensor_in, repeats):
        return np.tile(tensor_in, repeats)

    def transpose(self, tensor_in):
        return np.transpose(tensor_in)

    def einsum(self, subscripts, *operands):
        return np.einsum(subscripts, *operands)

    def outer(self, tensor_in_1, tensor_in_2):
        return np.outer(tensor_in_1, tensor_in_2)

    def boolean_mask(self, tensor, mask):
        return tensor[mask]

    def percentile(self, tensor_in, q, axis=None, interpolation="linear"):
        return np.percentile(tensor_in, q, axis=axis, method=interpolation)

    def simple_broadcast(self, *args):
        return np.broadcast_arrays(*args)

    # ---- distributions (pyhf's definitions) ----
    def normal_cdf(self, x, mu=0, sigma=1):
        x = (np.asarray(x, dtype=float) - mu) / sigma
        return 0.5 * np.vectorize(math.erfc)(-x / math.sqrt(2.0))

    def normal_logpdf(self, x, mu, sigma):
        z = (np.asarray(x, dtype=float) - mu) / sigma
        return -0.5 * z * z - np.log(sigma) - 0.5 * math.log(2.0 * math.pi)

    def normal(self, x, mu, sigma):
        return np.exp(self.normal_logpdf(x, mu, sigma))

    def poisson_logpdf(self, n, lam):
        n = np.asarray(n, dtype=float)
        lam = np.asarray(lam, dtype=float)
        lgamma = np.vectorize(math.lgamma)
        with np.errstate(divide="ignore", invalid="ignore"):
            xlogy = np.where(n == 0, 0.0, n * np.log(lam))
        return xlogy - lam - lgamma(n + 1.0)

    def poisson(self, n, lam):
        return np.exp(self.poisson_logpdf(n, lam))

    def poisson_dist(self, rate):
        """A Poisson distribution's ``log_prob`` (cabinetry's goodness of fit). Stand-in: the pyhf-surface work
        brings the full ``poisson_dist`` / ``normal_dist``."""
        from ._pdf_parts import _PoissonLogProb

        return _PoissonLogProb(rate)

    def erf(self, tensor_in):
        return np.vectorize(math.erf)(tensor_in)


class hfcore_optimizer:
    """The optimizer hfcore's fits use: L-BFGS (NLopt) on the analytic gradient, a Newton polish and checks of
    other basins (see docs/user-guide.md, "Fits"). pyhf's optimizer names are accepted for compatibility."""

    name = "hfcore"

    def __init__(self, requested=None, **kwargs):
        self.requested = requested
        self.maxiter = kwargs.pop("maxiter", None)
        self.tolerance = kwargs.pop("tolerance", None)
        self.verbose = kwargs.pop("verbose", 0)
        kwargs.pop("strategy", None)
        kwargs.pop("solver_options", None)
        if kwargs:
            raise exceptions.Unsupported(f"Unsupported options were passed in: {list(kwargs.keys())}.")

    def __repr__(self):
        return "<hfcore optimizer (L-BFGS + Newton polish)>"


_current = {"tensorlib": None, "optimizer": hfcore_optimizer()}


def set_backend(backend, custom_optimizer=None, precision=None, default=False, device=0, platform=0):
    """Chooses the backend models are built and evaluated on, as ``pyhf.set_backend``.

    ``backend``: "numpy" or "cpu" (the host), "opencl", "cuda", "auto", a plugin file, or an object from
    :func:`backend`. ``precision``: "64b" (default) or "32b". ``device``: the GPU index.
    Models built without an explicit backend follow the change (they are recompiled for the new backend at their
    next use), as pyhf's models follow ``pyhf.set_backend``.
    """
    if isinstance(backend, _core.Backend):
        if precision is not None and _canonical_precision(precision) != backend.precision:
            raise exceptions.Unsupported(
                f"precision {precision!r} asked for a backend loaded at {backend.precision}; load it with that precision"
            )
        b = backend
    elif isinstance(backend, str):
        b = globals()["backend"](backend, precision=precision, device=device, platform=platform)
    elif hasattr(backend, "name") and hasattr(backend, "precision"):  # a tensorlib from get_backend()
        b = globals()["backend"](backend.name, precision=precision or backend.precision, device=device)
    else:
        raise exceptions.InvalidBackend(f"backend: expected a name or an hfcore backend, got {backend!r}")
    if custom_optimizer is not None:
        if isinstance(custom_optimizer, str):
            if custom_optimizer not in ("scipy", "minuit", "hfcore"):
                raise exceptions.InvalidOptimizer(
                    f"The optimizer provided is not supported: {custom_optimizer}. Select from one of the "
                    "supported optimizers: scipy, minuit (hfcore fits with its own minimiser either way)."
                )
            from .optimize import by_name

            _current["optimizer"] = hfcore_optimizer() if custom_optimizer == "hfcore" else by_name(custom_optimizer)
        else:
            # An optimizer object (hfcore.optimize's): fits read its name and options (see infer/mle.py).
            _current["optimizer"] = custom_optimizer
    _core.set_default_backend(b)
    _current["tensorlib"] = tensorlib_numpy(b)


def get_backend(default=False):
    """(tensorlib, optimizer) as ``pyhf.get_backend``: tensorlib names the backend (``.name``,
    ``.precision``, ``.backend``) and speaks numpy."""
    b = _core.default_backend()
    tl = _current["tensorlib"]
    if tl is None or tl.backend is not b:
        tl = _current["tensorlib"] = tensorlib_numpy(b)
    return tl, _current["optimizer"]


def backends():
    """Every backend plugin found (bundled with the package or on HFCORE_PLUGIN_PATH): name, path, whether it
    loads and is usable here, why not, and its devices."""
    return _core.list_plugins()
