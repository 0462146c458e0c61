"""Calculators of hypothesis tests, as ``pyhf.infer.calculators``: the asymptotic and toy-based distributions of a
test statistic, their p-values, and the Asimov data.

Every fit and test statistic here is hfcore's engine (``hfcore.infer.mle``, ``hfcore.infer.test_statistics``);
the distributions' p-values are the current tensorlib's (numpy) operations on those numbers, with pyhf's
definitions. ``hfcore.infer.hypotest`` does not go through these classes (the engine runs the whole test in one
call); with ``return_calculator=True`` it returns one of them, filled from that call's fits.

Toys (``ToyCalculator.distributions``) are drawn from ``model.make_pdf(pars).sample``: the engine's expected
rates, drawn with numpy's global generator as pyhf's numpy backend draws them (``numpy.random.seed`` reproduces
pyhf's toys). ``hypotest(..., calctype="toybased")`` draws its toys in the engine instead (``seed=``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..tensor import get_backend
from ._common import OptimizeResult, as_tensor

__all__ = ["AsymptoticCalculator", "AsymptoticTestStatDistribution", "EmpiricalDistribution", "ToyCalculator",
           "generate_asimov_data", "HypoTestFitResults"]


def __dir__():
    return __all__


def generate_asimov_data(asimov_mu, data, pdf, init_pars, par_bounds, fixed_params, return_fitted_pars=False):
    """The Asimov data of ``pdf`` at the POI ``asimov_mu``: the expected data (main and auxiliary) at the fit of
    ``data`` with the POI fixed there. With ``return_fitted_pars``: (asimov_data, those parameters)."""
    from .mle import fixed_poi_fit

    pars = fixed_poi_fit(asimov_mu, data, pdf, init_pars, par_bounds, fixed_params)
    asimov_data = pdf.expected_data(pars)
    return (asimov_data, pars) if return_fitted_pars else asimov_data


class AsymptoticTestStatDistribution:
    """The asymptotic distribution of sqrt(q): a unit normal shifted by ``shift`` (pyhf's convention: -sqrt(q_A)
    for signal plus background, 0 for background only), undefined below ``cutoff``."""

    def __init__(self, shift, cutoff=float("-inf")):
        self.shift = shift
        self.cutoff = cutoff

    def cdf(self, value):
        tensorlib, _ = get_backend()
        return tensorlib.normal_cdf(value - self.shift)

    def pvalue(self, value):
        """P(X >= value); nan below the cutoff."""
        tensorlib, _ = get_backend()
        p = tensorlib.normal_cdf(-(value - self.shift))
        return tensorlib.where(tensorlib.astensor(value >= self.cutoff, dtype="bool"), p,
                               tensorlib.ones(tensorlib.shape(p)) * float("nan"))

    def expected_value(self, nsigma):
        """The value ``nsigma`` above the shift (not below the cutoff)."""
        tensorlib, _ = get_backend()
        return tensorlib.where(tensorlib.astensor(self.shift + nsigma > self.cutoff, dtype="bool"),
                               tensorlib.astensor(self.shift + nsigma), tensorlib.astensor(self.cutoff))


class EmpiricalDistribution:
    """The distribution of a test statistic given by samples (toys)."""

    def __init__(self, samples):
        tensorlib, _ = get_backend()
        self.samples = tensorlib.ravel(samples)

    def pvalue(self, value):
        """The fraction of samples >= value."""
        tensorlib, _ = get_backend()
        return tensorlib.astensor(tensorlib.sum(tensorlib.where(self.samples >= value, tensorlib.astensor(1),
                                                                tensorlib.astensor(0)))
                                  / tensorlib.shape(self.samples)[0])

    def expected_value(self, nsigma):
        """The samples' percentile at the normal CDF of ``nsigma`` (linear interpolation)."""
        tensorlib, _ = get_backend()
        return tensorlib.percentile(self.samples, tensorlib.normal_cdf(nsigma) * 100, interpolation="linear")


@dataclass(frozen=True)
class HypoTestFitResults:
    """The fits of an asymptotic hypotest (pyhf's names)."""

    asimov_pars: np.ndarray
    free_fit_to_data: np.ndarray
    free_fit_to_asimov: np.ndarray
    fixed_poi_fit_to_data: np.ndarray
    fixed_poi_fit_to_asimov: np.ndarray


