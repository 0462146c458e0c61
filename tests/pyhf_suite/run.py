#!/usr/bin/env python3
"""Runs pyhf 0.7.6's own test suite against the installed hfcore (``pyhf`` resolving to ``hfcore``).

    python tests/pyhf_suite/run.py [--peers ../shared/peers/pyhf-0.7.6] [--target 0.90] [pytest args...]

pytest runs from the peers' folder (several tests open validation/... relative to it) with pyhf's conftest.py
replaced by hfcore_as_pyhf.py (same fixtures; pytorch/jax/tensorflow parameters skipped as "autodiff backend not
in hfcore"). Prints the outcome counts per file and exits non-zero when the pass rate of the tests that ran is
below the target or a test of MUST_PASS fails that known_failures.txt does not list (with its reason). A skipped
test did not run and is never counted as passing; a file that fails to collect counts as one failure.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]

MUST_PASS = (
    "test_validation.py", "test_infer.py", "test_workspace.py", "test_patchset.py", "test_simplemodels.py",
    "test_teststats.py", "test_calculator.py", "test_toys.py", "test_schema.py", "test_import.py",
    "test_export.py",
)

# Files of pyhf's suite that are not run, and why (none of them tests a computation hfcore does).
NOT_RUN = {
    "tests/test_notebooks.py": "runs pyhf's documentation notebooks (papermill, scrapbook, the notebooks themselves)",
    "tests/test_regression.py": "needs skhep_testdata (not on the package index here)",
    "tests/test_paramviewer.py": "imports skhep_testdata at module level (not on the package index here)",
    "tests/test_scripts.py": "pyhf's command line through pytest-console-scripts' script_runner",
    "tests/test_examples.py": "pyhf's command line through pytest-console-scripts' script_runner",
    "tests/benchmarks": "pytest-benchmark timings of pyhf's backends, not tests",
}

KNOWN_FAILURES = HERE / "known_failures.txt"

ORDER = ("passed", "xfailed", "failed", "error", "xpassed", "collection_error", "skipped", "skipped_autodiff")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--peers", default=os.environ.get("HFCORE_PYHF_PEERS",
                                                          str(REPO.parent / "shared" / "peers" / "pyhf-0.7.6")))
    parser.add_argument("--target", type=float, default=0.90, help="least pass rate of the tests that ran")
    parser.add_argument("--no-check", action="store_true", help="print the counts only")
    args, pytest_args = parser.parse_known_args(argv)
    peers = pathlib.Path(args.peers).resolve()
    if not (peers / "tests").is_dir():
        sys.exit(f"pyhf_suite: no pyhf test suite at {peers}/tests (--peers or HFCORE_PYHF_PEERS)")

    with tempfile.TemporaryDirectory(prefix="hfcore-pyhf-suite-") as tmp:
        outcomes = pathlib.Path(tmp) / "outcomes.json"
        ini = pathlib.Path(tmp) / "pytest.ini"
        # pyhf's own settings (xfail_strict: a test marked to fail on a backend must fail), without its coverage
        # and doctest options (they are about pyhf's source tree).
        ini.write_text("[pytest]\nxfail_strict = true\n")
        cmd = [sys.executable, "-m", "pytest", "-c", str(ini), "--rootdir", str(peers), "--noconftest",
               "-p", "hfcore_as_pyhf", "-p", "no:cacheprovider", "--hfcore-outcomes", str(outcomes),
               "-q", "--tb=line", "-W", "ignore::DeprecationWarning",
               "--continue-on-collection-errors"]
        cmd += [f"--ignore={peers / p}" for p in NOT_RUN]
        cmd += pytest_args or ["tests"]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(HERE)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        proc = subprocess.run(cmd, cwd=peers, env=env)
        if not outcomes.exists():
            sys.exit(f"pyhf_suite: pytest stopped before writing its outcomes (exit {proc.returncode})")
        result = json.loads(outcomes.read_text())
    return report(result, args, bool(pytest_args))


def read_known_failures():
    """[(node id pattern, reason)] from known_failures.txt."""
    out = []
    for line in KNOWN_FAILURES.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            pattern, _, reason = line.partition("\t")
            out.append((pattern.strip(), reason.strip()))
    return out


def report(result, args, partial):
    files = result["files"]
    total = {k: 0 for k in ORDER}
    print(f"\n{'file':34s}" + "".join(f"{k:>17s}" for k in ORDER))
    for name in sorted(files):
        counts = files[name]
        for k in ORDER:
            total[k] += counts.get(k, 0)
        print(f"{name:34s}" + "".join(f"{counts.get(k, 0):17d}" for k in ORDER))
    print(f"{'total':34s}" + "".join(f"{total[k]:17d}" for k in ORDER))
    for name, why in NOT_RUN.items():
        print(f"not run: {name}: {why}")
    good = total["passed"] + total["xfailed"]
    ran = good + total["failed"] + total["error"] + total["xpassed"] + total["collection_error"]
    rate = good / ran if ran else 0.0
    print(f"pyhf_suite: {good} of {ran} tests that ran pass ({100 * rate:.1f}%; target {100 * args.target:.0f}%); "
          f"{total['skipped_autodiff']} skipped (autodiff backend not in hfcore), {total['skipped']} skipped by "
          "pyhf's own markers")
    known = read_known_failures()
    failed_must = [f for f in result["failed"] if pathlib.Path(f.split("::")[0]).name in MUST_PASS]
    bad_must = []
    for f in failed_must:
        why = next((reason for pattern, reason in known if fnmatch.fnmatchcase(f, pattern)), None)
        if why is None:
            bad_must.append(f)
            print(f"pyhf_suite: must-pass test failed: {f}")
        else:
            print(f"pyhf_suite: known failure: {f}: {why}")
    if args.no_check or partial:
        return 0
    status = 0
    if rate < args.target:
        print(f"pyhf_suite: pass rate {100 * rate:.1f}% is below the target {100 * args.target:.0f}%", file=sys.stderr)
        status = 1
    if bad_must:
        print(f"pyhf_suite: {len(bad_must)} test(s) of the must-pass files failed (not in {KNOWN_FAILURES.name})",
              file=sys.stderr)
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
