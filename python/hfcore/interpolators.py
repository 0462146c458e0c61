"""The HistFactory interpolation codes, as ``pyhf.interpolators``: code0, code1, code2, code4, code4p and ``get``.

Models never call these: hfcore's engine interpolates inside its compiled model. They are for code that applies
an interpolation to its own histograms, with pyhf's calling convention:

    interp = hfcore.interpolators.get(code)(histogramssets)   # [systematics, samples, 3 (down, nominal, up), bins]
    out = interp(alphasets)                                    # [systematics, alphas] -> [syst, samples, alphas, bins]

code0, code2 and code4p return additive deltas (variation = nominal + delta); code1 and code4 return
multiplicative factors (variation = nominal * factor). The formulas are those of the HistFactory note
(CERN-OPEN-2012-016) and of hfcore's engine (core/modifiers/), evaluated with the current
tensorlib's numpy operations. ``get(code, do_tensorized_calc=False)`` gives a bin-by-bin scalar reference of the
same formulas, for cross-checks.
"""

from __future__ import annotations

import math

import numpy as np

from . import events
from . import exceptions
from .tensor import get_backend

__all__ = ["code0", "code1", "code2", "code4", "code4p", "get"]

_ALPHA0 = 1.0  # code4 / code4p: the polynomial holds for |alpha| < alpha0


def __dir__():
    return __all__


# ---- the scalar formulas: one bin, one alpha ----
def _delta_code0(down, nom, up, alpha):
    return alpha * (up - nom) if alpha >= 0 else alpha * (nom - down)


def _factor_code1(down, nom, up, alpha):
    return math.pow(up / nom, alpha) if alpha >= 0 else math.pow(down / nom, -alpha)


def _delta_code2(down, nom, up, alpha):
    a = 0.5 * (up + down) - nom
    b = 0.5 * (up - down)
    if alpha > 1:
        return (b + 2 * a) * (alpha - 1) + up - nom
    if alpha < -1:
        return (b - 2 * a) * (alpha + 1) + down - nom
    return a * alpha * alpha + b * alpha


def _code4_coefficients(delta_up, delta_dn, alpha0=_ALPHA0):
    """a1..a6 of 1 + sum a_i alpha^i matching value, slope and curvature of delta_up^alpha at alpha0 and of
    delta_dn^-alpha at -alpha0 (any array shapes; the last axis of the result holds a1..a6)."""
    delta_up = np.asarray(delta_up, dtype=float)
    delta_dn = np.asarray(delta_dn, dtype=float)
    powers = np.arange(1, 7)
    a = np.array([
        alpha0 ** powers,
        (-alpha0) ** powers,
        powers * alpha0 ** (powers - 1),
        powers * (-alpha0) ** (powers - 1),
        powers * (powers - 1) * alpha0 ** np.maximum(powers - 2, 0),
        powers * (powers - 1) * (-alpha0) ** np.maximum(powers - 2, 0),
    ])
    up_a0 = delta_up ** alpha0
    dn_a0 = delta_dn ** alpha0
    log_up = np.log(delta_up)
    log_dn = np.log(delta_dn)
    b = np.stack([up_a0 - 1, dn_a0 - 1, log_up * up_a0, -log_dn * dn_a0, log_up ** 2 * up_a0, log_dn ** 2 * dn_a0],
                 axis=-1)
    return np.einsum("ij,...j->...i", np.linalg.inv(a), b)


def _factor_code4(down, nom, up, alpha):
    if alpha >= _ALPHA0:
        return math.pow(up / nom, alpha)
    if alpha <= -_ALPHA0:
        return math.pow(down / nom, -alpha)
    coeffs = _code4_coefficients(up / nom, down / nom)
    return 1.0 + sum(c * alpha ** (i + 1) for i, c in enumerate(coeffs))


def _delta_code4p(down, nom, up, alpha):
    delta_up = up - nom
    delta_dn = nom - down
    if alpha > 1:
        return alpha * delta_up
    if alpha < -1:
        return alpha * delta_dn
    s = 0.5 * (delta_up + delta_dn)
    a = 0.0625 * (delta_up - delta_dn)
    return alpha * (s + alpha * a * (15 + alpha * alpha * (3 * alpha * alpha - 10)))


# ---- the interpolators ----
class _Interpolator:
    """Holds the histograms ([syst, sample, 3, bin]) on the current tensorlib; ``subscribe=True`` converts them
    again when the backend changes (the ``tensorlib_changed`` event)."""

    def __init__(self, histogramssets, subscribe=True):
        self._histogramssets = np.asarray(histogramssets, dtype=float)
        if self._histogramssets.ndim != 4 or self._histogramssets.shape[2] != 3:
            raise ValueError(f"histogramssets: expected shape [systematics, samples, 3, bins], got "
                             f"{self._histogramssets.shape}")
        self.alphasets_shape = (self._histogramssets.shape[0], 1)
        self._precompute()
        if subscribe:
            events.subscribe("tensorlib_changed")(self._precompute)

    def _precompute(self):
        tensorlib, _ = get_backend()
        h = tensorlib.astensor(self._histogramssets)
        # [syst, sample, 1, bin]: broadcast against alphas [syst, 1, alpha, 1].
        self.down, self.nom, self.up = (h[:, :, i][:, :, None, :] for i in range(3))

    def _precompute_alphasets(self, alphasets_shape):
        self.alphasets_shape = tuple(alphasets_shape)

    def _alphas(self, alphasets):
        tensorlib, _ = get_backend()
        alphasets = tensorlib.astensor(alphasets)
        self._precompute_alphasets(tensorlib.shape(alphasets))
        return alphasets[:, None, :, None]


