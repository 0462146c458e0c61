"""``hfcore.PatchSet`` and ``Patch``: pyhf's patch sets (signal points over a background-only workspace)."""

from __future__ import annotations

import copy

from . import _core
from . import exceptions
from . import utils
from .workspace import Workspace, _read_spec

__all__ = ["Patch", "PatchSet"]


class Patch:
    """One patch of a patch set: its JSON patch operations (``.patch``), ``name``, ``values``, ``metadata``.
    ``apply(doc)`` returns a patched copy (like jsonpatch's ``JsonPatch.apply``)."""

    def __init__(self, spec):
        self.patch = copy.deepcopy(spec["patch"])
        self._metadata = spec["metadata"]

    @property
    def metadata(self):
        return self._metadata

    @property
    def name(self):
        return self.metadata["name"]

    @property
    def values(self):
        return tuple(self.metadata["values"])

    def apply(self, doc):
        return _core.apply_patch(self.patch, doc, self.name)

    def __iter__(self):
        return iter(self.patch)

    def __repr__(self):
        return f"<hfcore.patchset.Patch object '{self.name}{self.values}' at {hex(id(self))}>"

    def __eq__(self, other):
        if not isinstance(other, Patch):
            return False
        return self.patch == other.patch and self.metadata == other.metadata


class PatchSet:
    """A pyhf patch set (a dict, or a path to its JSON file): schema and pyhf's rules checked
    (InvalidSpecification, InvalidPatchSet). ``patchset[name]`` or ``patchset[values]`` finds a patch
    (InvalidPatchLookup); ``apply(workspace, key)`` verifies the digests (PatchSetVerificationError) and returns
    the patched workspace."""

    def __init__(self, spec, **config_kwargs):
        spec, source = _read_spec(spec) if not isinstance(spec, dict) else (spec, "<patchset>")
        self.schema = config_kwargs.pop("schema", "patchset.json")
        self._version = config_kwargs.pop("version", spec.get("version", None))
        if config_kwargs:
            raise exceptions.Unsupported(f"Unsupported options were passed in: {list(config_kwargs.keys())}.")
        _core.check_patchset(spec, source)
        self._metadata = spec["metadata"]
        self._patches = []
        self._patches_by_key = {}
        for patchspec in spec["patches"]:
            patch = Patch(patchspec)
            self._patches.append(patch)
            self._patches_by_key[patch.name] = patch
            self._patches_by_key[patch.values] = patch

    @property
    def version(self):
        return self._version

    @property
    def metadata(self):
        return self._metadata

    @property
    def references(self):
        return self.metadata["references"]

    @property
    def description(self):
        return self.metadata["description"]

    @property
    def digests(self):
        return self.metadata["digests"]

    @property
    def labels(self):
        return self.metadata["labels"]

    @property
    def patches(self):
        return self._patches

    def __repr__(self):
        n = len(self.patches)
        return f"<hfcore.patchset.PatchSet object with {n} patch{'es' if n != 1 else ''} at {hex(id(self))}>"

    def __getitem__(self, key):
        if isinstance(key, list):
            key = tuple(key)
        try:
            return self._patches_by_key[key]
        except (KeyError, TypeError):
            raise exceptions.InvalidPatchLookup(f'No patch associated with "{key}" is defined in patchset.') from None

    def __iter__(self):
        return iter(self.patches)

    def __len__(self):
        return len(self.patches)

    def verify(self, spec):
        """PatchSetVerificationError unless every digest of the metadata matches the workspace's."""
        for hash_alg, digest in self.digests.items():
            digest_calc = utils.digest(spec, algorithm=hash_alg)
            if digest_calc != digest:
                raise exceptions.PatchSetVerificationError(
                    f"The digest verification failed for hash algorithm '{hash_alg}'. Expected: {digest}. Got: {digest_calc}"
                )

    def apply(self, spec, key):
        """The workspace ``spec`` patched by the patch ``key`` (name or values), after verifying digests."""
        self.verify(spec)
        return Workspace(self[key].apply(spec))