def _pvalues(teststat, sig_plus_bkg_distribution, bkg_only_distribution):
    tensorlib, _ = get_backend()
    CLsb = sig_plus_bkg_distribution.pvalue(teststat)
    CLb = bkg_only_distribution.pvalue(teststat)
    return CLsb, CLb, tensorlib.astensor(CLsb / CLb)


class _Calculator:
    def __init__(self, data, pdf, init_pars, par_bounds, fixed_params, test_stat):
        from ._common import check_test_stat

        check_test_stat(test_stat)
        self.data = data
        self.pdf = pdf
        # pyhf's "or": an empty list also means the model's suggestion.
        self.init_pars = init_pars or pdf.config.suggested_init()
        self.par_bounds = par_bounds or pdf.config.suggested_bounds()
        self.fixed_params = fixed_params or pdf.config.suggested_fixed()
        self.test_stat = test_stat
        self.result = None  # the engine's HypotestResult, when made by hypotest(return_calculator=True)

    def _stat(self, poi_test, data, return_fitted_pars=False):
        from .utils import get_test_stat

        return get_test_stat(self.test_stat)(poi_test, data, self.pdf, self.init_pars, self.par_bounds,
                                             self.fixed_params, return_fitted_pars=return_fitted_pars)

    def pvalues(self, teststat, sig_plus_bkg_distribution, bkg_only_distribution):
        """(CLsb, CLb, CLs) of ``teststat``."""
        return _pvalues(teststat, sig_plus_bkg_distribution, bkg_only_distribution)


class AsymptoticCalculator(_Calculator):
    """The asymptotic calculator (Cowan, Cranmer, Gross, Vitells, arXiv:1007.1727), as pyhf's: call
    ``teststatistic(poi)`` (the engine's fits to the data and to the Asimov data), then ``distributions(poi)``,
    ``pvalues`` and ``expected_pvalues``."""

    def __init__(self, data, pdf, init_pars=None, par_bounds=None, fixed_params=None, test_stat="qtilde",
                 calc_base_dist="normal"):
        super().__init__(data, pdf, init_pars, par_bounds, fixed_params, test_stat)
        self.calc_base_dist = calc_base_dist
        self.sqrtqmuA_v = None
        self.fitted_pars = None

    def distributions(self, poi_test):
        """(signal-plus-background, background-only) distributions of the test statistic at ``poi_test``."""
        if self.sqrtqmuA_v is None:
            raise RuntimeError("need to call .teststatistic(poi_test) first")
        if self.calc_base_dist == "normal":
            cutoff = float("-inf")
        elif self.calc_base_dist == "clipped_normal":
            cutoff = -self.sqrtqmuA_v
        else:
            raise ValueError(f"unknown base distribution for asymptotics {self.calc_base_dist}")
        return AsymptoticTestStatDistribution(-self.sqrtqmuA_v, cutoff), AsymptoticTestStatDistribution(0.0, cutoff)

    def teststatistic(self, poi_test):
        """The asymptotic test statistic at ``poi_test``: sqrt(q) - sqrt(q_A), and for qtilde above sqrt(q_A)
        (q - q_A) / (2 sqrt(q_A)). Fills ``fitted_pars`` and ``sqrtqmuA_v``."""
        tensorlib, _ = get_backend()
        qmu_v, (mubhathat, muhatbhat) = self._stat(poi_test, self.data, return_fitted_pars=True)
        asimov_mu = 1.0 if self.test_stat == "q0" else 0.0
        asimov_data, asimov_pars = generate_asimov_data(asimov_mu, self.data, self.pdf, self.init_pars,
                                                        self.par_bounds, self.fixed_params, return_fitted_pars=True)
        qmuA_v, (mubhathat_A, muhatbhat_A) = self._stat(poi_test, asimov_data, return_fitted_pars=True)
        self.fitted_pars = HypoTestFitResults(asimov_pars=asimov_pars, free_fit_to_data=muhatbhat,
                                              free_fit_to_asimov=muhatbhat_A, fixed_poi_fit_to_data=mubhathat,
                                              fixed_poi_fit_to_asimov=mubhathat_A)
        return self._from_q(qmu_v, qmuA_v)

    def _from_q(self, qmu_v, qmuA_v):
        tensorlib, _ = get_backend()
        sqrtqmu_v = tensorlib.sqrt(qmu_v)
        self.sqrtqmuA_v = tensorlib.sqrt(qmuA_v)
        if self.test_stat in ("q", "q0") or sqrtqmu_v <= self.sqrtqmuA_v:
            return tensorlib.astensor(sqrtqmu_v - self.sqrtqmuA_v)
        return tensorlib.astensor((qmu_v - qmuA_v) / (2 * self.sqrtqmuA_v))

    def expected_pvalues(self, sig_plus_bkg_distribution, bkg_only_distribution):
        """[[CLsb], [CLb], [CLs]] at the background-only expectation +2, +1, 0, -1, -2 sigma."""
        per_sigma = [self.pvalues(bkg_only_distribution.expected_value(n), sig_plus_bkg_distribution,
                                  bkg_only_distribution) for n in (2, 1, 0, -1, -2)]
        return [list(band) for band in zip(*per_sigma)]


