"""What hfcore.infer's functions share: pyhf's checks and defaults, result objects, error mapping."""

from __future__ import annotations

import logging

import numpy as np

from .. import exceptions

log = logging.getLogger("hfcore.infer")

TEST_STATS = ("q0", "q", "qtilde")
CALCTYPES = ("asymptotics", "toybased")


def as_tensor(x):
    """A 0-d numpy array, as pyhf's numpy backend returns scalars."""
    return np.asarray(x, dtype=float)


def check_poi(pdf, fixed_params=None, what="a hypothesis test"):
    if pdf.config.poi_index is None:
        raise exceptions.UnspecifiedPOI(f"No POI is defined. A POI is required for {what}.")
    fixed = fixed_params if fixed_params is not None else pdf.config.suggested_fixed()
    if fixed[pdf.config.poi_index]:
        raise exceptions.InvalidModel(
            f"POI at index [{pdf.config.poi_index}] is set as fixed, which makes profile likelihood ratio based "
            "inference impossible. Please unfix the POI to continue."
        )


def check_test_stat(test_stat):
    if test_stat not in TEST_STATS:
        raise exceptions.InvalidTestStatistic(
            f"Invalid test statistic {test_stat!r}: choose one of {', '.join(TEST_STATS)}"
        )


def check_calctype(calctype):
    if calctype not in CALCTYPES:
        raise KeyError(f"calctype {calctype!r}: choose 'asymptotics' or 'toybased'")


def hypotest_kwargs(kwargs):
    """pyhf's hypotest keyword arguments (test_stat, calc_base_dist, ntoys, track_progress) and hfcore's (seed,
    toy_batch), with pyhf's defaults. Unknown ones raise Unsupported, as pyhf's calculators do."""
    out = {
        "test_stat": kwargs.pop("test_stat", "qtilde"),
        "calc_base_dist": kwargs.pop("calc_base_dist", "normal"),
        "ntoys": int(kwargs.pop("ntoys", 2000)),
        "seed": int(kwargs.pop("seed", 0)),
        "toy_batch": int(kwargs.pop("toy_batch", 1000)),
    }
    # pyhf's name for the toys' progress bar: None (a bar on a terminal), True, False or a callable
    # (see hfcore.progress).
    out["track_progress"] = kwargs.pop("track_progress", None)
    if kwargs:
        raise exceptions.Unsupported(f"Unsupported options were passed in: {list(kwargs.keys())}.")
    check_test_stat(out["test_stat"])
    if out["calc_base_dist"] not in ("normal", "clipped_normal"):
        raise ValueError(f"unknown base distribution for asymptotics {out['calc_base_dist']}")
    return out


def emit_warnings(warnings):
    for w in warnings:
        log.warning(w)


class OptimizeResult(dict):
    """What a fit returns with ``return_result_obj=True``: scipy's OptimizeResult fields (``x``, ``fun``,
    ``success``, ``status``, ``message``, ``nfev``, ``njev``) and pyhf's (``unc``, ``corr``, ``hess_inv``,
    ``minuit``: an iminuit.Minuit under minuit_optimizer, else None) and hfcore's (``converged``,
    ``reason``, ``edm``, ``algorithm``, ``hessian_ok``)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    __setattr__ = dict.__setitem__

    def __repr__(self):
        keys = ", ".join(f"{k}={self[k]!r}" for k in ("fun", "success", "message", "nfev"))
        return f"OptimizeResult({keys})"


def result_object(r):
    return OptimizeResult(
        x=r.bestfit,
        fun=as_tensor(r.twice_nll),
        success=r.converged,
        status=0 if r.converged else 1,
        message=r.reason,
        nfev=r.n_eval,
        njev=r.n_eval,  # each of hfcore's evaluations gives the value and the gradient
        unc=r.uncertainties,
        hess_inv=covariance(r),  # the covariance, as pyhf's Minuit result (-2 log L, errordef 1)
        corr=r.correlations,
        minuit=None,
        converged=r.converged,
        reason=r.reason,
        edm=r.edm,
        algorithm=r.algorithm,
        hessian_ok=r.hessian_ok,
        basin_candidates=r.basin_candidates,
        other_basin=r.other_basin,
    )


def covariance(r):
    """The covariance of the fit's parameters from its uncertainties and correlations (zeros for fixed ones);
    None where hfcore has no Hessian at the minimum."""
    unc = np.asarray(r.uncertainties, dtype=float)
    corr = np.asarray(r.correlations, dtype=float)
    if unc.size == 0 or corr.size == 0 or not r.hessian_ok:
        return None
    return np.outer(unc, unc) * corr


def check_converged(r, what="fit"):
    """pyhf raises FailedMinimization when its optimizer fails; so does hfcore, with the reason."""
    if not r.converged:
        raise exceptions.FailedMinimization(result_object(r))
