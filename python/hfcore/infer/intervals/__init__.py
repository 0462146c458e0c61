"""Interval estimation, as ``pyhf.infer.intervals``."""

from . import upper_limits

__all__ = ["upper_limits"]


def upperlimit(data, model, scan=None, level=0.05, return_results=False, **hypotest_kwargs):
    """pyhf's deprecated spelling of :func:`upper_limits.upper_limit`."""
    return upper_limits.upper_limit(data, model, scan, level, return_results, **hypotest_kwargs)