class ToyCalculator(_Calculator):
    """The toy-based calculator, as pyhf's: toys drawn at the fits with the POI fixed at the tested value
    (signal plus background) and at 0 (background only; 1 for q0), the test statistic of each toy from the
    engine's fits."""

    def __init__(self, data, pdf, init_pars=None, par_bounds=None, fixed_params=None, test_stat="qtilde",
                 ntoys=2000, track_progress=True):
        super().__init__(data, pdf, init_pars, par_bounds, fixed_params, test_stat)
        self.ntoys = ntoys
        self.track_progress = track_progress

    def distributions(self, poi_test, track_progress=None):
        """(signal-plus-background, background-only) empirical distributions of the test statistic."""
        from .mle import fixed_poi_fit

        tensorlib, _ = get_backend()
        samples = []
        for mu in (poi_test, 1.0 if self.test_stat == "q0" else 0.0):
            pars = fixed_poi_fit(mu, self.data, self.pdf, self.init_pars, self.par_bounds, self.fixed_params)
            samples.append(self.pdf.make_pdf(pars).sample((self.ntoys,)))
        sig, bkg = ([self._stat(poi_test, toy) for toy in toys] for toys in samples)
        return EmpiricalDistribution(tensorlib.astensor(sig)), EmpiricalDistribution(tensorlib.astensor(bkg))

    def expected_pvalues(self, sig_plus_bkg_distribution, bkg_only_distribution):
        """The CLsb, CLb and CLs bands: percentiles of the p-values of the background-only toys."""
        tb, _ = get_backend()
        pvalues = tb.astensor([self.pvalues(t, sig_plus_bkg_distribution, bkg_only_distribution)
                               for t in bkg_only_distribution.samples])
        percentiles = tb.astensor([100 * float(tb.normal_cdf(n)) for n in (-2, -1, 0, 1, 2)])
        bands = tb.transpose(tb.percentile(pvalues, percentiles, axis=0))
        return [[tb.astensor(p) for p in band] for band in bands]

    def teststatistic(self, poi_test):
        return self._stat(poi_test, self.data)


# ---- what hfcore.infer.hypotest(return_calculator=True) returns ----
def _calculator_from(r, calctype, opts, poi_test, data=None, pdf=None, init_pars=None, par_bounds=None,
                     fixed_params=None):
    """A calculator of ``calctype`` holding the engine's finished hypotest ``r`` (its fits, test statistic and
    toys), so that nothing is fitted again."""
    if calctype == "asymptotics":
        calc = AsymptoticCalculator(data, pdf, init_pars, par_bounds, fixed_params, test_stat=opts["test_stat"],
                                    calc_base_dist=opts["calc_base_dist"])
        calc.fitted_pars = HypoTestFitResults(
            asimov_pars=r.asimov_pars,
            free_fit_to_data=r.free_fit_to_data,
            free_fit_to_asimov=r.free_fit_to_asimov,
            fixed_poi_fit_to_data=r.fixed_poi_fit_to_data,
            fixed_poi_fit_to_asimov=r.fixed_poi_fit_to_asimov,
        )
        calc._from_q(as_tensor(max(r.q_obs, 0.0)), as_tensor(max(r.q_asimov, 0.0)))
    else:
        calc = ToyCalculator(data, pdf, init_pars, par_bounds, fixed_params, test_stat=opts["test_stat"],
                             ntoys=opts["ntoys"], track_progress=False)
    calc.result = r
    calc.poi_test = poi_test
    return calc


def _failed(r):
    return OptimizeResult(success=False, message="a fit of the hypotest did not converge", result=r,
                          x=r.free_fit_to_data, fun=as_tensor(r.twice_nll_free))
