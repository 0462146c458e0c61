"""``hfcore.Workspace``: pyhf's Workspace (a dict of the JSON document) validated and compiled by hfcore."""

from __future__ import annotations

import copy
import json
import logging
import os

from . import _core
from . import exceptions
from . import schema
from .mixins import _ChannelSummaryMixin
from ._workspace_join import _join_items, _join_measurements, _join_parameter_configs  # noqa: F401 (pyhf's names)
from ._workspace_join import combine_documents
from .pdf import Model

log = logging.getLogger(__name__)

__all__ = ["Workspace"]


def _read_spec(spec):
    """A dict as given, or the JSON file at a path (str or os.PathLike), or JSON text."""
    if isinstance(spec, os.PathLike) or (isinstance(spec, str) and not spec.lstrip().startswith("{")):
        path = os.fspath(spec)
        with open(path, encoding="utf-8") as f:
            return json.load(f), path
    if isinstance(spec, (str, bytes)):
        return json.loads(spec), "<string>"
    return spec, "<workspace>"


def _patch_ops(patch):
    """The list of operations of a patch given as a list, a jsonpatch.JsonPatch, or a pyhf / hfcore Patch."""
    if isinstance(patch, (list, tuple)):
        return list(patch)
    ops = getattr(patch, "patch", None)
    if ops is None:
        raise TypeError(f"patches: expected a list of JSON patch operations or a Patch, got {type(patch).__name__}")
    return list(ops)


