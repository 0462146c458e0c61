"""The model: ``hfcore.Model`` stands in for ``pyhf.Model`` (same constructor, config and evaluation calls).

Evaluations run in C++ (hfcore._core.Model, from which Model derives, so a ``model.logpdf`` call goes straight
to the compiled method) with the GIL released; inputs are numpy arrays (or lists), outputs numpy arrays.
"""

from __future__ import annotations

import copy
import re

import numpy as np

from . import _core
from . import exceptions
from ._pdf_distributions import _Distributions
from .mixins import _ChannelSummaryMixin
from .modifiers import _check_modifier_set
from ._pdf_parts import _ConstraintModel, _MainModel, _TensorViewer

__all__ = ["Model", "_ModelConfig"]

_DEFAULT_MODIFIER_SETTINGS = {"normsys": {"interpcode": "code4"}, "histosys": {"interpcode": "code4p"}}


def _interpcodes(modifier_settings):
    """pyhf's modifier_settings replace the whole dict; a type left out gets its modifier's own default
    (normsys code1, histosys code0), as in pyhf."""
    if modifier_settings is None:
        modifier_settings = _DEFAULT_MODIFIER_SETTINGS
    known = {"normsys", "histosys"}
    for key in modifier_settings:
        if key not in known:
            raise exceptions.Unsupported(
                f"modifier_settings for {key!r}: hfcore has interpolation settings for normsys and histosys only"
            )
    normsys = modifier_settings.get("normsys", {}).get("interpcode", "code1")
    histosys = modifier_settings.get("histosys", {}).get("interpcode", "code0")
    return normsys, histosys


class _ParamSet:
    """What pyhf's ``model.config.param_set(name)`` shows of a parameter set."""

    def __init__(self, info, bounds_given=False):
        self.name = info["name"]
        self.modifier_type = info["modifier_type"]
        self.n_parameters = info["n"]
        self.is_scalar = info["modifier_type"] in ("normfactor", "lumi", "normsys", "histosys")
        self.is_shared = True
        self.suggested_init = list(info["inits"])
        # pyhf's types: the bounds a spec's parameter config gives stay lists, a modifier's defaults are tuples.
        self.suggested_bounds = [(list if bounds_given else tuple)(b) for b in info["bounds"]]
        self.suggested_fixed = list(info["fixed"])
        self.constrained = info["constrained"]
        self.pdf_type = info["constraint"]
        if self.constrained:
            self.auxdata = list(info["auxdata"])
            if info["sigmas"]:
                self.sigmas = list(info["sigmas"])
            if info["factors"]:
                self.factors = list(info["factors"])

    @property
    def suggested_fixed_as_bool(self):
        return all(self.suggested_fixed)

    def width(self):
        """Constraint widths: sigma (normal) or 1/sqrt(tau) (Poisson), as pyhf's paramsets."""
        if not self.constrained:
            raise NotImplementedError("unconstrained parameters have no width")
        if self.pdf_type == "normal":
            return list(self.sigmas)
        return [1.0 / np.sqrt(f) for f in self.factors]

    def __repr__(self):
        return f"<hfcore paramset {self.name} ({self.modifier_type}, {self.n_parameters} parameter(s))>"


class _ModelConfig(_ChannelSummaryMixin):
    """``model.config``: channels, samples, parameters in pyhf's order, suggested init/bounds/fixed, POI."""

    def __init__(self, model, spec):
        self._model = model
        info = model._config_info()
        self._channels = info["channels"]
        self._samples = info["samples"]
        self._set_channel_bins(dict(zip(info["channels"], info["channel_nbins"])))
        mods = set()
        for channel in spec.get("channels", []):
            for sample in channel.get("samples", []):
                for m in sample.get("modifiers", []):
                    mods.add((m["name"], m["type"]))
        self._modifiers = sorted(mods)
        self.modifier_settings = info["modifier_settings"]
        self._bounds_given = {p.get("name") for p in spec.get("parameters", [])
                              if isinstance(p, dict) and "bounds" in p}
        self._set_info(info)

    def _set_info(self, info):
        self._par_order = info["par_order"]
        self._par_names = info["par_names"]
        self.npars = info["npars"]
        self._nmaindata = info["nmaindata"]
        self._auxdata = info["auxdata"]
        self._poi_name = info["poi_name"]
        self._poi_index = info["poi_index"]
        self.implementation = info["implementation"]
        self.par_map = {}
        self.auxdata_order = []
        for p in info["parameter_sets"]:
            self.par_map[p["name"]] = {
                "slice": slice(p["offset"], p["offset"] + p["n"]),
                "paramset": _ParamSet(p, p["name"] in self._bounds_given),
            }
            if p["constrained"]:
                self.auxdata_order.append(p["name"])
        self.parameters = sorted(self.par_map)
        self._init = [x for n in self._par_order for x in self.par_map[n]["paramset"].suggested_init]
        self._bounds = [b for n in self._par_order for b in self.par_map[n]["paramset"].suggested_bounds]
        self._fixed = [f for n in self._par_order for f in self.par_map[n]["paramset"].suggested_fixed]

    # ---- parameters ----
    @property
    def par_order(self):
        return self._par_order

    @property
    def par_names(self):
        return list(self._par_names)

    @property
    def poi_name(self):
        return self._poi_name

    @property
    def poi_index(self):
        return self._poi_index

    @property
    def auxdata(self):
        return list(self._auxdata)

    @property
    def nmaindata(self):
        return self._nmaindata

    @property
    def nauxdata(self):
        return len(self._auxdata)

    def suggested_init(self):
        return list(self._init)

    def suggested_bounds(self):
        return list(self._bounds)

    def suggested_fixed(self):
        # From the paramsets, so that a change of param_set(name).suggested_fixed shows here, as in pyhf.
        return [f for n in self._par_order for f in self.par_map[n]["paramset"].suggested_fixed]

    def par_slice(self, name):
        try:
            return self.par_map[name]["slice"]
        except KeyError:
            raise KeyError(f"{name!r} is not a parameter of the model (parameters: {self.par_order})") from None

    def param_set(self, name):
        try:
            return self.par_map[name]["paramset"]
        except KeyError:
            raise KeyError(f"{name!r} is not a parameter of the model (parameters: {self.par_order})") from None

    def set_poi(self, name):
        """Makes ``name`` the parameter of interest (None: no POI), as pyhf's ``config.set_poi``."""
        if name is not None and name not in self.par_map:
            raise exceptions.InvalidModel(
                f"The parameter of interest '{name}' cannot be fit as it is not declared in the model specification."
            )
        if name is not None and self.par_map[name]["paramset"].n_parameters > 1:
            raise exceptions.InvalidModel(
                f"The parameter '{name}' contains multiple components and is not currently supported as parameter of interest."
            )
        self._model._set_poi(name)
        self._set_info(self._model._config_info())


