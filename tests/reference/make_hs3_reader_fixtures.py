#!/usr/bin/env python3
"""Reference numbers for tests/workspace/test_hs3_readers.cpp: hfcore's HS3 read by two independent HS3 readers.

For each case this converts the pyhf workspace with `hfcore convert WS --to hs3` (the build given by HFCORE_CLI,
default build/release/bin/hfcore), records the sha256 of the HS3 text hfcore wrote, loads that text with
  - NextStat (nextstat._core.HistFactoryModel.from_hs3, with the analysis's parameter point set), its nll, and
  - pyhs3 (Workspace(**doc).model(analysis).log_prob, compiled with pytensor), its log-probability,
and evaluates both at two points: pyhf's suggested init, and a moved point (normsys/histosys parameters at
+-1.5/-1.2, i.e. outside [-1, 1] where every interpolation code is the same exponential/linear extrapolation, since
NextStat's HS3 reader uses ROOT's code1/code0 whatever the document says; lumi held at its init, as NextStat's reader
takes lumi's global observable as 0; every other free parameter scaled by 0.95 or 1.1). pyhf's logpdf at both
points is recorded too. Parameters are named as pyhf expands them ("name", "name[i]"); NextStat's one-bin "name[0]"
is mapped to "name". A reader that refuses the document has its error recorded instead of numbers. Where pyhs3 reads the document, the
workspace it read is also recorded as pyhs3 serialises it (pyhs3.Workspace.model_dump): an HS3 document from
another writer, in pyhs3's layout, for hfcore to read.

Usage: python3 tests/reference/make_hs3_reader_fixtures.py        (all cases; see cases())
Environment: pip install nextstat==0.10.1 pyhs3==0.4.2 pyhf==0.7.6 (versions recorded). Inputs are read from
../shared (HFCORE_SHARED_DIR) and the repository; their sha256 is recorded. Writes tests/reference/hs3/readers.json.
"""
import hashlib
import json
import logging
import os
import subprocess
import sys

import numpy as np
import pyhf

from provenance import provenance

logging.disable(logging.WARNING)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("HFCORE_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
CLI = os.environ.get("HFCORE_CLI", os.path.join(ROOT, "build", "release", "bin", "hfcore"))
OUT = os.path.join(HERE, "hs3", "readers.json")
VALIDATION = "validation/pyhf-validation"
SBOTTOM = "sbottom_regionA_1300_205_60"  # one sbottom model: the others are the same layout


def cases():
    """(name, "repo" or "shared", path under it): the example, the validation cases and one sbottom model."""
    out = [("example", "repo", "examples/workspaces/example.json")]
    for d in sorted(os.listdir(os.path.join(SHARED, VALIDATION))):
        rel = f"{VALIDATION}/{d}/workspace.json"
        if os.path.exists(os.path.join(SHARED, rel)) and (not d.startswith("sbottom") or d == SBOTTOM):
            out.append((d, "shared", rel))
    return out


def pyhf_names(model):
    names = []
    for p in model.config.par_order:
        n = model.config.param_set(p).n_parameters
        names += [p] if n == 1 else [f"{p}[{i}]" for i in range(n)]
    return names


def moved_point(spec, model, names, init):
    types = {m["name"]: m["type"] for c in spec["channels"] for s in c["samples"] for m in s["modifiers"]}
    fixed = model.config.suggested_fixed()
    x = list(init)
    for k, n in enumerate(names):
        base = n.split("[")[0]
        if fixed[k] or types.get(base) == "lumi":
            continue
        if types.get(base) in ("normsys", "histosys"):
            x[k] = 1.5 if k % 2 else -1.2
        else:
            x[k] = init[k] * (1.1 if k % 2 else 0.95)
    return x


def nextstat_nll(text, names, points):
    import nextstat._core as ns

    doc = json.loads(text)
    try:
        m = ns.HistFactoryModel.from_hs3(text, param_points=doc["analyses"][0]["init"])
        index = []
        for n in m.parameter_names():
            index.append(names.index(n if n in names or not n.endswith("[0]") else n[:-3]))
        return {"nll": [float(m.nll([x[i] for i in index])) for x in points]}
    except Exception as e:  # a refusal is a result: recorded, and the test checks it stays one
        return {"error": str(e)}


def pyhs3_logpdf(text, names, points):
    import pyhs3
    import warnings

    import pytensor

    warnings.simplefilter("ignore")
    from pytensor.graph.basic import Constant, graph_inputs

    try:
        ws = pyhs3.Workspace(**json.loads(text))
        model = ws.model(ws.analyses[0], progress=False)
        lp = model.log_prob
        inputs = [v for v in graph_inputs([lp]) if not isinstance(v, Constant)]
        f = pytensor.function(inputs, lp, on_unused_input="ignore")
        out = []
        for x in points:
            out.append(float(np.asarray(f(*[np.asarray(x[names.index(v.name)], dtype=float) for v in inputs])).ravel()[0]))
        if not all(np.isfinite(out)):
            return {"error": f"non-finite log-probability {out}"}
        # pyhs3 as a writer: the workspace it read, serialised by pyhs3 (its own layout, without hfcore's
        # pyhf_config), for hfcore to read as a document from another writer.
        written = ws.model_dump(mode="json", by_alias=True, exclude_none=True)
        return {"logpdf": out, "written": written}
    except Exception as e:
        return {"error": " ".join(str(e).split())[:600]}


def run(name, where, rel):
    path = os.path.join(ROOT if where == "repo" else SHARED, rel)
    text = subprocess.run([CLI, "convert", path, "--to", "hs3"], check=True, capture_output=True, text=True).stdout
    spec = json.load(open(path))
    ws = pyhf.Workspace(spec)
    model = ws.model()
    data = ws.data(model)
    names = pyhf_names(model)
    init = [float(v) for v in model.config.suggested_init()]
    points = [init, moved_point(spec, model, names, init)]
    return {
        "name": name,
        "workspace": rel,
        "root": where,
        "hs3_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "parameters": names,
        "points": points,
        "pyhf_logpdf": [float(model.logpdf(np.asarray(x), data)[0]) for x in points],
        "nextstat": nextstat_nll(text, names, points),
        "pyhs3": pyhs3_logpdf(text, names, points),
    }


def main():
    pyhf.set_backend("numpy", precision="64b")
    all_cases = cases()
    results = []
    for name, where, rel in all_cases:
        r = run(name, where, rel)
        print(name, "nextstat:", r["nextstat"], "pyhs3:", r["pyhs3"], "pyhf:", r["pyhf_logpdf"], file=sys.stderr)
        results.append(r)
    out = {
        "provenance": provenance(
            "make_hs3_reader_fixtures.py", ["pyhf", "numpy", "nextstat", "pyhs3", "pytensor"],
            shared_inputs=[rel for _, w, rel in all_cases if w == "shared"],
            repo_inputs=[rel for _, w, rel in all_cases if w == "repo"]),
        "cases": results,
    }
    out["provenance"]["recreate"] = "pip install nextstat==0.10.1 pyhs3==0.4.2 pyhf==0.7.6 numpy"
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
