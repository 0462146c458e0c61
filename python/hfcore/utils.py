"""pyhf's utilities that hfcore users reach for."""

from __future__ import annotations

import hashlib
import json

__all__ = ["digest"]


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
