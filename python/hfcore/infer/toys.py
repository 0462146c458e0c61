"""Toy studies of a fit's bias and coverage (``hfcore toys``; docs/analysis-workflows.md).

``fit_toys`` draws toys at a truth point with the POI injected at each of ``poi_values`` (pyhf's
``make_pdf(pars).sample`` with hfcore's counter-based generator: the same ``seed`` gives the same toys on every
backend and for any ``threads``), fits each with the POI free (the batched fits of the toy calculator) and takes
every toy's uncertainties from its own Hessian. It returns numpy arrays with one row per toy, the columns that
``hfcore toys --per-toy`` writes to its ``.npz`` (so ``numpy.load`` of that file and this dict work alike), and
the command's JSON summary under ``"summary"`` (bias, pulls, coverage, linearity).
"""

from __future__ import annotations

from .. import _core
from ..progress import reporting

__all__ = ["fit_toys"]


def fit_toys(data, pdf, poi_values=(1.0,), ntoys=1000, seed=0, nuisance="nominal", aux="sampled", init_pars=None,
             par_bounds=None, fixed_params=None, toy_batch=1000, threads=1, progress=None):
    """Fit ``ntoys`` toys at each injected POI value.

    ``nuisance``: the truth's nuisance parameters, ``"nominal"`` (suggested init) or ``"fitted"`` (fit to
    ``data`` with the POI held at the injected value). ``aux``: the toys' auxiliary data, ``"sampled"`` around the
    truth or ``"fixed"`` at the observed ones of ``data``. ``threads``: worker threads (0: one per CPU).

    Returns a dict of arrays over all toys (``poi_values`` order, then toy order): ``poi_true`` [N], ``toy`` [N]
    (the toy's number within its value), ``truth``, ``bestfit``, ``uncertainties`` and ``pull`` [N, P] (pull
    NaN where a toy has no uncertainty for the parameter), ``twice_nll`` [N], ``converged`` and ``hessian_ok``
    [N] (bool), ``parameter_names`` [P], and ``summary`` (a dict). Bad options (a value outside the POI's
    bounds, fewer than 2 toys, an unknown ``nuisance`` or ``aux``) raise ``InvalidFitInput`` (a ``ValueError``).
    """
    values = [float(poi_values)] if isinstance(poi_values, (int, float)) else [float(v) for v in poi_values]
    with reporting(progress, "toys") as report:
        return _core.fit_toys(pdf, data, values, int(ntoys), int(seed), str(nuisance), str(aux), init_pars,
                              par_bounds, fixed_params, int(toy_batch), int(threads), progress=report)
