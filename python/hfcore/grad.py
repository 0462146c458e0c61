"""Gradients with respect to the model's inputs, for differentiable ("neos"-style) analyses.

The inputs are the model's histograms and modifier data as one flat array, in the workspace's order (channels,
samples and modifiers as the JSON lists them): per sample its nominal bins, then per modifier its data (histosys
hi_data then lo_data, normsys hi then lo, shapesys and staterror vals). :func:`input_layout` names every block,
:func:`inputs` gives the model's own values.

Every function takes a new value of the inputs, compiles the model with them and returns values and gradients as
numpy arrays. The data are the main (observed) bins; the aux data are the model's own, which depend on the inputs
(pyhf's ``data = observations + model.config.auxdata``). Profiled quantities are differentiated implicitly at the
fitted minima (docs/differentiable.md); where no gradient is defined the result's ``status`` says why and it has
no gradient. The likelihood's input gradients run on the model's backend in its precision (its fused likelihood's
reverse pass where it offers one, else Tier 1 ops), with ``engine="host_tape"`` on the host in double (the
reference); each result names the route that ran (``route``, ``route_obs``, ``route_asimov``).

Optional autodiff adapters: :func:`jax_expected_cls` (a JAX function with a custom VJP) and
:class:`TorchExpectedCLs` (a ``torch.autograd.Function``), imported only when used.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _core
from .exceptions import HFCoreError

__all__ = [
    "GradientUndefined",
    "LikelihoodGradient",
    "HypotestGradient",
    "input_layout",
    "inputs",
    "twice_nll",
    "logpdf",
    "profiled_twice_nll",
    "hypotest",
    "expected_cls",
    "hypotest_batch",
    "expected_cls_batch",
    "jax_expected_cls",
    "TorchExpectedCLs",
]


class GradientUndefined(HFCoreError):
    """No gradient at this point: a fit did not converge, or its Hessian is singular (the message says which)."""


def _main(model, data):
    data = np.asarray(data, dtype=float)
    n_main = model.config.nmaindata
    # Full data (main + aux) are accepted; their aux part is not used (the model's own aux data are).
    return data[:n_main] if data.ndim == 1 and data.size > n_main else data


def input_layout(model):
    """The blocks of the flat input array: dicts with json_path, field, offset and size."""
    return [dict(json_path=p, field=f, offset=o, size=s) for p, f, o, s in _core._grad_input_layout(model)]


def inputs(model):
    """The model's own input values (the flat array of its histograms and modifier data)."""
    return _core._grad_inputs(model)


class LikelihoodGradient(tuple):
    """``(value, d_inputs, d_pars, d_data)``, which also name themselves, with ``engine`` ("backend" or
    "host_tape") and ``route``, the code that computed them: ``"fused: "`` and the fused likelihood's
    implementation (e.g. ``"fused: cpu fused (64b, ...)"``), ``"tier-1 ops"`` or ``"host tape"``."""

    def __new__(cls, value, d_inputs, d_pars, d_data, engine, route):
        self = super().__new__(cls, (value, d_inputs, d_pars, d_data))
        self.engine = engine
        self.route = route
        return self

    value = property(lambda self: self[0])
    d_inputs = property(lambda self: self[1])
    d_pars = property(lambda self: self[2])
    d_data = property(lambda self: self[3])


def twice_nll(model, inputs, pars, data, engine="automatic"):
    """``-2 logpdf(pars, data)`` with the model's inputs set to ``inputs``, and its gradients.

    Returns a :class:`LikelihoodGradient`, the tuple ``(value, d_inputs, d_pars, d_data)``. ``engine``:
    "automatic" or "backend" (the model's backend), "host_tape" (the host in double, the reference).
    """
    return LikelihoodGradient(*_core._grad_twice_nll(model, inputs, pars, _main(model, data), engine))


def logpdf(model, inputs, pars, data, engine="automatic"):
    """pyhf's ``model.logpdf`` and its gradients (``-twice_nll / 2``): a :class:`LikelihoodGradient`."""
    g = twice_nll(model, inputs, pars, data, engine)
    return LikelihoodGradient(-0.5 * g.value, -0.5 * g.d_inputs, -0.5 * g.d_pars, -0.5 * g.d_data, g.engine, g.route)


