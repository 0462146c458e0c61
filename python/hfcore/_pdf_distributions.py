"""``model.make_pdf(pars)``: the model's likelihood as a distribution (pyhf's), to sample toys from or to
evaluate at other data.

The rates are the engine's (``expected_actualdata`` and ``expected_auxdata`` at pars): Poisson terms for the main
bins, Normal terms (widths: the paramsets' sigmas) and Poisson terms for the auxiliary data. Components come in
pyhf's order (main, then the Normal constraints, then the Poisson ones, each in auxdata order), so that a sample
draws numpy's global generator in the order pyhf's numpy backend does.
"""

from __future__ import annotations

import numpy as np

from . import probability

__all__ = ["_Distributions"]


def _aux_layout(config):
    """(indices of Normal-constrained aux entries, their sigmas, indices of Poisson-constrained ones)."""
    normal, sigmas, poisson = [], [], []
    at = 0
    for name in config.auxdata_order:
        ps = config.param_set(name)
        idx = list(range(at, at + ps.n_parameters))
        at += ps.n_parameters
        if ps.pdf_type == "normal":
            normal += idx
            sigmas += list(ps.sigmas)
        else:
            poisson += idx
    return normal, sigmas, poisson


class _Distributions:
    def make_pdf(self, pars):
        """The joint distribution of the main and auxiliary data at ``pars`` ([P], or [K, P] for K points):
        ``sample(shape)`` draws data vectors [*shape, (K,) N + A], ``log_prob(data)`` equals ``logpdf``,
        ``expected_data()`` the engine's expected data."""
        pars = np.asarray(pars, dtype=float)
        nmain = self.config.nmaindata
        normal, sigmas, poisson = _aux_layout(self.config)
        aux = np.asarray(self.expected_auxdata(pars))
        parts = [probability.Independent(probability.Poisson(np.asarray(self.expected_actualdata(pars))))]
        positions = [np.arange(nmain)]
        if normal:
            parts.append(probability.Independent(probability.Normal(aux[..., normal], np.asarray(sigmas))))
            positions.append(nmain + np.asarray(normal))
        if poisson:
            parts.append(probability.Independent(probability.Poisson(aux[..., poisson])))
            positions.append(nmain + np.asarray(poisson))
        return probability.Simultaneous(parts, positions, batch_size=self.batch_size)
