"""pyhf's utilities that hfcore users reach for."""

from __future__ import annotations

import hashlib
import json
import re

__all__ = ["citation", "digest", "options_from_eqdelimstring"]

_TRUE = {"true", "yes", "on"}
_FALSE = {"false", "no", "off"}
_NULL = {"null", "none", "~", ""}


def digest(obj, algorithm="sha256"):
    """The digest of a JSON-serializable object (usually a workspace), as ``pyhf.utils.digest``: the hash of
    ``json.dumps(obj, sort_keys=True, ensure_ascii=False)`` in UTF-8."""
    try:
        stringified = json.dumps(obj, sort_keys=True, ensure_ascii=False).encode("utf8")
    except TypeError:
        raise ValueError("The supplied object is not JSON-serializable for calculating a hash.") from None
    try:
        hash_alg = getattr(hashlib, algorithm)
    except AttributeError:
        raise ValueError(f"{algorithm} is not an algorithm provided by Python's hashlib library.") from None
    return hash_alg(stringified).hexdigest()


def _scalar(text):
    """A command-line value as a YAML scalar reads: int, float, bool, None, else the string itself."""
    t = text.strip()
    low = t.lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    if low in _NULL:
        return None
    if re.fullmatch(r"[-+]?\d+", t):
        return int(t)
    if re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", t):
        return float(t)
    return t


def options_from_eqdelimstring(opts):
    """``["a=10", "b=x=y"]`` -> ``{"a": 10, "b": "x=y"}``: options given as key=value on a command line, the value
    read as a number, a boolean (true/false, yes/no, on/off) or null where it is one, else kept as text."""
    out = {}
    for opt in opts:
        key, sep, value = opt.partition("=")
        if not sep:
            raise ValueError(f"option {opt!r}: expected key=value")
        out[key.strip()] = _scalar(value)
    return out


_CITATION = """@software{hfcore,
  title = "{hfcore: HistFactory likelihoods evaluated, fitted and tested by a C++ engine}",
  version = {%s},
  note = {pyhf's JSON format and Python API}
}
@article{pyhf_joss,
  doi = {10.21105/joss.02823},
  url = {https://doi.org/10.21105/joss.02823},
  year = {2021},
  publisher = {The Open Journal},
  volume = {6},
  number = {58},
  pages = {2823},
  author = {Lukas Heinrich and Matthew Feickert and Giordon Stark and Kyle Cranmer},
  title = {pyhf: pure-Python implementation of HistFactory statistical models},
  journal = {Journal of Open Source Software}
}"""


def citation(oneline=False):
    """BibTeX for hfcore and for pyhf, whose model format and API it implements (``oneline``: no newlines)."""
    from . import __version__

    text = _CITATION % __version__
    return "".join(text.splitlines()) if oneline else text