class code0(_Interpolator):
    """Piecewise linear, additive: alpha (up - nominal) above 0, alpha (nominal - down) below."""

    def __call__(self, alphasets):
        alpha = self._alphas(alphasets)
        return np.where(alpha >= 0, alpha * (self.up - self.nom), alpha * (self.nom - self.down))


class code1(_Interpolator):
    """Piecewise exponential, multiplicative: (up/nominal)^alpha above 0, (down/nominal)^-alpha below."""

    def __call__(self, alphasets):
        alpha = self._alphas(alphasets)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(alpha >= 0, (self.up / self.nom) ** alpha, (self.down / self.nom) ** (-alpha))


class code2(_Interpolator):
    """Quadratic inside |alpha| <= 1 with linear extrapolation outside, additive."""

    def __call__(self, alphasets):
        alpha = self._alphas(alphasets)
        a = 0.5 * (self.up + self.down) - self.nom
        b = 0.5 * (self.up - self.down)
        above = (b + 2 * a) * (alpha - 1) + self.up - self.nom
        below = (b - 2 * a) * (alpha + 1) + self.down - self.nom
        inside = a * alpha * alpha + b * alpha
        return np.where(alpha > 1, above, np.where(alpha < -1, below, inside))


class code4(_Interpolator):
    """Polynomial (degree 6) inside |alpha| < 1 joined smoothly to code1's exponentials outside,
    multiplicative."""

    def _precompute(self):
        super()._precompute()
        with np.errstate(divide="ignore", invalid="ignore"):
            self.coefficients = _code4_coefficients(self.up / self.nom, self.down / self.nom)

    def __call__(self, alphasets):
        alpha = self._alphas(alphasets)
        with np.errstate(divide="ignore", invalid="ignore"):
            powers = np.stack([alpha ** k for k in range(1, 7)], axis=-1)
            inside = 1.0 + np.sum(self.coefficients * powers, axis=-1)
            return np.where(alpha >= _ALPHA0, (self.up / self.nom) ** alpha,
                            np.where(alpha <= -_ALPHA0, (self.down / self.nom) ** (-alpha), inside))


class code4p(_Interpolator):
    """Polynomial inside |alpha| < 1 joined smoothly to code0's lines outside, additive."""

    def __call__(self, alphasets):
        alpha = self._alphas(alphasets)
        delta_up = self.up - self.nom
        delta_dn = self.nom - self.down
        s = 0.5 * (delta_up + delta_dn)
        a = 0.0625 * (delta_up - delta_dn)
        inside = alpha * (s + alpha * a * (15 + alpha * alpha * (3 * alpha * alpha - 10)))
        return np.where(alpha > 1, alpha * delta_up, np.where(alpha < -1, alpha * delta_dn, inside))


class _BinByBin(_Interpolator):
    """The scalar formula applied bin by bin (the reference the vectorised classes are checked against)."""

    formula = None

    def __call__(self, alphasets):
        tensorlib, _ = get_backend()
        alphas = np.asarray(tensorlib.astensor(alphasets), dtype=float)
        self._precompute_alphasets(alphas.shape)
        h = self._histogramssets
        out = np.full((h.shape[0], h.shape[1], alphas.shape[1], h.shape[3]), np.nan)
        formula = type(self).formula
        for s, histoset in enumerate(h):
            for k, (down, nom, up) in enumerate(histoset):
                for j, alpha in enumerate(alphas[s]):
                    for b in range(h.shape[3]):
                        if not np.isnan(alpha) and not np.isnan(nom[b]):
                            out[s, k, j, b] = formula(down[b], nom[b], up[b], float(alpha))
        return tensorlib.astensor(out)


def _bin_by_bin(name, formula):
    return type(f"_slow_{name}", (_BinByBin,), {"formula": staticmethod(formula),
                                                "__doc__": f"{name}, bin by bin."})


_slow_code0 = _bin_by_bin("code0", _delta_code0)
_slow_code1 = _bin_by_bin("code1", _factor_code1)
_slow_code2 = _bin_by_bin("code2", _delta_code2)
_slow_code4 = _bin_by_bin("code4", _factor_code4)
_slow_code4p = _bin_by_bin("code4p", _delta_code4p)

_CODES = {
    0: (code0, _slow_code0),
    1: (code1, _slow_code1),
    2: (code2, _slow_code2),
    4: (code4, _slow_code4),
    "4p": (code4p, _slow_code4p),
}


def get(interpcode, do_tensorized_calc=True):
    """The interpolator class of ``interpcode`` (0, 1, 2, 4 or "4p"); InvalidInterpCode for any other."""
    try:
        fast, slow = _CODES[interpcode]
    except (KeyError, TypeError):
        raise exceptions.InvalidInterpCode(
            f"interpolation code {interpcode!r}: choose one of 0, 1, 2, 4, '4p'"
        ) from None
    return fast if do_tensorized_calc else slow
