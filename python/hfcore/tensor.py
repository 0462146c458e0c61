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

__all__ = ["backends", "get_backend", "set_backend", "backend", "numpy_backend"]

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


def _vectorized(fn, x):
    return np.vectorize(fn, otypes=[float])(np.asarray(x, dtype=float))


# Giles' single-precision approximation of erfinv ("Approximating the erfinv function", GPU Computing Gems), as
# the start of Newton steps on math.erf: numpy has no erfinv, and scipy is not a dependency of hfcore.
_GILES_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_GILES_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
               0.00943887047, 1.00167406, 2.83297682)


def _erfinv_scalar(y):
    if not -1.0 < y < 1.0:
        return math.copysign(math.inf, y) if abs(y) == 1.0 else math.nan
    w = -math.log((1.0 - y) * (1.0 + y))
    coeffs, w = (_GILES_CENTRAL, w - 2.5) if w < 5.0 else (_GILES_TAIL, math.sqrt(w) - 3.0)
    p = 0.0
    for c in coeffs:
        p = c + p * w
    x = p * y
    for _ in range(3):
        x -= (math.erf(x) - y) / (2.0 / math.sqrt(math.pi) * math.exp(-x * x))
    return x


class _BasicPoisson:
    """What ``tensorlib.poisson_dist(rate)`` returns: ``sample(shape)`` and ``log_prob(n)``."""

    def __init__(self, rate):
        self.rate = np.asarray(rate)

    def sample(self, sample_shape):
        return np.random.poisson(self.rate, size=tuple(sample_shape) + self.rate.shape).astype(float)

    def log_prob(self, value):
        return _NumpyBackend().poisson_logpdf(value, self.rate)


class _BasicNormal:
    """What ``tensorlib.normal_dist(mu, sigma)`` returns: ``sample(shape)`` and ``log_prob(x)``."""

    def __init__(self, loc, scale):
        self.loc = np.asarray(loc)
        self.scale = np.asarray(scale)

    def sample(self, sample_shape):
        return np.random.normal(self.loc, self.scale, size=tuple(sample_shape) + self.loc.shape)

    def log_prob(self, value):
        return _NumpyBackend().normal_logpdf(value, self.loc, self.scale)