class _LikelihoodParts:
    """pyhf's views of a model's likelihood as main and constraint parts (what cabinetry reads): main_model,
    constraint_model, fullpdf_tv, and the log-likelihood of each part. Built on first use."""

    @property
    def main_model(self):
        if getattr(self, "_main_model", None) is None:
            self._main_model = _MainModel(self)
        return self._main_model

    @property
    def constraint_model(self):
        if getattr(self, "_constraint_model", None) is None:
            self._constraint_model = _ConstraintModel(self)
        return self._constraint_model

    @property
    def fullpdf_tv(self):
        sizes = [self.config.nmaindata] + ([self.config.nauxdata] if self.constraint_model.has_pdf() else [])
        return _TensorViewer(sizes, ["main", "aux"])

    def mainlogpdf(self, maindata, pars):
        return self.main_model.logpdf(maindata, pars)

    def constraint_logpdf(self, auxdata, pars):
        return self.constraint_model.logpdf(auxdata, pars)


class Model(_LikelihoodParts, _Distributions, _core.Model):
    """A HistFactory model, as ``pyhf.Model``: built from a model spec ``{"channels": [...], "parameters":
    [...]}`` (or by ``Workspace.model``), compiled once onto a backend.

    Keyword arguments as pyhf: ``poi_name`` (default "mu"; None for no POI), ``modifier_settings``,
    ``batch_size`` (accepted; any [K, P] batch works without it), ``validate`` (hfcore always validates).
    hfcore's own: ``backend`` (an object from :func:`hfcore.backend`; default: the current default backend,
    followed when :func:`hfcore.set_backend` changes it).
    """

    def __init__(self, spec, modifier_set=None, batch_size=None, validate=True, clip_sample_data=None,
                 clip_bin_data=None, **config_kwargs):
        _check_modifier_set(spec, modifier_set, validate)
        if clip_sample_data is not None or clip_bin_data is not None:
            # pyhf clips the expected data from below (per sample or per bin) inside its likelihood; the engine's
            # yields, logpdf, gradients and fits have no such clip, and applying it in Python to expected_data
            # alone would give numbers the fits do not use.
            given = [f"{k}={v!r}" for k, v in (("clip_sample_data", clip_sample_data), ("clip_bin_data", clip_bin_data))
                     if v is not None]
            raise exceptions.Unsupported(
                f"{', '.join(given)}: hfcore's engine does not clip expected data (pyhf's clip of each sample's or "
                "bin's expected data from below); build the model without it"
            )
        self.batch_size = batch_size
        self.spec = copy.deepcopy(spec)
        self.schema = config_kwargs.pop("schema", "model.json")
        self.version = config_kwargs.pop("version", None)
        poi_name = config_kwargs.pop("poi_name", "mu")
        poi_name = None if poi_name == "" else poi_name
        normsys, histosys = _interpcodes(config_kwargs.pop("modifier_settings", None))
        backend = config_kwargs.pop("backend", None)
        source = config_kwargs.pop("_source", "<model spec>")
        if config_kwargs:
            raise exceptions.Unsupported(f"Unsupported options were passed in: {list(config_kwargs.keys())}.")
        if isinstance(backend, str):
            from .tensor import backend as load

            backend = load(backend)
        try:
            super().__init__(self.spec, poi_name, normsys, histosys, backend, source)
        except exceptions.InvalidModel as err:
            # pyhf's finer classes for two of the engine's semantic errors (both stay InvalidModel).
            finer = None
            if "pyhf: InvalidNameReuse" in str(err):
                finer = exceptions._NameReuse(str(err))
            elif re.search(r"modifiers\[\d+\]\.data", str(getattr(err, "path", "") or err)):
                finer = exceptions._ModifierData(str(err))
            if finer is None:
                raise
            finer.file, finer.path = err.file, err.path
            raise finer from None
        self._config = _ModelConfig(self, self.spec)

    @property
    def config(self):
        return self._config

    @property
    def backend(self):
        """The hfcore backend this model runs on now."""
        return self._backend

    @property
    def nominal_rates(self):
        raise exceptions.Unsupported("hfcore keeps the nominal rates in its compiled model; use expected_data")

    def pdf(self, pars, data):
        """exp(logpdf)."""
        return np.exp(self.logpdf(pars, data))

    def __repr__(self):
        return (f"<hfcore.Model: {len(self.config.channels)} channel(s), {self.config.npars} parameter(s), "
                f"POI {self.config.poi_name!r}, on {self.backend.description}>")
