#!/usr/bin/env python3
"""Write the bundled reference models of the conformance suite to tests/conformance/models/.

They are installed with hfcore-conformance (share/hfcore/conformance/models), so a plugin author checks a
plugin's likelihood without the source tree or ../shared. Each file stands alone: the workspace is embedded.

Run from anywhere:  python3 tests/reference/make_conformance_models.py
Environment: pyhf 0.7.6, numpy, mpmath 1.3.0, jsonpatch (pip install pyhf==0.7.6 mpmath==1.3.0 jsonpatch);
the versions used are recorded in every file.

The models are the repository's example workspace (examples/workspaces/example.json: every modifier type, one
parameter that is both a normsys and a histosys, staterror over three channels) under three interpolation
settings, so that every interpolation code the fused kernels implement is reached. Points, pyhf's logpdf and
expected data, and the 50-digit logpdf are made exactly as the model tests' fixtures
(make_model_fixtures.build_fixture; see tests/reference/README.md for the rules).
"""

import json
import sys
from pathlib import Path

import pyhf

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_model_fixtures as fixtures  # noqa: E402  (this folder's sibling script)

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "tests" / "conformance" / "models"
WORKSPACE = REPO / "examples" / "workspaces" / "example.json"

SETTINGS = {
    "code4_code4p": {"normsys": {"interpcode": "code4"}, "histosys": {"interpcode": "code4p"}},  # pyhf default
    "code1_code0": {"normsys": {"interpcode": "code1"}, "histosys": {"interpcode": "code0"}},  # kinked at 0
    "code4_code2": {"normsys": {"interpcode": "code4"}, "histosys": {"interpcode": "code2"}},
}


def main():
    # The fixtures' sources are named relative to a root; here that is the repository, not ../shared.
    fixtures.SHARED = REPO
    OUT.mkdir(parents=True, exist_ok=True)
    doc = fixtures.load(WORKSPACE)
    workspace = pyhf.Workspace(doc)
    for label, settings in SETTINGS.items():
        model = workspace.model(modifier_settings=settings)
        build = {"how": "pyhf.Workspace(workspace).model(modifier_settings=...)",
                 "measurement": workspace.get_measurement()["name"]}
        name = f"example_{label}"
        fx, stats = fixtures.build_fixture(name, [WORKSPACE], build, workspace, model, settings)
        worst = max(st["rel"] for st in stats)
        if not worst < fixtures.EXACT_RTOL:
            raise RuntimeError(f"{name}: pyhf logpdf differs from logpdf_exact by {worst:.3g} relative")
        fx["source_root"] = "the hfcore repository"
        fx["generator"] = "tests/reference/make_conformance_models.py"
        fx["mpmath_version"] = fixtures.mpmath.__version__
        fx["workspace"] = doc
        with open(OUT / f"{name}.json", "w") as f:
            json.dump(fx, f, allow_nan=False, separators=(",", ":"))
            f.write("\n")
        print(f"{name}: {len(fx['par_names'])} pars, {fx['n_main_data']} main bins, "
              f"pyhf vs 50-digit logpdf <= {worst:.3g} relative")


if __name__ == "__main__":
    main()