class Workspace(_ChannelSummaryMixin, dict):
    """A pyhf workspace: a dict of the JSON document (so ``ws["channels"]`` and ``json.dump(ws, f)`` work),
    checked against pyhf's schema when made (InvalidSpecification, with the JSON path).

    ``spec`` may also be a path to a JSON file or JSON text. pyhf's semantic rules (a model's parameters, the
    observations of each channel, ...) are checked too; as in pyhf, breaking them is reported (InvalidModel)
    when a model or the data are asked for.
    """

    valid_joins = ["none", "outer", "left outer", "right outer"]

    def __init__(self, spec, validate=True, **config_kwargs):
        spec, source = _read_spec(spec)
        # A Workspace is a dict of its document; its engine object is not copied (made again below).
        spec = copy.deepcopy(dict(spec) if isinstance(spec, Workspace) else spec)
        self.schema = config_kwargs.pop("schema", "workspace.json")
        self.version = config_kwargs.pop("version", spec.get("version", None) if isinstance(spec, dict) else None)
        if config_kwargs:
            raise exceptions.Unsupported(f"Unsupported options were passed in: {list(config_kwargs.keys())}.")
        self._source = source
        self._semantic_error = None
        if validate:
            # pyhf's hook (tests and tools patch hfcore.schema.validate); the engine checks the schema again below.
            schema.validate(spec, self.schema, version=self.version)
        try:
            self._cpp = _core.Workspace(schema._for_engine(spec), source)
        except exceptions.InvalidModel as e:
            # Valid for the schema; pyhf reports semantic problems when a model or the data are built.
            self._cpp = None
            self._semantic_error = e
        super().__init__(spec)
        self._summarize(spec["channels"])
        self.measurement_names = [m["name"] for m in self.get("measurements", [])]
        self.observations = {obs["name"]: obs["data"] for obs in self["observations"]}

    def _checked(self):
        if self._semantic_error is not None:
            raise self._semantic_error
        return self._cpp

    def __eq__(self, other):
        if not isinstance(other, Workspace):
            return False
        return dict(self) == dict(other)

    def __ne__(self, other):
        return not self == other

    def __repr__(self):
        return object.__repr__(self)

    __hash__ = None

    def get_measurement(self, measurement_name=None, measurement_index=None):
        """The measurement by name, else by index, else the first (InvalidMeasurement when absent)."""
        if not self.measurement_names:
            raise exceptions.InvalidMeasurement("No measurements have been defined.")
        if measurement_name is not None:
            if measurement_name not in self.measurement_names:
                raise exceptions.InvalidMeasurement(
                    f"no measurement by name '{measurement_name}' was found in the workspace, pick from one of "
                    f"the valid ones: {self.measurement_names}"
                )
            measurement = self["measurements"][self.measurement_names.index(measurement_name)]
            schema.validate(measurement, "measurement.json", version=self.version)
            return measurement
        if measurement_index is None and len(self.measurement_names) > 1:
            log.warning("multiple measurements defined. Taking the first measurement.")
        measurement_index = measurement_index if measurement_index is not None else 0
        try:
            measurement = self["measurements"][measurement_index]
        except IndexError:
            raise exceptions.InvalidMeasurement(
                f"The measurement index {measurement_index} is out of bounds as only "
                f"{len(self.measurement_names)} measurement(s) have been defined."
            ) from None
        schema.validate(measurement, "measurement.json", version=self.version)
        return measurement

    def model(self, measurement_name=None, measurement_index=None, patches=None, **config_kwargs):
        """The model of a measurement, with ``patches`` (JSON patches or pyhf/hfcore Patch objects) applied to
        ``{"channels", "parameters"}`` in order, as ``pyhf.Workspace.model``. Keyword arguments go to
        :class:`Model` (``poi_name``, ``modifier_settings``, ``backend``, ...)."""
        self._checked()
        measurement = self.get_measurement(measurement_name=measurement_name, measurement_index=measurement_index)
        config_kwargs.setdefault("poi_name", measurement["config"]["poi"])
        modelspec = {"channels": self["channels"], "parameters": measurement["config"]["parameters"]}
        source = self._source
        for patch in patches or []:
            modelspec = _core.apply_patch(_patch_ops(patch), modelspec, getattr(patch, "name", "<patch>"))
            source += " + " + str(getattr(patch, "name", "patch"))
        return Model(modelspec, _source=source, **config_kwargs)

    def data(self, model, include_auxdata=True):
        """Observed main data in the model's channel order (+ its auxdata): a list, as pyhf."""
        self._checked()
        try:
            observed = sum((list(self.observations[c]) for c in model.config.channels), [])
        except KeyError:
            log.error("Invalid channel: the workspace does not have observation data for one of the channels in the model.")
            raise
        if include_auxdata:
            observed += model.config.auxdata
        return observed

    def prune(self, modifiers=None, modifier_types=None, samples=None, channels=None, measurements=None):
        """A new workspace without the named modifiers, modifier types, samples, channels and measurements."""
        doc = self._checked().prune(modifiers, modifier_types, samples, channels, measurements)
        return Workspace(doc)

    def rename(self, modifiers=None, samples=None, channels=None, measurements=None):
        """A new workspace with names changed ({old: new} per kind)."""
        return Workspace(self._checked().rename(modifiers, samples, channels, measurements))

    @classmethod
    def combine(cls, left, right, join="none", merge_channels=False):
        """The combination of two workspaces (pyhf's join rules: none, outer, left outer, right outer)."""
        if join not in Workspace.valid_joins:
            raise ValueError(f"Workspaces must be joined using one of the valid join operations "
                             f"({Workspace.valid_joins}); not {join}")
        if merge_channels and join not in ["outer", "left outer", "right outer"]:
            raise ValueError(f"You can only merge channels using the outer, left outer, or right outer join "
                             f"operations; not {join}")
        if join in ["left outer", "right outer"]:
            log.warning("You are using an unsafe join operation. This will silence exceptions that might be "
                        "raised during a normal 'outer' operation.")
        # pyhf's order: the documents as they are now (a Workspace is a dict, and callers may have edited it since
        # it was made) are joined first, and only the combined one is checked (_workspace_join.py).
        return cls(combine_documents(dict(left), dict(right), join, merge_channels))

    @staticmethod
    def _current(workspace):
        """A Workspace made from the document's present content (for the class methods, which pyhf runs on
        the dict as it is)."""
        return Workspace(dict(workspace) if isinstance(workspace, Workspace) else workspace, validate=False)

    @classmethod
    def sorted(cls, workspace):
        """A copy with channels, samples, modifiers and measurements sorted by name, as pyhf."""
        return cls(Workspace._current(workspace)._checked().sorted())

    @classmethod
    def build(cls, model, data, name="measurement", validate=True):
        """A workspace from a model and its observed main data (pyhf's Workspace.build)."""
        spec = getattr(model, "spec", None)
        if spec is None:
            raise TypeError("Workspace.build: expected a Model")
        nmain = model.config.nmaindata
        data = list(data)[:nmain]
        return cls(
            {
                "channels": spec["channels"],
                # Every parameter's suggested bounds, inits and fixed, as pyhf writes them.
                "measurements": [
                    {"name": name, "config": {"poi": model.config.poi_name, "parameters": [
                        {"bounds": [list(b) for b in p["paramset"].suggested_bounds],
                         "inits": list(p["paramset"].suggested_init),
                         "fixed": p["paramset"].suggested_fixed_as_bool,
                         "name": n}
                        for n, p in model.config.par_map.items()
                    ]}}
                ],
                "observations": [
                    {"name": c, "data": data[model.config.channel_slices[c]]} for c in model.config.channels
                ],
                "version": "1.0.0",
            },
            validate=validate,
        )

    def digest(self, algorithm="sha256"):
        """``pyhf.utils.digest(self, algorithm)``: the hash patch sets use to name their workspace."""
        from .utils import digest

        return digest(self, algorithm=algorithm)

    def _cpp_workspace(self):
        return self._checked()
