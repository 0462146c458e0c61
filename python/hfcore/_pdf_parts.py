"""The two parts of a model's likelihood, as pyhf's ``model.main_model`` and ``model.constraint_model``.

Expected rates (in total and per sample) come from hfcore's compiled model; the log-likelihood of each part is
the sum of its Poisson / Gaussian terms on those rates, so main_model.logpdf + constraint_model.logpdf equals
model.logpdf. Parameters [P] give pyhf's unbatched shapes, [K, P] its batched ones (the batch first).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["_ConstraintModel", "_MainModel", "_TensorViewer"]

_lgamma = np.vectorize(math.lgamma, otypes=[float])


def _poisson_logpdf(n, lam):
    """log Poisson(n | lam) with n real (pyhf's continuous form: n log lam - lam - lgamma(n + 1))."""
    n = np.asarray(n, dtype=float)
    lam = np.asarray(lam, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        nloglam = np.where(n == 0, 0.0, n * np.log(lam))
    return nloglam - lam - _lgamma(n + 1.0)


def _normal_logpdf(x, mu, sigma):
    z = (np.asarray(x, dtype=float) - mu) / sigma
    return -0.5 * z * z - np.log(sigma) - 0.5 * math.log(2.0 * math.pi)


def _as_pars(pars, npars):
    p = np.ascontiguousarray(pars, dtype=float)  # the engine reads C-contiguous arrays; cabinetry passes views
    if p.ndim not in (1, 2) or p.shape[-1] != npars:
        raise ValueError(f"pars: expected shape ({npars},) or (K, {npars}), got {p.shape}")
    return p


class _PoissonLogProb:
    """Poisson(rate) with ``log_prob(n)`` (tensorlib.poisson_dist's stand-in)."""

    def __init__(self, rate):
        self.rate = np.asarray(rate, dtype=float)

    def log_prob(self, value):
        return _poisson_logpdf(value, self.rate)


class _TensorViewer:
    """pyhf's tensor viewer of the full data (model.fullpdf_tv): ``split(data)`` gives [main data, auxiliary
    data] along the last axis (the auxiliary part only where the model has constraint terms, as pyhf);
    ``selection`` picks parts by name ("main", "aux"); ``stitch`` joins them again."""

    def __init__(self, sizes, names):
        self.names = list(names)[: len(sizes)]
        self._slices = {}
        begin = 0
        for name, size in zip(self.names, sizes):
            self._slices[name] = slice(begin, begin + size)
            begin += size

    def split(self, data, selection=None):
        d = np.asarray(data, dtype=float)
        return [d[..., self._slices[name]] for name in (self.names if selection is None else selection)]

    def stitch(self, data):
        if len(data) != len(self.names):
            raise ValueError(f"stitch: expected {len(self.names)} parts ({', '.join(self.names)}), got {len(data)}")
        return np.concatenate([np.asarray(d, dtype=float) for d in data], axis=-1)


class _MainModel:
    """The main measurement: Poisson terms of the observed bins on the expected rates."""

    def __init__(self, model):
        self._model = model
        self.config = model.config
        self.batch_size = model.batch_size

    def has_pdf(self):
        return True

    def expected_data(self, pars, return_by_sample=False):
        """Expected rates of the main bins: [N] (or [K, N]); with ``return_by_sample`` every sample's own,
        [S, N] (or [K, S, N]) in config.samples order, 0 where a channel has no such sample."""
        p = _as_pars(pars, self.config.npars)
        if not return_by_sample:
            return np.asarray(self._model.expected_actualdata(p))
        flat = np.asarray(self._model._expected_by_sample(p))  # [K * S, N]
        k = 1 if p.ndim == 1 else p.shape[0]
        by_sample = flat.reshape(k, len(self.config.samples), self.config.nmaindata)
        return by_sample[0] if p.ndim == 1 else by_sample

    def logpdf(self, maindata, pars):
        """Sum of the Poisson log-probabilities of the main data: 0-d (or [K])."""
        lam = self.expected_data(pars)
        return np.sum(_poisson_logpdf(np.asarray(maindata, dtype=float), lam), axis=-1)


class _ConstraintSet:
    """The Gaussian or the Poisson constraint terms: their parameters' positions in pars and auxdata, and their
    widths (sigmas) or rate factors (tau), shown as pyhf does (``batched_sigmas`` / ``batched_factors``, which
    exist only where the model has such terms: cabinetry relies on that)."""

    def __init__(self, config, pdf_type, batch_size):
        self.batch_size = batch_size
        self._normal = pdf_type == "normal"
        par_index, aux_index, widths = [], [], []
        offset = 0
        for name in config.auxdata_order:
            ps = config.param_set(name)
            sl = config.par_slice(name)
            if ps.pdf_type == pdf_type:
                par_index += list(range(sl.start, sl.stop))
                aux_index += list(range(offset, offset + ps.n_parameters))
                widths += list(ps.sigmas if self._normal else ps.factors)
            offset += ps.n_parameters
        self._par_index = np.asarray(par_index, dtype=int)
        self._aux_index = np.asarray(aux_index, dtype=int)
        self._widths = np.asarray(widths, dtype=float)
        if self.has_pdf():
            batched = np.tile(self._widths, (batch_size or 1, 1))
            setattr(self, "batched_sigmas" if self._normal else "batched_factors", batched)

    def has_pdf(self):
        return self._par_index.size > 0

    def logpdf(self, auxdata, pars):
        if not self.has_pdf():
            return np.zeros(pars.shape[:-1])
        aux, p = auxdata[..., self._aux_index], pars[..., self._par_index]
        if self._normal:
            terms = _normal_logpdf(aux, p, self._widths)
        else:
            terms = _poisson_logpdf(aux, p * self._widths)  # aux is tau * (nominal gamma = 1), the rate gamma * tau
        return np.sum(terms, axis=-1)


class _ConstraintModel:
    """The constraint terms: Gaussian ones (normsys, histosys, lumi, staterror) and Poisson ones (shapesys) of
    the auxiliary data."""

    def __init__(self, model):
        self._model = model
        self.config = model.config
        self.batch_size = model.batch_size
        self.constraints_gaussian = _ConstraintSet(self.config, "normal", self.batch_size)
        self.constraints_poisson = _ConstraintSet(self.config, "poisson", self.batch_size)

    def has_pdf(self):
        return self.constraints_gaussian.has_pdf() or self.constraints_poisson.has_pdf()

    def logpdf(self, auxdata, pars):
        """Sum of the constraint terms' log-probabilities: 0-d (or [K])."""
        p = _as_pars(pars, self.config.npars)
        aux = np.asarray(auxdata, dtype=float)
        if aux.shape[-1] != self.config.nauxdata:
            raise ValueError(f"auxdata: expected {self.config.nauxdata} values, got {aux.shape[-1]}")
        return self.constraints_gaussian.logpdf(aux, p) + self.constraints_poisson.logpdf(aux, p)
