"""Reading the JSON that the hfcore CLI writes (or the same dicts from Python) for the plots, with errors that
name the file, the JSON path and what was expected.

Each plot kind reads one kind of result; a document of another kind gets an error that says what it is and
which command makes the right one.
"""

import json
import math
import os

# What each command writes, recognised by the keys only that command's output has (first match wins).
_SIGNATURES = [
    ("ranking", ("ranking", "poi_hat"), "hfcore ranking"),
    ("breakdown", ("groups", "statistical", "systematic"), "hfcore breakdown"),
    ("pulls", ("parameters", "twice_nll"), "hfcore pulls"),
    ("yields", ("channels", "postfit"), "hfcore yields"),
    ("toys", ("points", "linearity", "settings"), "hfcore toys"),
    ("profile", ("pars", "points"), "hfcore profile"),
    ("scan", ("results",), "hfcore scan"),
    ("upper-limit", ("obs", "exp"), "hfcore upper-limit"),
    ("fit", ("mle_parameters",), "hfcore fit"),
    ("cls", ("CLs_obs", "CLs_exp"), "hfcore cls"),
    ("significance", ("p0_obs",), "hfcore significance"),
    ("gof", ("chi2", "p_value"), "hfcore gof"),
    ("workspace", ("channels", "measurements"), "a workspace, not a result"),
]


class PlotInputError(ValueError):
    """A result that cannot be plotted: the message names the file, the JSON path and what is wrong."""


def describe(doc):
    """(kind, command) of an hfcore result, or (None, None) when it is none of them."""
    if isinstance(doc, list) and doc and all(isinstance(r, dict) and "CLs_obs" in r for r in doc):
        return "scan", "hfcore.infer.scan"
    if isinstance(doc, dict):
        for kind, keys, command in _SIGNATURES:
            if all(k in doc for k in keys):
                return kind, command
    return None, None


def load(result):
    """(document, source name) from a path, a JSON text or an already parsed dict / list."""
    if isinstance(result, (dict, list, tuple)):
        return result, "<result>"
    path = os.fspath(result)
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise PlotInputError(f"{path}: cannot read it ({e.strerror})") from None
    try:
        return json.loads(text), path
    except json.JSONDecodeError as e:
        raise PlotInputError(f"{path}: not JSON ({e.msg} at line {e.lineno}, column {e.colno})") from None


def expect_kind(doc, source, wanted, plot, hint=""):
    """Raise unless `doc` is a result of kind `wanted` (one kind or a tuple of kinds)."""
    wanted = (wanted,) if isinstance(wanted, str) else tuple(wanted)
    kind, command = describe(doc)
    if kind in wanted:
        return kind
    commands = {k: c for k, _, c in _SIGNATURES}
    need = " or ".join(f"`{commands.get(w, w)}`" for w in wanted)
    what = f"the output of `{command}`" if kind else "not an hfcore result"
    if kind == "workspace":
        what = "a workspace"
    raise PlotInputError(f"{source}: the {plot} plot needs the output of {need}; this is {what}" + (f". {hint}" if hint else ""))


class Node:
    """A value inside a result with its JSON path, for reading with clear errors."""

    def __init__(self, value, source, path=""):
        self.value, self.source, self.path = value, source, path

    def _fail(self, what):
        where = self.path or "(top level)"
        raise PlotInputError(f"{self.source}: {where}: {what}")

    def has(self, key):
        return isinstance(self.value, dict) and key in self.value and self.value[key] is not None

    def __getitem__(self, key):
        if isinstance(key, int):
            seq = self.list()
            if not -len(seq) <= key < len(seq):
                self._fail(f"has {len(seq)} entries, no [{key}]")
            return Node(seq[key], self.source, f"{self.path}[{key}]")
        if not isinstance(self.value, dict):
            self._fail(f"expected an object with '{key}', got {type(self.value).__name__}")
        if key not in self.value:
            self._fail(f"missing '{key}'")
        return Node(self.value[key], self.source, f"{self.path}.{key}" if self.path else key)

    def get(self, key, default=None):
        return self[key] if self.has(key) else Node(default, self.source, f"{self.path}.{key}")

    def list(self, length=None, min_length=0):
        if not isinstance(self.value, (list, tuple)):
            self._fail(f"expected a list, got {_type(self.value)}")
        if length is not None and len(self.value) != length:
            self._fail(f"expected {length} entries, got {len(self.value)}")
        if len(self.value) < min_length:
            self._fail(f"expected at least {min_length} entries, got {len(self.value)}")
        return self.value

    def items(self, **kw):
        return [Node(v, self.source, f"{self.path}[{i}]") for i, v in enumerate(self.list(**kw))]

    def num(self, allow_none=False):
        v = self.value
        if v is None and allow_none:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self._fail(f"expected a number, got {_type(v)}")
        return float(v)

    def finite(self):
        v = self.num()
        if not math.isfinite(v):
            self._fail(f"expected a finite number, got {v}")
        return v

    def nums(self, length=None, min_length=0, allow_none=False):
        return [n.num(allow_none) for n in self.items(length=length, min_length=min_length)]

    def str(self):
        if not isinstance(self.value, str):
            self._fail(f"expected a string, got {_type(self.value)}")
        return self.value

    def bool(self, default=True):
        return default if self.value is None else bool(self.value)


def _type(v):
    return "null" if v is None else type(v).__name__
