"""Interval estimation, as ``pyhf.infer.intervals``."""

import warnings

from . import upper_limits

__all__ = ["upper_limits"]


def upperlimit(data, model, scan=None, level=0.05, return_results=False, **hypotest_kwargs):
    """pyhf's deprecated spelling of :func:`upper_limits.upper_limit` (with pyhf's DeprecationWarning)."""
    warnings.warn(
        "pyhf.infer.intervals.upperlimit is deprecated in favor of pyhf.infer.intervals.upper_limits.upper_limit "
        "(hfcore.infer.intervals.upper_limits.upper_limit)",
        DeprecationWarning,
        stacklevel=2,
    )
    return upper_limits.upper_limit(data, model, scan, level, return_results, **hypotest_kwargs)
