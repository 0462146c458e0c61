"""pyhf's JSON schemas, as ``pyhf.schema``: ``validate``, ``load_schema``, ``path``, ``version``, ``variables``.

``validate(spec, "workspace.json")`` (or model.json, measurement.json, patchset.json, jsonpatch.json) runs hfcore's
engine checks of pyhf's schema 1.0.0 (core/workspace/schema.cpp), the same checks every Workspace, Model and
PatchSet goes through, with the JSON path of the first violation. The JSON documents of the schema
(``load_schema("1.0.0/defs.json")``) ship in hfcore/schemas/ for tools that read them.

``hfcore.schema(path)`` points at another folder of schemas (pyhf's custom-schema mechanism; also a context
manager that restores the previous one). Documents are then validated against that folder's JSON schemas with
the jsonschema package (an optional dependency, needed only then).
"""

from __future__ import annotations

import json
import pathlib
import sys
import types

import numpy as np

from . import _core
from . import exceptions

__all__ = ["load_schema", "path", "validate", "variables", "version"]

_BUILTIN = pathlib.Path(__file__).resolve().parent / "schemas"

variables = types.SimpleNamespace(
    SCHEMA_CACHE={},
    SCHEMA_BASE="https://scikit-hep.org/pyhf/schemas/",
    SCHEMA_VERSION="1.0.0",
    schemas=_BUILTIN,
)
variables.__doc__ = "The schema folder in use (schemas), its version and the cache of loaded documents."


def __dir__():
    return __all__


def load_schema(schema_id):
    """The JSON schema document ``schema_id`` ("1.0.0/defs.json", ...) from the current schema folder, cached
    by its ``$id``. SchemaNotFound (a FileNotFoundError) where there is no such file."""
    for cached in variables.SCHEMA_CACHE.values():
        if cached.get("$id", "").endswith("/" + schema_id):
            return cached
    file = pathlib.Path(variables.schemas) / schema_id
    try:
        with open(file, encoding="utf-8") as f:
            schema = json.load(f)
    except FileNotFoundError:
        raise exceptions.SchemaNotFound(
            f"The schema {schema_id} was not found in {variables.schemas}. Do you have the right version or the "
            "right path?"
        ) from None
    variables.SCHEMA_CACHE[schema.get("$id", str(file))] = schema
    return schema


def _plain(obj, allow_tensors):
    """The document with numpy arrays and scalars as lists and numbers (or InvalidSpecification naming where a
    tensor is, when tensors are not allowed)."""
    def walk(o, where):
        if isinstance(o, (np.ndarray, np.generic)):
            if not allow_tensors:
                raise exceptions.InvalidSpecification(f"{where or '/'}: a tensor where the schema expects JSON "
                                                      "(validate with allow_tensors=True, or pass lists)")
            return o.tolist()
        if isinstance(o, dict):
            return {k: walk(v, f"{where}/{k}") for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [walk(v, f"{where}/{i}") for i, v in enumerate(o)]
        return o

    return walk(obj, "")


def _validate_custom(spec, schema_name, version):
    try:
        import jsonschema
    except ImportError:
        raise exceptions.Unsupported(
            f"validating against the custom schemas in {variables.schemas} needs the jsonschema package "
            "(pip install jsonschema); hfcore's own checks cover pyhf's schema 1.0.0"
        ) from None
    schema = load_schema(f"{version}/{schema_name}")
    folder = pathlib.Path(variables.schemas) / version

    def read_local(uri):
        # $refs resolve to files of the schema folder (relative $ids can double the version folder in the URI:
        # the file name is what counts); never a network fetch.
        name = uri.split("#")[0].rsplit("/", 1)[-1]
        with open(folder / name, encoding="utf-8") as f:
            return json.load(f)

    resolver = jsonschema.RefResolver(base_uri=folder.as_uri() + "/", referrer=schema,
                                      handlers={"file": read_local, "http": read_local, "https": read_local})
    try:
        jsonschema.Draft6Validator(schema, resolver=resolver).validate(spec)
    except jsonschema.ValidationError as err:
        where = "/" + "/".join(str(p) for p in err.path)
        raise exceptions.InvalidSpecification(f"{where}: {err.message} (schema {version}/{schema_name})") from None


def validate(spec, schema_name, *, version=None, allow_tensors=True):
    """Checks ``spec`` against pyhf's schema ``schema_name``: None, or InvalidSpecification with the JSON path of
    the first violation. ``version``: the schema version (default: the document's "version", else 1.0.0).
    ``allow_tensors``: numpy arrays count as JSON arrays."""
    if version is None:
        version = spec.get("version", variables.SCHEMA_VERSION) if isinstance(spec, dict) else variables.SCHEMA_VERSION
    if pathlib.Path(variables.schemas) == _BUILTIN:
        if version != variables.SCHEMA_VERSION:
            raise exceptions.SchemaNotFound(
                f"The schema {version}/{schema_name} was not found: hfcore has pyhf's schema "
                f"{variables.SCHEMA_VERSION}"
            )
        # The engine reads numpy arrays as JSON arrays itself: the walk is needed only to refuse them.
        _core.check_schema(schema_name, spec if allow_tensors else _plain(spec, False), "<document>")
        return None
    _validate_custom(_plain(spec, allow_tensors), schema_name, version)
    return None


def _for_engine(doc):
    """The document as the engine reads it: with a custom schema folder in use (which validated it), its
    "version" is that folder's and the engine, which reads pyhf's 1.0.0 structure, is given 1.0.0."""
    if pathlib.Path(variables.schemas) == _BUILTIN or not isinstance(doc, dict) or "version" not in doc:
        return doc
    return {**doc, "version": variables.SCHEMA_VERSION}


class _SchemaModule(types.ModuleType):
    """pyhf.schema is callable: ``schema(new_path)`` switches the schema folder (and, used as a context manager,
    switches back on exit)."""

    @property
    def path(self):
        """The folder the schemas are read from."""
        return variables.schemas

    @property
    def version(self):
        """The version of the schema documents validated against by default."""
        return variables.SCHEMA_VERSION

    def __call__(self, new_path):
        self._saved = getattr(self, "_saved", []) + [(variables.schemas, variables.SCHEMA_CACHE)]
        variables.schemas = pathlib.Path(new_path)
        variables.SCHEMA_CACHE = {}
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        variables.schemas, variables.SCHEMA_CACHE = self._saved.pop()


sys.modules[__name__].__class__ = _SchemaModule
