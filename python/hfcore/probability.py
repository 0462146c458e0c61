"""Distributions, as ``pyhf.probability``: Poisson, Normal, Independent and Simultaneous.

They are what ``model.make_pdf(pars)`` returns (the engine's expected rates, wrapped) and what code written for
pyhf builds by hand. Log-probabilities are the current tensorlib's numpy operations (pyhf's definitions: the
Poisson continued to real counts); samples are drawn with numpy's global generator, as pyhf's numpy backend
draws them, so ``numpy.random.seed`` reproduces pyhf's samples.
"""

from __future__ import annotations

import numpy as np

from .tensor import get_backend

__all__ = ["Independent", "Normal", "Poisson", "Simultaneous"]


def __dir__():
    return __all__


class _SimpleDistributionMixin:
    def log_prob(self, value):
        """log p(value), element by element."""
        return self._pdf.log_prob(value)

    def expected_data(self):
        """The mean of the distribution."""
        return self._pdf.expected_data()

    def sample(self, sample_shape=()):
        """Values drawn from the distribution, of shape ``sample_shape + batch shape``."""
        return self._pdf.sample(sample_shape)


class _Dist:
    """One tensorlib distribution and its mean."""

    def __init__(self, dist, mean):
        self._dist = dist
        self._mean = mean

    def log_prob(self, value):
        return self._dist.log_prob(value)

    def expected_data(self):
        return self._mean

    def sample(self, sample_shape):
        return self._dist.sample(tuple(sample_shape))


class Poisson(_SimpleDistributionMixin):
    """Poisson(n | rate) for each entry of ``rate``."""

    def __init__(self, rate):
        tensorlib, _ = get_backend()
        self.rate = rate
        self._pdf = _Dist(tensorlib.poisson_dist(tensorlib.astensor(rate)), rate)


class Normal(_SimpleDistributionMixin):
    """Normal(x | loc, scale) for each entry of ``loc``."""

    def __init__(self, loc, scale):
        tensorlib, _ = get_backend()
        self.loc = loc
        self.scale = scale
        self._pdf = _Dist(tensorlib.normal_dist(tensorlib.astensor(loc), tensorlib.astensor(scale)), loc)


class Independent(_SimpleDistributionMixin):
    """Independent draws of a batch of distributions: log_prob sums over the last axis."""

    def __init__(self, batched_pdf, batch_size=None):
        self.batch_size = batch_size
        self._pdf = batched_pdf

    def log_prob(self, value):
        tensorlib, _ = get_backend()
        return tensorlib.sum(self._pdf.log_prob(value), axis=-1)


class _Stitcher:
    """Where each component's entries go in the joint vector: ``positions[i]`` are the indices (in the joint
    vector's last axis) of component i's entries, in order."""

    def __init__(self, positions):
        self.positions = [np.asarray(p, dtype=int) for p in positions]
        self.size = sum(len(p) for p in self.positions)

    def stitch(self, parts):
        tensorlib, _ = get_backend()
        parts = [tensorlib.astensor(p) for p in parts]
        lead = np.broadcast_shapes(*(p.shape[:-1] for p in parts))
        out = tensorlib.zeros(lead + (self.size,))
        for pos, part in zip(self.positions, parts):
            out[..., pos] = part
        return out

    def split(self, data):
        tensorlib, _ = get_backend()
        data = tensorlib.astensor(data)
        return [data[..., pos] for pos in self.positions]


class Simultaneous:
    """A joint distribution of several components, each over its own entries of the data vector. ``tensorview``
    places the components' entries: hfcore's own (``model.fullpdf_tv``), or a list of index lists, one per
    component."""

    def __init__(self, pdfobjs, tensorview, batch_size=None):
        self.tv = tensorview if tensorview is None or hasattr(tensorview, "stitch") else _Stitcher(tensorview)
        self._pdfobjs = pdfobjs
        self.batch_size = batch_size

    def __iter__(self):
        yield from self._pdfobjs

    def __getitem__(self, index):
        return self._pdfobjs[index]

    def expected_data(self):
        return self.tv.stitch([p.expected_data() for p in self])

    def sample(self, sample_shape=()):
        """Each component drawn in turn (the order pyhf draws them in), then placed in the joint vector."""
        return self.tv.stitch([p.sample(sample_shape) for p in self])

    def log_prob(self, value):
        terms = [p.log_prob(d) for p, d in zip(self, self.tv.split(value))]
        return Simultaneous._joint_logpdf(terms, batch_size=self.batch_size)

    @staticmethod
    def _joint_logpdf(terms, batch_size=None):
        tensorlib, _ = get_backend()
        if len(terms) == 1:
            return terms[0]
        if len(terms) == 2 and batch_size is None:
            return terms[0] + terms[1]
        return tensorlib.sum(tensorlib.stack(terms), axis=0)
