"""Inference, as ``pyhf.infer``: hypothesis tests (CLs), fits (``mle``), upper limits (``intervals``),
``scan`` for many signal patches at once, fit ``diagnostics`` (pulls, ranking, yields, profile scans, MINOS
intervals, goodness of fit) and ``toys`` (toy studies of bias and coverage)."""

from __future__ import annotations

import os

from .. import _core
from .. import exceptions
from ._common import (as_tensor, check_calctype, check_poi, emit_warnings, hypotest_kwargs)
from ..progress import reporting
from . import mle
from . import test_statistics
from . import calculators
from . import utils
from . import intervals
from . import diagnostics
from . import _python_models
from . import toys

__all__ = ["hypotest", "scan", "mle", "intervals", "test_statistics", "calculators", "diagnostics", "toys", "utils"]


def _run_hypotest(poi_test, data, pdf, init_pars, par_bounds, fixed_params, calctype, kwargs):
    check_calctype(calctype)
    opts = hypotest_kwargs(dict(kwargs))
    check_poi(pdf, fixed_params)
    # Asymptotic hypotests take a moment; toys draw a bar (hfcore.progress).
    with reporting(opts["track_progress"] if calctype == "toybased" else False, "hypotest") as progress:
        r = _core.hypotest(float(poi_test), pdf, data, init_pars, par_bounds, fixed_params, opts["test_stat"],
                           calctype, opts["calc_base_dist"], opts["ntoys"], opts["seed"], opts["toy_batch"],
                           progress=progress)
    emit_warnings(r.warnings)
    if not r.converged:
        raise exceptions.FailedMinimization(calculators._failed(r))
    return r, opts


def hypotest(poi_test, data, pdf, init_pars=None, par_bounds=None, fixed_params=None, calctype="asymptotics",
             return_tail_probs=False, return_expected=False, return_expected_set=False, return_calculator=False,
             **kwargs):
    """CLs (for ``test_stat="q0"``: the p-value p0) at ``poi_test``, as ``pyhf.infer.hypotest``.

    Keyword arguments as pyhf: ``test_stat`` ("qtilde", "q", "q0"), ``calc_base_dist`` ("normal",
    "clipped_normal"), ``ntoys`` (toybased), ``track_progress`` (ignored); hfcore's: ``seed`` (toys: the same seed
    gives the same toys on every backend) and ``toy_batch``. Returns what pyhf returns, in its order: CLs_obs
    (0-d array), then [CLsb, CLb] (``return_tail_probs``), CLs_exp (``return_expected``), the five expected
    CLs at -2..+2 sigma (``return_expected_set``) and a calculator (``return_calculator``) whose ``fitted_pars``
    hold the fits.
    """
    if _python_models.is_python_model(pdf):
        # A model hfcore does not compile: pyhf's calculators on scipy fits (infer/_python_models.py).
        check_calctype(calctype)
        check_poi(pdf, fixed_params)
        (CLsb, CLb, CLs), expected, calc = _python_models.hypotest(poi_test, data, pdf, init_pars, par_bounds,
                                                                   fixed_params, calctype, kwargs)
        is_q0 = kwargs.get("test_stat", "qtilde") == "q0"
        tails = [CLb] if is_q0 else [CLsb, CLb]
        band = [as_tensor(x) for x in (expected[0] if is_q0 else expected[2])]
        return _hypotest_returns(CLsb if is_q0 else CLs, tails, band, calc, return_tail_probs, return_expected,
                                 return_expected_set, return_calculator)
    r, opts = _run_hypotest(poi_test, data, pdf, init_pars, par_bounds, fixed_params, calctype, kwargs)
    is_q0 = opts["test_stat"] == "q0"
    tails = [as_tensor(r.CLb_obs)] if is_q0 else [as_tensor(r.CLsb_obs), as_tensor(r.CLb_obs)]
    band = [as_tensor(x) for x in (r.CLsb_exp if is_q0 else r.CLs_exp)]
    calc = None
    if return_calculator:
        calc = calculators._calculator_from(r, calctype, opts, poi_test, data, pdf, init_pars, par_bounds,
                                            fixed_params)
    return _hypotest_returns(as_tensor(r.CLsb_obs if is_q0 else r.CLs_obs), tails, band, calc, return_tail_probs,
                             return_expected, return_expected_set, return_calculator)


def _hypotest_returns(observed, tails, band, calc, return_tail_probs, return_expected, return_expected_set,
                      return_calculator):
    """pyhf's hypotest return values, in its order."""
    out = [observed]
    if return_tail_probs:
        out.append(tails)
    if return_expected_set:
        if return_expected:
            out.append(band[2])
        out.append(band)
    elif return_expected:
        out.append(band[2])
    if return_calculator:
        out.append(calc)
    return tuple(out) if len(out) > 1 else out[0]


