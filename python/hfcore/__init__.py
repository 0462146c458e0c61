"""hfcore: HistFactory likelihoods (pyhf's JSON) evaluated, fitted and tested by a C++ engine.

The names, arguments, defaults and return shapes are pyhf's (0.7), so code written for pyhf runs with
``import hfcore as pyhf`` for the calls hfcore covers:

    import hfcore
    ws = hfcore.Workspace(spec)                  # a dict, validated (schema + pyhf's rules)
    model = ws.model()                           # compiled once onto the current backend
    data = ws.data(model)
    model.logpdf(model.config.suggested_init(), data)          # array of shape (1,)
    hfcore.infer.mle.fit(data, model, return_fitted_val=True)  # (bestfit, twice_nll)
    hfcore.infer.hypotest(1.0, data, model, return_expected_set=True)
    hfcore.infer.intervals.upper_limits.upper_limit(data, model)
    hfcore.set_backend("opencl", precision="32b")               # or "cuda", "cpu"; device=N

Evaluations, fits and scans release the GIL; a model may be used from several Python threads.
See docs/python.md for the table "from pyhf to hfcore".
"""

from . import exceptions
from . import _core

_core._set_exceptions(exceptions)

from .tensor import backend, backends, get_backend, set_backend  # noqa: E402
from .pdf import Model  # noqa: E402
from .workspace import Workspace  # noqa: E402
from .patchset import PatchSet  # noqa: E402
from . import optimize, patchset, pdf, simplemodels, tensor, utils, workspace  # noqa: E402
from . import infer  # noqa: E402
from . import readxml  # noqa: E402  (uproot is imported when a ROOT file is first read)
from . import writexml  # noqa: E402
from . import compat, events, interpolators, modifiers, parameters, probability, schema  # noqa: E402
from . import grad, tabulate  # noqa: E402
from . import mixins  # noqa: E402,F401  (pyhf.mixins, not in pyhf's __all__ either)

__version__ = "0.1.0"

__all__ = [
    "Model",
    "PatchSet",
    "Workspace",
    "__version__",
    "backend",
    "backends",
    "compat",
    "default_backend",
    "events",
    "exceptions",
    "get_backend",
    "grad",
    "infer",
    "interpolators",
    "modifiers",
    "optimize",
    "optimizer",
    "patchset",
    "parameters",
    "pdf",
    "readxml",
    "probability",
    "schema",
    "set_backend",
    "simplemodels",
    "tabulate",
    "tensor",
    "tensorlib",
    "utils",
    "workspace",
    "writexml",
]


def __getattr__(name):
    # pyhf's module attributes that follow the current backend.
    if name == "tensorlib":
        return get_backend()[0]
    if name == "optimizer":
        return get_backend()[1]
    if name == "default_backend":
        return get_backend(default=True)[0]
    raise AttributeError(f"module 'hfcore' has no attribute {name!r}")


def __dir__():
    return __all__
