"""Yield tables, as ``hfcore yields --table`` writes them (cabinetry ``tabulate.yields``' layout and cells).

Per channel a table with a row per sample, the total model, the data and data / model, a column per bin and one
for the sum over the channel's bins; then an overview with a column per channel. Cells are ``yield ± stdev``,
the standard deviation propagated with the full covariance of the parameters (cabinetry
``model_utils.yield_stdev``). ``table_format``: ``"text"``, ``"markdown"``, ``"latex"`` or ``"csv"`` (one line per
number, at full precision)::

    import hfcore, hfcore.tabulate
    ws = hfcore.Workspace(spec); model = ws.model(); data = ws.data(model)
    print(hfcore.tabulate.yields(data, model, postfit=True, table_format="markdown"))
    print(hfcore.tabulate.yields("yields.json"))          # a saved `hfcore yields` result
"""

from __future__ import annotations

import json
import os

from . import _core
from .infer import diagnostics

__all__ = ["yields"]


def _result(source):
    if isinstance(source, dict):
        return source
    if isinstance(source, (str, os.PathLike)):
        with open(source, encoding="utf-8") as f:
            return json.load(f)
    raise TypeError("expected a yields result (dict or path to `hfcore yields` JSON), or data with a model")


def yields(data, pdf=None, postfit=False, *, table_format="text", digits=2, blinded_channels=(), init_pars=None,
           par_bounds=None, fixed_params=None, hessian_uncertainties=False):
    """The yield tables as one string.

    With a model (``pdf``), ``data`` are the observations (+ auxdata) and the yields are computed pre-fit, or
    post-fit with ``postfit=True`` (the fit takes ``init_pars``, ``par_bounds``, ``fixed_params``; uncertainties as
    in hfcore.infer.diagnostics.yields). Without one, ``data`` is a yields result: the dict
    hfcore.infer.diagnostics.yields returns, or the path of an ``hfcore yields`` JSON file.
    ``blinded_channels``: channels whose data (and data / model) the tables show as "blinded"; a result of a
    blinded run hides them already. Bad input raises InvalidFitInput (a ValueError) naming what is wrong.
    """
    if pdf is None:
        result = _result(data)
    else:
        result = diagnostics.yields(data, pdf, postfit=postfit, init_pars=init_pars, par_bounds=par_bounds,
                                    fixed_params=fixed_params, hessian_uncertainties=hessian_uncertainties)
    blinded = [str(c) for c in blinded_channels]
    if isinstance(result.get("channels"), list):  # a blinded run wrote "blinded" for those channels' data
        hidden = [c for c in result["channels"] if isinstance(c, dict) and c.get("data") == "blinded"]
        if hidden:
            result = dict(result, channels=[dict(c, data=[0.0] * len(c.get("total", []))) if c in hidden else c
                                            for c in result["channels"]])
            blinded += [c.get("name") for c in hidden if c.get("name") not in blinded]
    return _core.yield_tables(result, str(table_format), int(digits), blinded)