def scan(workspace, patches, poi_test=1.0, upper_limit=False, level=0.05, rtol=1e-4, threads=None,
         measurement_name=None, modifier_settings=None, backend=None, progress=None, journal=None, mpi=None,
         **kwargs):
    """Hypotests (and with ``upper_limit=True`` the limits) of many signal patches of one background-only
    workspace, in parallel C++ threads (each with its own instance of the backend), the GIL released.

    ``patches``: a PatchSet (verified against the workspace first), or a list of patches (Patch objects,
    jsonpatch objects or lists of operations, named by their ``name`` or their position), or a dict
    {name: patch}. Returns one dict per patch, in order: ``name``, ``CLs_obs``, ``CLs_exp`` (5 values),
    ``twice_nll``, ``converged`` and ``upper_limit`` ({"obs", "exp"}), and for a PatchSet the patch's ``values``
    (as ``hfcore scan`` writes them; ``hfcore.plot.contour`` reads them); a point that fails has ``error``
    instead and does not stop the others. ``progress``: a bar of the points done (see hfcore.progress).

    The points run through the same executor as ``hfcore scan`` (its threads: ``threads``, else
    HFCORE_NUM_THREADS, else every core this process may use). ``journal``: a file path; each finished point is
    appended to it (one JSON line, flushed and fsync'ed) as it finishes, and a later call with the same inputs
    takes the points it holds instead of computing them again, so a scan stopped half way (a killed job, a
    crash) keeps what it finished. A journal made with other inputs (workspace, patches, options, backend) is
    refused with an error. The file stays after the call: remove it when the results are kept elsewhere.

    Under MPI (``mpirun -n 4 python script.py``), as ``hfcore scan``: the points are dealt to the threads of every
    rank, rank 0 keeps the journal and returns the results, which equal the one-process results; the other ranks
    return None (write outputs where the result is not None). ``mpi``: None (default) uses MPI where the process
    was started by mpirun/mpiexec/srun and MPI is built into hfcore (``hfcore --version``), True requires it (an
    error otherwise), False runs the whole scan in this process. Call it on every rank with the same arguments.
    mpi4py is not needed; a program that initialised MPI itself (mpi4py) shares its MPI_COMM_WORLD.
    """
    from ..patchset import PatchSet
    from ..pdf import _interpcodes
    from ..workspace import Workspace, _patch_ops

    ws = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
    values = {}
    if isinstance(patches, PatchSet):
        patches.verify(ws)
        named = [(p.name, p.patch) for p in patches]
        values = {p.name: list(p.values) for p in patches}
    elif isinstance(patches, dict):
        named = [(str(k), _patch_ops(v)) for k, v in patches.items()]
    else:
        named = [(str(getattr(p, "name", i)), _patch_ops(p)) for i, p in enumerate(patches)]
    calctype = kwargs.pop("calctype", "asymptotics")
    check_calctype(calctype)
    opts = hypotest_kwargs(kwargs)
    normsys, histosys = _interpcodes(modifier_settings)
    if isinstance(backend, str):
        from ..tensor import backend as load

        backend = load(backend)
    mpi = None if mpi is None else bool(mpi)
    rank, _ = _mpi_ranks(mpi)
    if rank != 0:
        progress = False  # rank 0's bar counts every rank's points
    with reporting(progress, "scan") as report:
        results = _core.scan(ws._cpp_workspace(), named, measurement_name, normsys, histosys, float(poi_test),
                             bool(upper_limit), float(level), float(rtol), int(threads or 0), backend,
                             opts["test_stat"], calctype, opts["calc_base_dist"], opts["ntoys"], opts["seed"],
                             opts["toy_batch"], progress=report,
                             journal=None if journal is None else os.fspath(journal), mpi=mpi)
    if results is None:
        return None
    for r in results:
        if r["name"] in values:
            r["values"] = values[r["name"]]
    return results


def _mpi_ranks(mpi):
    """(rank, size) of the ranks a call with ``mpi`` shares its work with (MPI initialised on first use)."""
    if mpi is None and not _core.mpi_compiled_in() and _core.launched_by_mpi():
        import warnings

        warnings.warn("started by mpirun, but MPI is not built into this hfcore (" + _core.mpi_description()
                      + "): every rank runs the whole scan", RuntimeWarning, stacklevel=3)
    return _core.mpi_world(mpi)


def __dir__():
    return __all__
