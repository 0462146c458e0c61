#!/usr/bin/env python3
"""pyhf's results for the workspace-layer tests (tests/workspace): digests, patches, patchsets, combine,
prune, rename, sorted and the exact text of pyhf's CLI output for a few cases.

Reads the inputs from ../shared (next to the repository root) and writes
tests/reference/workspace/reference.json. pyhf is used only here, never when hfcore runs or is tested.

    python3 tests/reference/make_digests.py            # pyhf 0.7.6, jsonpatch
"""
import copy
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import jsonpatch
import pyhf

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared"))
OUT = os.path.join(HERE, "workspace", "reference.json")

ALGORITHMS = ["sha256", "md5", "sha1", "sha512", "sha3_256", "blake2b"]


def load(rel):
    with open(os.path.join(SHARED, rel), encoding="utf-8") as f:
        return json.load(f)


def sha256_file(rel):
    with open(os.path.join(SHARED, rel), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


# ---- inputs: a file, optionally renamed or patched, exactly as the C++ test rebuilds it ----
def build_input(spec):
    ws = pyhf.Workspace(load(spec["file"]))
    if "patchset" in spec:
        ps = pyhf.PatchSet(load(spec["patchset"]["file"]))
        ws = ps.apply(ws, spec["patchset"]["name"])
    if "rename" in spec:
        r = spec["rename"]
        ws = ws.rename(
            channels=dict(r.get("channels", [])),
            samples=dict(r.get("samples", [])),
            modifiers=dict(r.get("modifiers", [])),
            measurements=dict(r.get("measurements", [])),
        )
    if "poi" in spec:  # replace the POI of every measurement (to provoke incompatible POIs)
        spec_copy = copy.deepcopy(dict(ws))
        for m in spec_copy["measurements"]:
            m["config"]["poi"] = spec["poi"]
        ws = pyhf.Workspace(spec_copy)
    return ws


def run_case(case):
    try:
        op = case["op"]
        if op == "combine":
            ws = pyhf.Workspace.combine(
                build_input(case["left"]),
                build_input(case["right"]),
                join=case["join"],
                merge_channels=case.get("merge_channels", False),
            )
        elif op == "prune":
            a = case["args"]
            ws = build_input(case["input"]).prune(
                channels=a.get("channels", []),
                samples=a.get("samples", []),
                modifiers=a.get("modifiers", []),
                modifier_types=a.get("modifier_types", []),
                measurements=a.get("measurements", []),
            )
        elif op == "rename":
            a = case["args"]
            ws = build_input(case["input"]).rename(
                channels=dict(a.get("channels", [])),
                samples=dict(a.get("samples", [])),
                modifiers=dict(a.get("modifiers", [])),
                measurements=dict(a.get("measurements", [])),
            )
        elif op == "sorted":
            ws = pyhf.Workspace.sorted(build_input(case["input"]))
        else:
            raise ValueError(op)
        case["result"] = {"digest": pyhf.utils.digest(ws), "channels": ws.channels, "samples": ws.samples}
    except Exception as e:  # noqa: BLE001 - the error class is the expected result
        case["result"] = {"error": f"{type(e).__module__}.{type(e).__name__}", "message": str(e)}
    return case


EX = "validation/pyhf-examples"
BKG = f"{EX}/tests/test_patchset/example_bkgonly.json"
PATCHSET = f"{EX}/tests/test_patchset/example_patchset.json"
TWO = "validation/pyhf-validation/2bin_2channel/workspace.json"
COUPLED = "validation/pyhf-validation/2bin_2channel_coupledhistosys/workspace.json"
SBOTTOM = "validation/pyhf-validation/sbottom_regionA_1300_205_60/workspace.json"
SIMPLE = f"{EX}/docs/examples/json/2-bin_1-channel.json"


def cases():
    signal = {"file": BKG, "patchset": {"file": PATCHSET, "name": "patch_channel1_signal_syst1"}}
    renamed_two = {
        "file": TWO,
        "rename": {
            "channels": [["signal", "signal_b"], ["control", "control_b"]],
            "measurements": [["Measurement", "Measurement_b"]],
        },
    }
    out = [
        # combine
        {"op": "combine", "left": {"file": TWO}, "right": renamed_two, "join": "none"},
        {"op": "combine", "left": {"file": TWO}, "right": {"file": TWO}, "join": "none"},
        {"op": "combine", "left": {"file": TWO}, "right": {"file": TWO}, "join": "outer"},
        {"op": "combine", "left": {"file": BKG}, "right": signal, "join": "outer"},
        {"op": "combine", "left": {"file": BKG}, "right": signal, "join": "left outer"},
        {"op": "combine", "left": {"file": BKG}, "right": signal, "join": "right outer"},
        {"op": "combine", "left": {"file": BKG}, "right": signal, "join": "outer", "merge_channels": True},
        {"op": "combine", "left": {"file": BKG}, "right": signal, "join": "left outer", "merge_channels": True},
        {"op": "combine", "left": {"file": BKG}, "right": signal, "join": "right outer", "merge_channels": True},
        {"op": "combine", "left": {"file": TWO}, "right": {"file": TWO, "poi": "other"}, "join": "outer"},
        {"op": "combine", "left": {"file": TWO}, "right": {"file": TWO, "poi": "other"}, "join": "left outer"},
        {"op": "combine", "left": {"file": SIMPLE}, "right": {"file": TWO}, "join": "outer"},
        {
            "op": "combine",
            "left": {"file": SIMPLE},
            "right": {"file": TWO, "rename": {"measurements": [["Measurement", "Other"]]}},
            "join": "none",
        },
        {"op": "combine", "left": {"file": SIMPLE}, "right": {"file": COUPLED}, "join": "none"},
        # prune
        {"op": "prune", "input": {"file": TWO}, "args": {"channels": ["control"]}},
        {"op": "prune", "input": {"file": BKG}, "args": {"samples": ["background1"]}},
        {"op": "prune", "input": {"file": BKG}, "args": {"modifiers": ["syst2", "lumi"]}},
        {"op": "prune", "input": {"file": BKG}, "args": {"modifier_types": ["normsys", "staterror"]}},
        {"op": "prune", "input": {"file": SBOTTOM}, "args": {"modifier_types": ["histosys"], "samples": ["ttbar"]}},
        {"op": "prune", "input": {"file": BKG}, "args": {"measurements": ["GammaExample", "ConstExample"]}},
        {"op": "prune", "input": {"file": BKG}, "args": {"channels": ["no_such_channel"]}},
        {"op": "prune", "input": {"file": BKG}, "args": {"modifier_types": ["shapefactor"]}},
        # rename
        {"op": "rename", "input": {"file": BKG}, "args": {"channels": [["channel1", "ch_one"]]}},
        {"op": "rename", "input": {"file": BKG}, "args": {"samples": [["background1", "bkg_one"]]}},
        {"op": "rename", "input": {"file": BKG}, "args": {"modifiers": [["SigXsecOverSM", "mu"], ["lumi", "lumi"]]}},
        {"op": "rename", "input": {"file": BKG}, "args": {"measurements": [["GaussExample", "gauss"]]}},
        {"op": "rename", "input": {"file": BKG}, "args": {"samples": [["nope", "x"]]}},
        # sorted
        {"op": "sorted", "input": {"file": BKG}},
        {"op": "sorted", "input": {"file": SBOTTOM}},
        {"op": "sorted", "input": {"file": "data/atlas-3l-erjr/BkgOnly.json"}},
        {"op": "sorted", "input": signal},
    ]
    return [run_case(c) for c in out]


def cli_outputs():
    """pyhf's CLI text for a few commands (to compare hfcore's output byte for byte)."""
    runs = [
        ["sort", SIMPLE],
        ["sort", BKG],
        ["prune", BKG, "-m", "syst2", "-t", "staterror"],
        ["rename", BKG, "-c", "channel1", "ch_one", "-m", "SigXsecOverSM", "mu"],
        ["combine", BKG, TWO, "--join", "none"],
        ["digest", BKG],
        ["digest", BKG, "-a", "sha256", "-a", "md5", "-j"],
        ["digest", SIMPLE, "-a", "sha1", "-a", "sha256"],
        ["patchset", "extract", PATCHSET, "--name", "patch_channel1_signal_syst1"],
        ["patchset", "extract", PATCHSET, "--name", "patch_channel1_signal_syst1", "--with-metadata"],
        ["patchset", "apply", BKG, PATCHSET, "--name", "patch_channel1_signal_syst1"],
        ["patchset", "verify", BKG, PATCHSET],
        ["patchset", "inspect", PATCHSET],
    ]
    out = []
    for args in runs:
        proc = subprocess.run(["pyhf", *args], cwd=SHARED, capture_output=True, text=True, check=True)
        out.append({"args": args, "stdout": proc.stdout})
    # --output-file writes without the trailing newline
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "out.json")
        subprocess.run(["pyhf", "sort", SIMPLE, "--output-file", path], cwd=SHARED, check=True)
        with open(path, encoding="utf-8") as f:
            out.append({"args": ["sort", SIMPLE, "--output-file", "<file>"], "file": f.read()})
    return out


