"""Fit diagnostics with cabinetry's definitions (see docs/diagnostics.md): pulls, ranking (impacts on the POI),
yields with uncertainty bands, profile-likelihood scans, MINOS intervals and the saturated-model goodness of fit.

Arguments follow ``pyhf.infer``: ``data`` first, then the model, then ``init_pars`` / ``par_bounds`` /
``fixed_params`` for every fit. Each function returns the dict of the ``hfcore`` command's JSON (lists, floats,
None for a number that is absent or not finite).
Post-fit uncertainties are reported as Minuit (and so cabinetry) reports them for bounded parameters unless
``hessian_uncertainties=True``. Fits with parameters held (ranking, scans, intervals) run as one batched fit
(``batched=True``), refitted alone on ``threads`` worker threads (0: one per CPU) where the batch does not
converge. Bad requests raise ``InvalidFitInput`` (a ``ValueError``). ``progress`` (ranking, profile_scan): a
bar of the fits done, see hfcore.progress. ``hfcore.plot`` draws what these return.
"""

from __future__ import annotations

from .. import _core
from ..progress import reporting

__all__ = ["pulls", "ranking", "breakdown", "yields", "profile_scan", "minos", "goodness_of_fit"]


def pulls(data, pdf, init_pars=None, par_bounds=None, fixed_params=None, hessian_uncertainties=False):
    """Best-fit value, uncertainty and (constrained parameters) pull and constraint of every parameter:
    ``{"parameters": [{"name", "value", "uncertainty", "pull", "constraint", ...}], "correlations": {"par_names",
    "matrix"}, ...}``."""
    out = _core.pulls(pdf, data, init_pars, par_bounds, fixed_params, bool(hessian_uncertainties))
    if pdf.config.poi_name:
        out["poi"] = pdf.config.poi_name  # as `hfcore pulls` writes it
    return out


def ranking(data, pdf, poi_name=None, init_pars=None, par_bounds=None, fixed_params=None, threads=0, batched=True,
            hessian_uncertainties=False, progress=None):
    """Pre- and post-fit impacts of every parameter on the POI (cabinetry ``fit.ranking``), largest post-fit
    impact first: ``{"poi", "poi_hat", "ranking": [{"name", "impact_prefit_up", ...}], ...}``."""
    with reporting(progress, "ranking") as report:
        return _core.ranking(pdf, data, init_pars, par_bounds, fixed_params, poi_name, int(threads or 0),
                             bool(batched), bool(hessian_uncertainties), progress=report)


def breakdown(data, pdf, groups=None, init_pars=None, par_bounds=None, fixed_params=None, poi_name=None,
              hessian_uncertainties=False):
    """The POI's uncertainty split into groups of parameters (``hfcore breakdown``): ``{"total", "statistical",
    "systematic", "groups": [{"name", "impact", "held_uncertainty", "parameters", "converged"}], ...}``, a group's
    impact sqrt(total^2 - sigma^2) with sigma the POI's uncertainty when the group is held at its best fit.
    ``groups``: None (one per modifier type) or ``{name: pattern or [patterns]}`` (shell patterns on parameter
    set names, e.g. ``{"jets": ["JES_*", "JER"]}``)."""
    if groups is not None:
        items = groups.items() if isinstance(groups, dict) else groups
        groups = [(str(name), [p] if isinstance(p, str) else [str(x) for x in p]) for name, p in items]
    return _core.breakdown(pdf, data, groups, init_pars, par_bounds, fixed_params, poi_name,
                           bool(hessian_uncertainties))


def yields(data, pdf, postfit=False, init_pars=None, par_bounds=None, fixed_params=None,
           hessian_uncertainties=False):
    """Yields per channel, sample and bin with the total's uncertainty by linear error propagation (cabinetry
    ``model_utils.yield_stdev``), and the data: ``{"postfit", "channels": [{"name", "samples", "total",
    "total_stdev", "data"}]}``."""
    return _core.yields(pdf, data, bool(postfit), init_pars, par_bounds, fixed_params, bool(hessian_uncertainties))


def profile_scan(data, pdf, pars, init_pars=None, par_bounds=None, fixed_params=None, threads=0, batched=True,
                 progress=None):
    """2 Delta NLL of one or two parameters on a grid. ``pars``: ``{name: values}`` (one or two entries, in
    order) or a list of ``(name, values)``. Returns ``{"pars", "points": [{"values", "delta_twice_nll"}],
    "intervals": {"68": [lo, hi], "95": [lo, hi]}}`` (intervals for 1-D scans)."""
    axes = list(pars.items()) if isinstance(pars, dict) else [(str(n), v) for n, v in pars]
    with reporting(progress, "profile") as report:
        return _core.profile_scan(pdf, data, axes, init_pars, par_bounds, fixed_params, int(threads or 0),
                                  bool(batched), progress=report)


def minos(data, pdf, names, init_pars=None, par_bounds=None, fixed_params=None, threads=0, batched=True):
    """Asymmetric intervals where 2 Delta NLL = 1, by root finding: ``{"minos": {name: [lower, upper]},
    "minos_details": {name: {"value", "lower_at_bound", "upper_at_bound", "valid", "n_fits"}}}``."""
    names = [names] if isinstance(names, str) else list(names)
    return _core.minos(pdf, data, names, init_pars, par_bounds, fixed_params, int(threads or 0), bool(batched))


def goodness_of_fit(data, pdf, init_pars=None, par_bounds=None, fixed_params=None):
    """Saturated-model goodness of fit (cabinetry ``fit._goodness_of_fit``): ``{"twice_nll",
    "twice_nll_saturated", "chi2", "ndof", "p_value"}`` (p_value None when ndof <= 0)."""
    return _core.goodness_of_fit(pdf, data, init_pars, par_bounds, fixed_params)


def __dir__():
    return __all__
