"""The HistFactory modifier types, as ``pyhf.modifiers``: ``histfactory_set`` maps each type to its (builder,
applicator) pair, the form pyhf's ``Model(spec, modifier_set=...)`` takes.

hfcore's engine builds and applies the seven HistFactory modifiers itself (core/modifiers/); the classes here
name them, so that code written for pyhf can pass ``modifier_set=hfcore.modifiers.histfactory_set`` (or a copy
of it). A modifier_set with other types (custom modifiers) is accepted as long as the spec does not use them;
a spec that uses one raises ``Unsupported`` naming the type: the engine has no way to run Python modifiers
(see docs/python.md, "Custom modifiers").
"""

from __future__ import annotations

from . import exceptions

__all__ = ["histfactory_set", "histosys", "lumi", "normfactor", "normsys", "shapefactor", "shapesys", "staterror"]

_TYPES = ("histosys", "lumi", "normfactor", "normsys", "shapefactor", "shapesys", "staterror")


def __dir__():
    return __all__


class _EngineModifier:
    """A modifier type the engine builds and applies; instances are never made in Python."""

    name = ""
    is_shared = True

    def __init__(self, *args, **kwargs):
        raise exceptions.Unsupported(
            f"the {self.name} modifier is built and applied by hfcore's engine inside the compiled model; "
            "its Python builder and applicator cannot be instantiated"
        )


def _pair(type_name, op_code):
    builder = type(f"{type_name}_builder", (_EngineModifier,), {"name": type_name})
    applicator = type(f"{type_name}_combined", (_EngineModifier,), {"name": type_name, "op_code": op_code})
    return builder, applicator


_OP_CODES = {"histosys": "addition", "lumi": "multiplication", "normfactor": "multiplication",
             "normsys": "multiplication", "shapefactor": "multiplication", "shapesys": "multiplication",
             "staterror": "multiplication"}

histfactory_set = {t: _pair(t, _OP_CODES[t]) for t in _TYPES}

# pyhf's per-type names: hfcore.modifiers.normsys -> the (builder, applicator) pair of normsys.
histosys, lumi, normfactor, normsys, shapefactor, shapesys, staterror = (histfactory_set[t] for t in _TYPES)


def _check_modifier_set(spec, modifier_set, validate=True):
    """Before the engine builds a model: Unsupported when the spec uses a modifier type of ``modifier_set``
    outside hfcore's (a custom modifier) or replaced there; with ``validate=False`` (pyhf then skips the schema
    and reports an unknown type when building) InvalidModifier for a type no modifier set has."""
    if modifier_set is None and validate:
        return  # the engine's schema check names any unknown type
    known = histfactory_set if modifier_set is None else modifier_set
    used = {m.get("type") for c in spec.get("channels", []) for s in c.get("samples", [])
            for m in s.get("modifiers", []) if isinstance(m, dict)}
    for type_name in sorted(t for t in used if isinstance(t, str)):
        entry = known.get(type_name)
        if entry is None:
            if not validate:
                raise exceptions.InvalidModifier(
                    f"modifier type {type_name!r} is not one of the modifier set's: {', '.join(sorted(known))}"
                )
            continue  # the schema check reports the unknown type with its JSON path
        if histfactory_set.get(type_name) is not entry and tuple(entry) != histfactory_set.get(type_name):
            raise exceptions.Unsupported(
                f"custom modifier {type_name!r}: hfcore's engine runs the HistFactory modifiers "
                f"({', '.join(_TYPES)}) only; a modifier implemented in Python cannot be evaluated by it"
            )