def float_reprs():
    """repr() of doubles (bit patterns as hex) for the float formatter."""
    import math
    import random
    import struct

    rng = random.Random(20250101)
    values = [0.0, -0.0, 1.0, -1.0, 0.1, 1e-05, 0.0001, 1e16, 1e15, 9999999999999998.0, 5e-324, 2.2250738585072014e-308,
              1.7976931348623157e308, 100.0, 123456789012345678.0, 2.5e-07, 0.30000000000000004, 1e22, 1e23]
    values += [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(3000)]
    values += [rng.uniform(-1e6, 1e6) for _ in range(500)]
    values += [rng.random() * 10.0 ** rng.randint(-30, 30) for _ in range(500)]
    values += [float(rng.randint(-(2**60), 2**60)) for _ in range(200)]
    return [[struct.pack(">d", v).hex(), repr(v)] for v in values if math.isfinite(v)]


def main():
    good = [SIMPLE, BKG, f"{EX}/tests/test_scripts/example_bkgonly.json", "data/atlas-3l-erjr/BkgOnly.json"]
    good += sorted(
        f"validation/pyhf-validation/{d}/workspace.json"
        for d in os.listdir(os.path.join(SHARED, "validation/pyhf-validation"))
        if os.path.isdir(os.path.join(SHARED, "validation/pyhf-validation", d))
    )
    digests = {}
    for rel in good:
        ws = pyhf.Workspace(load(rel))
        digests[rel] = {
            "file_sha256": sha256_file(rel),
            "digests": {alg: pyhf.utils.digest(ws, algorithm=alg) for alg in ALGORITHMS},
        }

    # ATLAS 3L eRJR: every patch applied to BkgOnly with jsonpatch (what pyhf's Workspace.model(patches=) does
    # to {channels, parameters}) and to the whole workspace.
    erjr_dir = "data/atlas-3l-erjr"
    bkg = load(f"{erjr_dir}/BkgOnly.json")
    erjr = {}
    for name in sorted(os.listdir(os.path.join(SHARED, erjr_dir))):
        if not name.startswith("patch."):
            continue
        patch = load(f"{erjr_dir}/{name}")
        patched = jsonpatch.apply_patch(bkg, patch)
        ws = pyhf.Workspace(patched)
        model = pyhf.Workspace(bkg).model(patches=[patch])
        erjr[name] = {
            "file_sha256": sha256_file(f"{erjr_dir}/{name}"),
            "patched_workspace_sha256": pyhf.utils.digest(ws),
            "model_spec_sha256": pyhf.utils.digest(model.spec),
            "samples_per_channel": {c["name"]: [s["name"] for s in c["samples"]] for c in model.spec["channels"]},
            "poi": model.config.poi_name,
        }

    ps = pyhf.PatchSet(load(PATCHSET))
    bkg_ws = pyhf.Workspace(load(BKG))
    patchset = {
        "file": PATCHSET,
        "background_only": BKG,
        "labels": ps.labels,
        "patches": [
            {
                "name": p.name,
                "values": list(p.values),
                "applied_sha256": pyhf.utils.digest(ps.apply(bkg_ws, p.name)),
            }
            for p in ps
        ],
    }

    ref = {
        "description": __doc__.strip().splitlines()[0],
        "software": {
            "pyhf": pyhf.__version__,
            "jsonpatch": jsonpatch.__version__,
            "python": sys.version.split()[0],
        },
        "inputs_relative_to": "../shared",
        "digests": digests,
        "erjr_patches": erjr,
        "patchset": patchset,
        "operations": cases(),
        "cli": cli_outputs(),
        "float_repr": float_reprs(),
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(ref, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