def profiled_twice_nll(model, inputs, data, poi_value=None, init_pars=None, par_bounds=None, fixed_params=None):
    """twice_nll at the best fit (``poi_value=None``) or with the POI held at ``poi_value``, and its gradient.

    Returns a dict: status, reason, held (parameters held: fixed, the POI, at a bound), twice_nll, bestfit, route
    (of d_inputs, as :class:`LikelihoodGradient`'s; empty unless ok) and, when status is "ok", d_inputs.
    """
    return _core._grad_profiled_twice_nll(
        model, inputs, _main(model, data), poi_value, init_pars, par_bounds, fixed_params
    )


@dataclass
class HypotestGradient:
    """The asymptotic hypotest (normal base distribution) and its gradients with respect to the inputs.

    ``obs`` is CLs_obs (p0 for q0), ``exp`` the expected band (-2 ... +2 sigma in pyhf's order); the ``d_*``
    arrays are None unless ``status == "ok"``; ``d_exp`` is [5, n_inputs]. The ``d_*_data`` arrays are the
    gradients with respect to the main data, for data that depend on what is optimised. ``route_obs`` and
    ``route_asimov`` name the code (as :class:`LikelihoodGradient`'s ``route``) that gave q_obs's input gradient
    at the fits' points and q_A's direct term (the Asimov data's; empty where the statistic is clipped).
    """

    status: str
    reason: str
    notes: list
    held: list
    q_obs: float
    q_asimov: float
    obs: float
    exp: np.ndarray
    d_q_obs: np.ndarray | None = None
    d_q_asimov: np.ndarray | None = None
    d_obs: np.ndarray | None = None
    d_exp: np.ndarray | None = field(default=None)
    # with respect to the main data (the observations): [n_main], d_exp_data [5, n_main]
    d_q_obs_data: np.ndarray | None = None
    d_q_asimov_data: np.ndarray | None = None
    d_obs_data: np.ndarray | None = None
    d_exp_data: np.ndarray | None = None
    route_obs: str = ""
    route_asimov: str = ""

    @property
    def ok(self):
        return self.status == "ok"


def hypotest(
    poi_test, model, inputs, data, test_stat="qtilde", init_pars=None, par_bounds=None, fixed_params=None,
    engine="automatic",
):
    """pyhf.infer.hypotest (calctype asymptotics) at ``poi_test`` with gradients: a :class:`HypotestGradient`.

    ``engine`` as :func:`twice_nll`'s, for the likelihood's input gradients at the fits' points."""
    r = _core._grad_hypotest(
        float(poi_test), model, inputs, _main(model, data), test_stat, init_pars, par_bounds, fixed_params, engine
    )
    r["exp"] = np.asarray(r["exp"])
    return HypotestGradient(**r)


_NSIGMA = (2, 1, 0, -1, -2)


def _band_index(nsigma):
    if nsigma not in _NSIGMA:
        raise ValueError(f"nsigma must be one of {_NSIGMA}, got {nsigma}")
    # pyhf's order of the expected band: index 0 is the +2 sigma side of the b-only test statistic (lowest CLs).
    return _NSIGMA.index(nsigma)


def expected_cls(model, inputs, data, poi_test=1.0, nsigma=0, test_stat="qtilde"):
    """The expected CLs at ``nsigma`` (pyhf's band, 0: median) and its gradient: ``(value, d_inputs)``.

    Raises :class:`GradientUndefined` where no gradient is defined.
    """
    i = _band_index(nsigma)
    r = hypotest(poi_test, model, inputs, data, test_stat=test_stat)
    if not r.ok:
        raise GradientUndefined(f"{r.status}: {r.reason}")
    return float(r.exp[i]), r.d_exp[i]


def hypotest_batch(poi_test, model, inputs, data, test_stat="qtilde", threads=0):
    """:func:`hypotest` for K models that differ only in their inputs, in one call: ``inputs`` [K, n], ``data``
    one [n_main] for all or [K, n_main]; a list of K :class:`HypotestGradient`. The K items run on ``threads``
    threads (0: HFCORE_NUM_THREADS, else every core this process may use), each with a backend of its own."""
    y = np.atleast_2d(np.asarray(inputs, dtype=float))
    results = _core._grad_hypotest_batch(float(poi_test), model, y, np.atleast_2d(_main(model, data)), test_stat,
                                         int(threads))
    out = []
    for r in results:
        r["exp"] = np.asarray(r["exp"])
        out.append(HypotestGradient(**r))
    return out


