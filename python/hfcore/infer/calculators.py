"""What ``hypotest(..., return_calculator=True)`` returns, shaped as pyhf's calculators' results."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._common import OptimizeResult, as_tensor

__all__ = ["HypoTestFitResults", "HypotestCalculatorResult"]


@dataclass(frozen=True)
class HypoTestFitResults:
    """The fits of an asymptotic hypotest (pyhf's names)."""

    asimov_pars: np.ndarray
    free_fit_to_data: np.ndarray
    free_fit_to_asimov: np.ndarray
    fixed_poi_fit_to_data: np.ndarray
    fixed_poi_fit_to_asimov: np.ndarray


class HypotestCalculatorResult:
    """A finished calculator: ``fitted_pars`` (asymptotics), the test statistic and the distributions' p-values
    as computed by hfcore. ``result`` is the full C++ result (q_obs, q_asimov, toys' test statistics, ...)."""

    def __init__(self, r, calctype, opts, poi_test):
        self.result = r
        self.calctype = calctype
        self.test_stat = opts["test_stat"]
        self.poi_test = poi_test
        self.ntoys = opts["ntoys"]
        if calctype == "asymptotics":
            self.fitted_pars = HypoTestFitResults(
                asimov_pars=r.asimov_pars,
                free_fit_to_data=r.free_fit_to_data,
                free_fit_to_asimov=r.free_fit_to_asimov,
                fixed_poi_fit_to_data=r.fixed_poi_fit_to_data,
                fixed_poi_fit_to_asimov=r.fixed_poi_fit_to_asimov,
            )
            self.sqrtqmuA_v = as_tensor(np.sqrt(max(r.q_asimov, 0.0)))
        else:
            self.fitted_pars = None

    def teststatistic(self, poi_test=None):
        return as_tensor(self.result.teststat)

    def pvalues(self, *args):
        r = self.result
        return as_tensor(r.CLsb_obs), as_tensor(r.CLb_obs), as_tensor(r.CLs_obs)

    def expected_pvalues(self, *args):
        r = self.result
        return [[as_tensor(x) for x in band] for band in (r.CLsb_exp, r.CLb_exp, r.CLs_exp)]


def _calculator_from(r, calctype, opts, poi_test):
    return HypotestCalculatorResult(r, calctype, opts, poi_test)


def _failed(r):
    return OptimizeResult(success=False, message="a fit of the hypotest did not converge", result=r,
                          x=r.free_fit_to_data, fun=as_tensor(r.twice_nll_free))