class _NumpyBackend:
    """``hfcore.tensor.numpy_backend``: pyhf's tensorlib vocabulary on numpy, at the precision of an hfcore
    backend. ``hfcore.set_backend(numpy_backend(precision=...))`` puts models on the cpu plugin at that precision;
    ``get_backend()[0]`` on an opencl or cuda backend is one of these too, named after that backend."""

    array_type = np.ndarray
    array_subtype = np.number
    # pyhf's backends are slotted: a misspelt attribute set on pyhf.tensorlib fails instead of vanishing.
    __slots__ = ("name", "precision", "dtypemap", "default_do_grad", "poisson_from_normal", "_backend")

    def __init__(self, precision="64b", poisson_from_normal=False, **kwargs):
        if kwargs:
            raise exceptions.Unsupported(f"Unsupported options were passed in: {list(kwargs.keys())}.")
        self.precision = _canonical_precision(precision)
        # pyhf's flag for autodiff backends (Poisson constraints evaluated through a Normal); the numpy backend
        # accepts it and, as pyhf's does, computes the Poisson as it is.
        self.poisson_from_normal = bool(poisson_from_normal)
        self._backend = None
        self.name = "numpy"
        self.dtypemap = {
            "float": np.float64 if self.precision == "64b" else np.float32,
            "int": np.int64 if self.precision == "64b" else np.int32,
            "bool": np.bool_,
        }
        self.default_do_grad = False

    @classmethod
    def _on(cls, backend_obj):
        tl = cls(precision=backend_obj.precision)
        tl._backend = backend_obj
        if backend_obj.name != "cpu":
            tl.name = backend_obj.name
        return tl

    def __repr__(self):
        where = self._backend.description if self._backend is not None else f"cpu, {self.precision}"
        return f"<hfcore tensorlib {self.name!r} on {where}>"

    def _setup(self):
        """pyhf's hook for backend set-up; nothing to do on numpy."""

    @property
    def backend(self):
        """The hfcore backend models are built on (loaded when first asked for)."""
        if self._backend is None:
            self._backend = globals()["backend"]("cpu", precision=self.precision)
        return self._backend

    # ---- creation and conversion ----
    def astensor(self, tensor_in, dtype="float"):
        try:
            dtype = self.dtypemap[dtype]
        except KeyError:
            raise KeyError(f"Invalid dtype: dtype must be float, int, or bool, not {dtype!r}") from None
        return np.asarray(tensor_in, dtype=dtype)

    def tolist(self, tensor_in):
        if isinstance(tensor_in, list):
            return tensor_in
        return tensor_in.tolist()

    def to_numpy(self, tensor_in):
        return np.asarray(tensor_in)

    def ones(self, shape, dtype="float"):
        try:
            return np.ones(shape, dtype=self.dtypemap[dtype])
        except KeyError:
            raise KeyError(f"Invalid dtype: dtype must be float, int, or bool, not {dtype!r}") from None

    def zeros(self, shape, dtype="float"):
        try:
            return np.zeros(shape, dtype=self.dtypemap[dtype])
        except KeyError:
            raise KeyError(f"Invalid dtype: dtype must be float, int, or bool, not {dtype!r}") from None

    def shape(self, tensor):
        return tensor.shape

    def reshape(self, tensor, newshape):
        return np.reshape(tensor, newshape)

    def ravel(self, tensor):
        return np.ravel(tensor)

    def gather(self, tensor, indices):
        return tensor[indices]

    def boolean_mask(self, tensor, mask):
        return tensor[mask]

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

    def percentile(self, tensor_in, q, axis=None, interpolation="linear"):
        return np.percentile(tensor_in, q, axis=axis, method=interpolation)

    def simple_broadcast(self, *args):
        return np.broadcast_arrays(*args)

    # ---- special functions and distributions (pyhf's definitions) ----
    def erf(self, tensor_in):
        return _vectorized(math.erf, tensor_in)

    def erfinv(self, tensor_in):
        return _vectorized(_erfinv_scalar, tensor_in)

    def normal_cdf(self, x, mu=0, sigma=1):
        z = (np.asarray(x, dtype=float) - mu) / (np.asarray(sigma, dtype=float) * math.sqrt(2.0))
        return 0.5 * _vectorized(math.erfc, -z)

    def normal_logpdf(self, x, mu, sigma):
        sigma = np.asarray(sigma, dtype=float)
        z = (np.asarray(x, dtype=float) - mu) / sigma
        return -0.5 * z * z - np.log(sigma * math.sqrt(2.0 * math.pi))

    def normal(self, x, mu, sigma):
        return np.exp(self.normal_logpdf(x, mu, sigma))

    def poisson_logpdf(self, n, lam):
        """log Poisson(n | lam) continued to real n (n! as Gamma(n + 1)); lam = 0 gives 0 at n = 0."""
        n = np.asarray(n, dtype=float)
        lam = np.asarray(lam, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            xlogy = np.where(n == 0, 0.0, n * np.log(np.where(n == 0, 1.0, lam)))
        return xlogy - lam - _vectorized(math.lgamma, n + 1.0)

    def poisson(self, n, lam):
        return np.exp(self.poisson_logpdf(n, lam))

    def poisson_dist(self, rate):
        return _BasicPoisson(rate)

    def normal_dist(self, mu, sigma):
        return _BasicNormal(mu, sigma)


# The public name is pyhf's; the module uses the private one, which a caller deleting the attribute (as pyhf's
# tests of its lazy imports do) cannot take away.
_NumpyBackend.__name__ = _NumpyBackend.__qualname__ = "numpy_backend"


class _NoAutodiffBackend(exceptions.InvalidBackend, exceptions.ImportBackendError):
    """pytorch_backend, jax_backend, tensorflow_backend: hfcore has no autodiff framework behind it (pyhf raises
    ImportBackendError where the framework is not installed; hfcore's own name for it is InvalidBackend)."""


_AUTODIFF = ("pytorch_backend", "jax_backend", "tensorflow_backend")
# Backend names set_backend resolves itself; a tensorlib object named otherwise is a custom one.
_KNOWN_NAMES = {"numpy", "cpu", "opencl", "cuda", "auto", "jax", "pytorch", "tensorflow"}


def _no_autodiff(name):
    return _NoAutodiffBackend(
        f"hfcore has no {name} (no autodiff framework): use numpy_backend (hfcore's cpu plugin), or "
        "set_backend('opencl' / 'cuda')"
    )


def _autodiff_backend(name):
    # Named (parametrized tests list them) but not made: calling one raises.
    def make(*args, **kwargs):
        raise _no_autodiff(name)

    make.__name__ = make.__qualname__ = name
    return make


pytorch_backend, jax_backend, tensorflow_backend = (_autodiff_backend(n) for n in _AUTODIFF)


# pyhf's tuples of the array types (and element types) of every backend it has: numpy's, here.
array_types = (np.ndarray,)
array_subtypes = (np.number,)


def __getattr__(name):
    # pyhf's tensor names resolved on use, as pyhf's lazy backend retriever does: numpy_backend needs numpy (a
    # test may hide it), the autodiff backends are not in hfcore.
    if name == "numpy_backend":
        import importlib

        importlib.import_module("numpy")
        return _NumpyBackend
    if name in _AUTODIFF:
        raise _no_autodiff(name)
    raise AttributeError(f"module 'hfcore.tensor' has no attribute {name!r}")


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


# pyhf keeps a default and a current (tensorlib, optimizer); set_backend(..., default=True) changes both.
_state = {"current": [None, hfcore_optimizer()], "default": [None, hfcore_optimizer()]}


def _optimizer_from(custom_optimizer):
    if isinstance(custom_optimizer, bytes):
        custom_optimizer = custom_optimizer.decode("utf-8")
    if not isinstance(custom_optimizer, str):
        # An optimizer object (hfcore.optimize's, or any with a name): fits read its name and options.
        if not hasattr(custom_optimizer, "name"):
            raise exceptions.InvalidOptimizer(f"custom_optimizer: expected an optimizer name or object, got "
                                              f"{custom_optimizer!r}")
        from .optimize import _KNOWN

        # As pyhf: an object that takes the name of one of its optimizers must be that optimizer (fits read its
        # options); any other name is the caller's own optimizer.
        known = _KNOWN.get(custom_optimizer.name)
        if known is not None and not isinstance(custom_optimizer, known):
            raise AttributeError(f"Your optimizer ({custom_optimizer.name}) should be of type {known}")
        return custom_optimizer
    name = custom_optimizer.lower()
    if name not in ("scipy", "minuit", "hfcore"):
        raise exceptions.InvalidOptimizer(
            f"The optimizer provided is not supported: {custom_optimizer}. Select from one of the "
            "supported optimizers: scipy, minuit (hfcore fits with its own minimiser either way)."
        )
    if name == "hfcore":
        return hfcore_optimizer()
    try:
        from .optimize import by_name
    except ImportError:
        return hfcore_optimizer(name)
    return by_name(name)


def _registered_set_backend(func):
    # pyhf's set_backend is an event source ("change_backend::before" / "::after"); events imports nothing of
    # hfcore, so importing it here is safe.
    from . import events

    return events.register("change_backend")(func)


@_registered_set_backend
def set_backend(backend, custom_optimizer=None, precision=None, default=False, device=0, platform=0):
    """Chooses the backend models are built and evaluated on, as ``pyhf.set_backend``.

    ``backend``: "numpy" or "cpu" (the host), "opencl", "cuda", "auto", a plugin file, an object from
    :func:`backend`, or a tensorlib (``hfcore.tensor.numpy_backend(precision=...)``). ``precision``: "64b" or
    "32b" (default: the tensorlib's, else 64b). ``device``: the GPU index. ``default=True`` makes it the default
    backend as well. Models built without an explicit backend follow the change (they are recompiled for the new
    backend at their next use), as pyhf's models follow ``pyhf.set_backend``.
    """
    if isinstance(backend, bytes):
        backend = backend.decode("utf-8")
    if isinstance(precision, bytes):
        precision = precision.decode("utf-8")
    if precision is not None:
        _canonical_precision(precision)
    if isinstance(backend, _core.Backend):
        if precision is not None and _canonical_precision(precision) != backend.precision:
            raise exceptions.Unsupported(
                f"precision {precision!r} asked for a backend loaded at {backend.precision}; load it with that precision"
            )
        b = backend
    elif isinstance(backend, str):
        b = globals()["backend"](backend.lower(), precision=precision, device=device, platform=platform)
    elif isinstance(backend, _NumpyBackend):
        if precision is None or _canonical_precision(precision) == backend.precision:
            b = backend.backend
        else:
            b = globals()["backend"](backend.backend.name, precision=precision, device=device)
    elif hasattr(backend, "name") and hasattr(backend, "precision") and backend.name in _KNOWN_NAMES:
        # A tensorlib of another library (pyhf's own, say): served by the backend of that name, if hfcore has it.
        b = globals()["backend"](backend.name, precision=precision or backend.precision, device=device)
    elif hasattr(backend, "name") and hasattr(backend, "precision"):
        # A custom tensorlib (pyhf allows any name of its own): it becomes hfcore.tensorlib; models keep running
        # on the cpu plugin at its precision.
        b = globals()["backend"]("cpu", precision=precision or backend.precision)
    else:
        raise exceptions.InvalidBackend(f"backend: expected a name or an hfcore backend, got {backend!r}")
    optimizer = hfcore_optimizer() if custom_optimizer is None else _optimizer_from(custom_optimizer)
    if isinstance(backend, _NumpyBackend):
        tensorlib = backend if backend.backend is b else _NumpyBackend._on(b)
    elif not isinstance(backend, (str, _core.Backend)) and getattr(backend, "name", None) not in _KNOWN_NAMES:
        tensorlib = backend
    else:
        tensorlib = _NumpyBackend._on(b)
    _core.set_default_backend(b)
    if _state["current"][0] is not tensorlib and hasattr(tensorlib, "_setup"):
        tensorlib._setup()
    _state["current"] = [tensorlib, optimizer]
    _state["engine"] = b
    if default:
        _state["default"] = [tensorlib, optimizer]
    from . import events

    events.trigger("tensorlib_changed")()


def get_backend(default=False):
    """(tensorlib, optimizer) as ``pyhf.get_backend``: tensorlib names the backend (``.name``,
    ``.precision``, ``.backend``) and speaks numpy."""
    state = _state["default" if default else "current"]
    if default and state[0] is None:
        state[0] = _NumpyBackend()
    if not default:
        b = _core.default_backend()
        if state[0] is None or _state.get("engine") is not b:
            # The engine's default backend was changed elsewhere (or never set here): its tensorlib.
            state[0] = _NumpyBackend._on(b)
            _state["engine"] = b
    return state[0], state[1]


def backends():
    """Every backend plugin found (bundled with the package or on HFCORE_PLUGIN_PATH): name, path, whether it
    loads and is usable here, why not, and its devices."""
    return _core.list_plugins()