def expected_cls_batch(model, inputs, data, poi_test=1.0, nsigma=0, test_stat="qtilde", threads=0):
    """:func:`expected_cls` for K models in one call: ``(values [K], d_inputs [K, n])``. Raises
    :class:`GradientUndefined` naming the first item without a gradient."""
    i = _band_index(nsigma)
    rs = hypotest_batch(poi_test, model, inputs, data, test_stat=test_stat, threads=threads)
    for k, r in enumerate(rs):
        if not r.ok:
            raise GradientUndefined(f"inputs[{k}]: {r.status}: {r.reason}")
    return np.array([r.exp[i] for r in rs]), np.stack([r.d_exp[i] for r in rs])


def jax_expected_cls(model, data, poi_test=1.0, nsigma=0, test_stat="qtilde"):
    """A JAX function ``inputs -> expected CLs`` with a custom VJP, so that ``jax.grad`` (also under ``jit``)
    goes through hfcore's implicit-differentiation gradient; under ``jax.vmap`` the batch is one
    :func:`expected_cls_batch` call. Requires jax.
    """
    try:
        import jax
        import jax.numpy as jnp
    except ImportError as e:  # pragma: no cover - the message is the behaviour
        raise ImportError("hfcore.grad.jax_expected_cls needs jax (pip install jax)") from e

    def host(y):
        y = np.asarray(y)
        if y.ndim == 1:
            value, grad = expected_cls(model, y.astype(float), data, poi_test, nsigma, test_stat)
        else:  # under jax.vmap: [..., n], one batched call
            flat = y.reshape(-1, y.shape[-1]).astype(float)
            values, grads = expected_cls_batch(model, flat, data, poi_test, nsigma, test_stat)
            value, grad = values.reshape(y.shape[:-1]), grads.reshape(y.shape)
        return np.asarray(value, dtype=y.dtype), np.asarray(grad, dtype=y.dtype)

    def both(y):
        shapes = (jax.ShapeDtypeStruct((), y.dtype), jax.ShapeDtypeStruct(y.shape, y.dtype))
        try:  # jax.vmap hands the callback the whole batch at once
            return jax.pure_callback(host, shapes, y, vmap_method="expand_dims")
        except TypeError:  # jax before 0.4.34
            return jax.pure_callback(host, shapes, y, vectorized=True)

    @jax.custom_vjp
    def cls(y):
        return both(y)[0]

    def fwd(y):
        value, grad = both(y)
        return value, grad

    def bwd(grad, g):
        return (g * grad,)

    cls.defvjp(fwd, bwd)
    return lambda y: cls(jnp.asarray(y))


def _torch_function():
    try:
        import torch
    except ImportError as e:  # pragma: no cover
        raise ImportError("hfcore.grad.TorchExpectedCLs needs torch (pip install torch)") from e

    class ExpectedCLs(torch.autograd.Function):
        @staticmethod
        def forward(ctx, y, model, data, poi_test=1.0, nsigma=0, test_stat="qtilde"):
            value, grad = expected_cls(model, y.detach().cpu().double().numpy(), data, poi_test, nsigma, test_stat)
            ctx.save_for_backward(torch.as_tensor(grad, dtype=y.dtype, device=y.device))
            return torch.as_tensor(value, dtype=y.dtype, device=y.device)

        @staticmethod
        def backward(ctx, g):
            (grad,) = ctx.saved_tensors
            return g * grad, None, None, None, None, None

    return ExpectedCLs


class _TorchExpectedCLs:
    """``TorchExpectedCLs.apply(inputs, model, data, poi_test=1.0, nsigma=0, test_stat="qtilde")``: the expected
    CLs as a ``torch.autograd.Function`` (``.backward()`` through hfcore's gradient). Requires torch.
    """

    def apply(self, *args):
        return _torch_function().apply(*args)


TorchExpectedCLs = _TorchExpectedCLs()
