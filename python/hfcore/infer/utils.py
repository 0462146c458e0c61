"""Helpers of ``hfcore.infer``, as ``pyhf.infer.utils``: calculators and test statistics by name."""

from __future__ import annotations

from .. import exceptions
from .calculators import AsymptoticCalculator, ToyCalculator
from .test_statistics import q0, qmu, qmu_tilde

__all__ = ["all_pois_floating", "create_calculator", "get_test_stat"]

_CALCULATORS = {"asymptotics": AsymptoticCalculator, "toybased": ToyCalculator}
_TEST_STATS = {"q0": q0, "q": qmu, "qtilde": qmu_tilde}


def __dir__():
    return __all__


def all_pois_floating(pdf, fixed_params):
    """Whether the POI is not among the fixed parameters."""
    return not fixed_params[pdf.config.poi_index]


def create_calculator(calctype, *args, **kwargs):
    """A calculator of ``calctype`` ("asymptotics" or "toybased") made with the remaining arguments."""
    try:
        cls = _CALCULATORS[calctype]
    except KeyError:
        raise KeyError(f"calctype {calctype!r}: choose 'asymptotics' or 'toybased'") from None
    return cls(*args, **kwargs)


def get_test_stat(name):
    """The test statistic function of ``name``: "q0", "q" (qmu) or "qtilde" (qmu_tilde)."""
    try:
        return _TEST_STATS[name]
    except (KeyError, TypeError):
        raise exceptions.InvalidTestStatistic(
            f"Invalid test statistic {name!r}: choose one of q0, q, qtilde"
        ) from None
