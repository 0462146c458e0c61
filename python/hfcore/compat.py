"""Names of parameters as ROOT's HistFactory writes them, as ``pyhf.compat``."""

from __future__ import annotations

import re

__all__ = ["interpret_rootname", "paramset_to_rootnames"]


def __dir__():
    return __all__


def paramset_to_rootnames(paramset):
    """ROOT's names of a parameter set's parameters: "Lumi" for lumi, "alpha_<name>" for a constrained scalar,
    "<name>" for a free scalar, ["gamma_<name>_<i>", ...] for a vector."""
    if paramset.name == "lumi":
        return "Lumi"
    if paramset.is_scalar:
        return f"alpha_{paramset.name}" if paramset.constrained else paramset.name
    return [f"gamma_{paramset.name}_{i}" for i in range(paramset.n_parameters)]


def interpret_rootname(rootname):
    """What a ROOT parameter name says: ``{"constrained", "is_scalar", "name", "element"}``, "n/a" where the
    name does not tell. ValueError for a gamma_ name without its index or an alpha_ name without a name."""
    out = {"constrained": "n/a", "is_scalar": True, "name": "n/a", "element": "n/a"}
    if rootname.startswith("gamma_"):
        match = re.fullmatch(r"gamma_(.+)_(\d+)", rootname)
        if not match:
            raise ValueError(f"{rootname!r}: a gamma_ parameter name ends with _<bin index>")
        out.update(is_scalar=False, name=match.group(1), element=int(match.group(2)))
    elif rootname.startswith("alpha_"):
        match = re.fullmatch(r"alpha_(.+)", rootname)
        if not match:
            raise ValueError(f"{rootname!r}: an alpha_ parameter name has a name after alpha_")
        out.update(constrained=True, name=match.group(1))
    elif rootname in ("Lumi", "lumi"):
        out.update(constrained=False, name="lumi")
    else:
        out.update(constrained=False, name=rootname)
    return out
