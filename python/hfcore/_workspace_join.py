"""pyhf's rules for combining two workspace documents (``Workspace.combine``), on the documents as they are.

pyhf joins the raw documents and only then makes (and checks) the combined workspace, so a document that breaks
a semantic rule can still be combined when the join drops what breaks it (a "left outer" join keeps the left
observation of a name both have). The engine's ``Workspace::combine`` (the ``hfcore combine`` command) takes
workspaces it has checked already; hfcore.Workspace.combine uses these functions instead, and
tests/python/test_workspace.py checks that both give the same document wherever the engine can combine.

The function names are pyhf's (``pyhf.workspace._join_items`` and the like), since callers reach for them.
"""

from __future__ import annotations

import collections
import copy

from . import exceptions

VALID_JOINS = ["none", "outer", "left outer", "right outer"]
_TRY_ANOTHER = f" You can also try a different join operation: {VALID_JOINS}."


def _join_items(join, left_items, right_items, key="name", deep_merge_key=None):
    """The items of both lists: the primary list (the right one for "right outer", else the left) first, then
    each item of the other that the join admits: all of them ("none"), those not equal to an item of the primary
    ("outer"), those whose ``key`` the primary lacks ("left outer" / "right outer"). With ``deep_merge_key``, an
    item whose ``key`` is already there has its ``deep_merge_key`` list merged into that item's (left outer)."""
    primary, secondary = (right_items, left_items) if join == "right outer" else (left_items, right_items)
    joined = copy.deepcopy(primary)
    names = [item[key] for item in joined]
    for item in secondary:
        if deep_merge_key is not None and item[key] in names:
            target = joined[names.index(item[key])]
            target[deep_merge_key] = _join_items("left outer", target[deep_merge_key], item[deep_merge_key])
            continue
        if join == "none" or (join == "outer" and item not in primary) or (
                join in ("left outer", "right outer") and item[key] not in names):
            joined.append(copy.deepcopy(item))
    return joined


def _repeated(items):
    counts = collections.Counter(item["name"] for item in items)
    return [name for name, n in counts.items() if n > 1]


def _join_named(join, left, right, what, deep_merge_key=None):
    """Channels or observations: "none" refuses a name both have, "outer" a name both have with different
    content."""
    joined = _join_items(join, left, right, deep_merge_key=deep_merge_key)
    if join == "none":
        common = {item["name"] for item in left} & {item["name"] for item in right}
        if common:
            raise exceptions.InvalidWorkspaceOperation(
                f"Workspaces cannot have any {what} in common with the same name: {common}.{_TRY_ANOTHER}")
    elif join == "outer" and _repeated(joined):
        raise exceptions.InvalidWorkspaceOperation(
            f"Workspaces cannot have {what} in common with incompatible structure: {_repeated(joined)}."
            f"{_TRY_ANOTHER}")
    return joined


def _join_parameter_configs(measurement_name, left_parameters, right_parameters):
    """The parameter configs of two same-named measurements: a parameter both configure differently is an
    error."""
    joined = _join_items("outer", left_parameters, right_parameters)
    if _repeated(joined):
        raise exceptions.InvalidWorkspaceOperation(
            f"Workspaces cannot have a measurement ({measurement_name}) with incompatible parameter configs: "
            f"{_repeated(joined)}.{_TRY_ANOTHER}")
    return joined


def _join_measurements(join, left_measurements, right_measurements):
    """Measurements: "none" refuses a name both have; "outer" merges same-named ones (same POI, parameter
    configs joined)."""
    joined = _join_items(join, left_measurements, right_measurements)
    if join == "none":
        common = {m["name"] for m in left_measurements} & {m["name"] for m in right_measurements}
        if common:
            raise exceptions.InvalidWorkspaceOperation(
                f"Workspaces cannot have any measurements in common with the same name: {common}.{_TRY_ANOTHER}")
        return joined
    if join != "outer":
        return joined
    by_name = {}
    for m in joined:
        by_name.setdefault(m["name"], []).append(m)
    bad_poi = [name for name, ms in by_name.items() if len({m["config"]["poi"] for m in ms}) > 1]
    if bad_poi:
        raise exceptions.InvalidWorkspaceOperation(
            f"Workspaces cannot have the same measurements with incompatible POI: {bad_poi}.")
    out = []
    for name, ms in by_name.items():
        if len(ms) == 1:
            out.append(ms[0])
            continue
        parameters = _join_parameter_configs(name, *(m["config"]["parameters"] for m in ms))
        out.append({"name": name, "config": {"poi": ms[0]["config"]["poi"], "parameters": parameters}})
    return out


def combine_documents(left, right, join="none", merge_channels=False):
    """The combined document of two workspace documents (dicts), by pyhf's rules; not yet checked."""
    if left["version"] != right["version"]:
        raise exceptions.InvalidWorkspaceOperation(
            f"Workspaces of different versions cannot be combined: {left['version']} != {right['version']}")
    return {
        "channels": _join_named(join, left["channels"], right["channels"], "channels",
                                deep_merge_key="samples" if merge_channels else None),
        "measurements": _join_measurements(join, left["measurements"], right["measurements"]),
        "observations": _join_named(join, left["observations"], right["observations"], "observations"),
        "version": left["version"],
    }
