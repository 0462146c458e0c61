"""hfcore's exceptions, named as pyhf names them.

Code written for pyhf catches the same names: ``except hfcore.exceptions.InvalidSpecification`` (or, with
``import hfcore as pyhf``, ``except pyhf.exceptions.InvalidSpecification``). Messages keep hfcore's detail:
the file (or ``<workspace>``), the JSON path and what is wrong; the path is also in the ``path`` attribute.

Problems with numpy inputs are ``ValueError`` subclasses (``InvalidPdfParameters``, ``InvalidPdfData``,
``InvalidFitInput``), so both ``except ValueError`` and pyhf's names catch them.
"""

__all__ = [
    "HFCoreError",
    "FailedMinimization",
    "ImportBackendError",
    "InvalidBackend",
    "InvalidFitInput",
    "InvalidInterpCode",
    "InvalidMeasurement",
    "InvalidModel",
    "InvalidModifier",
    "InvalidNameReuse",
    "InvalidOptimizer",
    "InvalidPatchLookup",
    "InvalidPatchSet",
    "InvalidPdfData",
    "InvalidPdfParameters",
    "InvalidSpecification",
    "InvalidTestStatistic",
    "InvalidWorkspaceOperation",
    "JsonPatchConflict",
    "PatchSetVerificationError",
    "SchemaNotFound",
    "UnspecifiedPOI",
    "Unsupported",
]


class _Located:
    """Mixin: the file and JSON path of the problem, when known (``None`` otherwise)."""

    file = None
    path = None


class HFCoreError(_Located, RuntimeError):
    """An hfcore failure without a more specific class (for example no bracket for an upper limit)."""


class Unsupported(Exception):
    """An option hfcore (or pyhf) does not support was requested."""


class InvalidMeasurement(_Located, Exception):
    """The measurement asked for is not in the workspace."""


class InvalidNameReuse(Exception):
    pass


class InvalidSpecification(_Located, Exception):
    """A workspace, model, patch or patch set does not follow pyhf's JSON schema."""


class SchemaNotFound(FileNotFoundError):
    """A schema document (or schema version) that is not in the schema folder in use."""


class InvalidPatchSet(_Located, Exception):
    """A patch set validates against the schema but breaks pyhf's rules (repeated names or values, ...)."""


class InvalidPatchLookup(_Located, Exception):
    """No patch of that name or those values in the patch set."""


class PatchSetVerificationError(_Located, Exception):
    """The workspace's digest does not match the patch set's."""


class InvalidWorkspaceOperation(_Located, Exception):
    """A prune, rename or combine that cannot be done."""


class UnspecifiedPOI(Exception):
    """The model has no parameter of interest, and the call needs one."""


class InvalidModel(_Located, Exception):
    """The specification is valid JSON for the schema but not a valid model (pyhf's semantic rules)."""


class _NameReuse(InvalidModel, InvalidNameReuse):
    """A parameter name shared by modifiers that cannot share it: pyhf's InvalidNameReuse, and an InvalidModel."""


class InvalidModifier(_Located, Exception):
    """An unknown modifier type."""


class _ModifierData(InvalidModel, InvalidModifier):
    """Modifier data that do not fit their sample (bin counts): pyhf's InvalidModifier, and an InvalidModel."""


class InvalidInterpCode(Exception):
    """An interpolation code hfcore does not implement."""


class InvalidTestStatistic(Exception):
    """A test statistic other than q0, q, qtilde (and t, ttilde for test_statistics)."""


class ImportBackendError(Exception):
    pass


class InvalidBackend(_Located, Exception):
    """A backend that cannot be found, loaded or used here (the message says which file and why)."""


class InvalidOptimizer(Exception):
    """An optimizer name other than the ones accepted for compatibility."""


class InvalidPdfParameters(_Located, ValueError):
    """Parameters of the wrong length, dtype or shape, non-finite, or not contiguous."""


class InvalidPdfData(_Located, ValueError):
    """Data of the wrong length, dtype or shape, non-finite, or not contiguous."""


class InvalidFitInput(_Located, ValueError):
    """init_pars, par_bounds or fixed_params that a fit cannot use (pyhf raises ValueError)."""


class JsonPatchConflict(_Located, Exception):
    """A JSON patch operation that does not apply to the document (the jsonpatch package's name)."""


class FailedMinimization(Exception):
    """A fit that did not converge. ``result`` holds what it reached (x, fun, message, ...)."""

    def __init__(self, result):
        self.result = result
        super().__init__(getattr(result, "message", "Unknown failure. See fit result for more details."))


def __dir__():
    return __all__
